//! Background indexing: the queue (tokio), one task per document, the indexer lock that keeps a
//! second process from indexing the same library, start-up reconciliation, and progress events.

mod crash_mark;
mod keeper;
mod lock;
mod queue;
mod reconcile;
mod space;
mod task;

pub use crate::engine::{next_event, IndexEvent};
pub(crate) use keeper::keep as keep_wide_index;
pub use lock::IndexerLock;
pub(crate) use queue::run;
pub use queue::{IndexRun, RunMode};
pub use reconcile::Reconciled;
