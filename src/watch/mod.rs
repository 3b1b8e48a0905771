//! Watched directories: a library folder kept in sync with a directory on disk.
//!
//! `scan.rs` lists a directory's PDFs with their size and modification time; `sync.rs` compares
//! that listing with what the catalog last saw and applies the difference (new files imported,
//! renames kept as renames by content hash, changed content re-indexed, deleted files' documents
//! removed or kept); `watcher.rs` runs a sync when
//! `notify` reports a change, when a file still being written settles, and when a vanished
//! directory comes back.

mod scan;
mod sync;
mod watcher;

pub use scan::{scan, Scan, ScannedFile, STABLE_AFTER};
pub(crate) use sync::{sync_link, sync_links};
pub use sync::{SyncProgress, SyncReport};
pub use watcher::Watcher;
