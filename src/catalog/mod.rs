//! The catalog: folders and documents, the source of truth for what the library holds, in
//! SQLite on disk or in the library's PostgreSQL database (`sql.rs` speaks to either).
//!
//! Folders form a tree (`folders.rs`); documents belong to exactly one folder (`documents.rs`);
//! chats keep their questions and cited answers (`chats.rs`); indexing jobs other programs
//! follow keep their documents and log (`jobs.rs`).
//! A document's index lives on disk keyed by its id, so moving a document changes one row here
//! and nothing else. The connection runs in WAL mode so that readers never wait for the indexer.

mod api;
pub mod backup;
mod chats;
mod copy;
mod display_name;
mod documents;
mod error;
mod files;
mod folders;
mod jobs;
mod links;
mod log;
pub mod migrations;
mod names;
mod remotes;
mod scope;
mod sealed;
mod settings;
mod sql;

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use sql::{Db, Pg};

pub use crate::ids::{ChunkId, DocumentId, FolderId};
pub use api::{ApiRequest, ApiToken};
pub use chats::{AnswerKind, Chat, ChatId, ChatMessage, Citation, NewMessage, Strategy};
pub use copy::API_KEY_IN_KEYRING;
pub use display_name::{display_name, readable_title};
pub use documents::{FileOrigin, Interrupted, NewDocument, PdfMetadata, Readied};
pub use error::CatalogError;
pub use folders::DeleteMode;
pub use jobs::{Job, JobEvent, JobId, JobState};
pub use links::{Link, LinkId, LinkedFile};
pub use log::{LogEntry, LogLevel};
pub use names::{words, Names};
pub use remotes::{Remote, StoredRemote};
pub use scope::{RemoteScope, Scope, ScopeDocuments, ScopeFilters, ScopedDocument};

/// The folder a new library starts with.
pub const DEFAULT_FOLDER: &str = "Personal Knowledge";

/// The catalog's file in a library's data directory.
pub const CATALOG_FILE: &str = "library.sqlite";

/// A folder with its slash-separated path from the top level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Folder {
    pub id: FolderId,
    pub parent: Option<FolderId>,
    pub name: String,
    pub path: String,
    /// The retrieval strategy of chats over this folder, unless a chat has its own; without
    /// one, the parent folder's.
    pub strategy: Option<Strategy>,
    /// The strategy of its nearest ancestor that has one: what its chats take while it has none.
    pub inherited_strategy: Option<Strategy>,
    pub created_at: i64,
}

/// Where a document stands in its life: waiting, being indexed, or one of the end states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DocumentStatus {
    Queued,
    Indexing,
    Ready,
    NeedsOcr,
    NeedsPassword,
    Failed,
}

impl DocumentStatus {
    /// The name stored in the catalog and shown by the CLI.
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentStatus::Queued => "queued",
            DocumentStatus::Indexing => "indexing",
            DocumentStatus::Ready => "ready",
            DocumentStatus::NeedsOcr => "needs_ocr",
            DocumentStatus::NeedsPassword => "needs_password",
            DocumentStatus::Failed => "failed",
        }
    }

    /// Reads a stored status; an unknown name (from a newer Lectern) reads as `failed`.
    pub fn parse(s: &str) -> DocumentStatus {
        match s {
            "queued" => DocumentStatus::Queued,
            "indexing" => DocumentStatus::Indexing,
            "ready" => DocumentStatus::Ready,
            "needs_ocr" => DocumentStatus::NeedsOcr,
            "needs_password" => DocumentStatus::NeedsPassword,
            _ => DocumentStatus::Failed,
        }
    }

    /// True once indexing has nothing more to do for the document without a user's action.
    pub fn is_settled(self) -> bool {
        !matches!(self, DocumentStatus::Queued | DocumentStatus::Indexing)
    }
}

/// A document as the catalog records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "LibraryDocument"))]
pub struct Document {
    pub id: DocumentId,
    pub folder: FolderId,
    pub file_name: String,
    /// The PDF's metadata title, as it reads.
    pub title: Option<String>,
    /// What the document is shown by wherever it is named: its title when that reads as a title,
    /// else its file name without `.pdf` (computed from those two, never stored).
    pub display_name: String,
    pub author: Option<String>,
    /// The creation date from the PDF's info dictionary, as ISO 8601 where it could be read.
    pub pdf_created: Option<String>,
    /// The modification date from the PDF's info dictionary, likewise.
    pub pdf_modified: Option<String>,
    /// The file it was imported from, absolute; `None` for documents added before this was kept.
    pub source_path: Option<String>,
    /// The file's type by its content (`application/pdf`).
    pub mime_type: Option<String>,
    /// When the file was last modified before its import (milliseconds since the Unix epoch).
    pub file_modified: Option<i64>,
    pub page_count: Option<u64>,
    pub byte_size: u64,
    pub char_count: Option<u64>,
    pub chunk_count: Option<u64>,
    /// SHA-256 of the file's bytes, hex; also its name under `files/`.
    pub content_hash: String,
    /// Milliseconds since the Unix epoch.
    pub added_at: i64,
    pub status: DocumentStatus,
    /// Why the document is not ready, in words a person understands.
    pub reason: Option<String>,
    /// Pages indexed so far, of `progress_total`.
    pub progress_done: u64,
    pub progress_total: u64,
    /// The page being read by OCR while the document is read, if one is.
    pub progress_ocr_page: Option<u32>,
    /// The model whose vectors the document's index holds (see [`crate::Embedder::id`]); `None`
    /// while a ready document is searchable by keyword only.
    pub embedded_with: Option<String>,
    /// Chunks embedded so far, of `embed_total`, while a ready document waits for or gets the
    /// vectors of the library's model; both 0 otherwise.
    pub embed_done: u64,
    pub embed_total: u64,
}

/// Per-folder totals (`lectern status`, the app's tree).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FolderStats {
    pub folder: Folder,
    pub documents: u64,
    pub pages: u64,
    pub chunks: u64,
    pub ready: u64,
    pub pending: u64,
    pub needing_attention: u64,
    pub latest_added: Option<i64>,
}

/// An open catalog. Not `Sync`: the library keeps it behind a mutex.
pub struct Catalog {
    db: Db,
    /// What secrets are sealed with in a database (`LECTERN_SECRET_KEY`).
    sealing: Option<sealed::SealingKey>,
    scopes_read: scope::ScopesRead,
}

impl Catalog {
    /// Opens (creating if needed) the catalog at `path`, migrates it, and makes sure the library has
    /// at least its default folder.
    ///
    /// A catalog SQLite cannot read is [`CatalogError::Damaged`]; one that opens is backed up
    /// into `backups/` beside it once a day (`backup.rs`).
    pub fn open(path: &Path) -> Result<Catalog, CatalogError> {
        let backups = path.with_file_name(backup::DIR);
        let damaged = |reason: String| CatalogError::Damaged {
            path: path.to_path_buf(),
            reason,
            backup: backup::newest_good(&backups),
        };
        let opened = (|| {
            let conn = Connection::open(path)?;
            conn.busy_timeout(Duration::from_secs(10))?;
            conn.pragma_update(None, "journal_mode", "WAL")?;
            Ok((backup::problem(&conn)?, conn))
        })();
        let mut conn = match opened {
            Ok((None, conn)) => conn,
            Ok((Some(problem), _)) => return Err(damaged(problem)),
            Err(e) if backup::is_damage(&e) => return Err(damaged(e.to_string())),
            Err(e) => return Err(e.into()),
        };
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrations::apply(&mut conn)?;
        // A backup that cannot be written (a full or read-only disk) does not keep the library
        // from opening: the next open tries again.
        let _ = backup::back_up_if_due(&conn, &backups, now_millis());
        Catalog::started(Db::sqlite(conn), None)
    }

    /// Connects to the catalog in the PostgreSQL database at `url`, migrates it, and makes sure
    /// the library has at least its default folder. Secrets it keeps are sealed with
    /// `secret_key`; without one, it refuses them.
    pub fn connect(url: &str, secret_key: Option<&str>) -> Result<Catalog, CatalogError> {
        let sealing = secret_key.map(sealed::SealingKey::new).transpose()?;
        let (server, runtime) = crate::database::start(url)?;
        let pg = Pg::connect(server, runtime)?;
        migrations::apply_postgres(&pg)?;
        let catalog = Catalog::started(Db::postgres(pg), sealing)?;
        catalog.reseal_old()?;
        Ok(catalog)
    }

    /// `db`, with at least the default folder.
    fn started(db: Db, sealing: Option<sealed::SealingKey>) -> Result<Catalog, CatalogError> {
        let catalog = Catalog {
            db,
            sealing,
            scopes_read: Default::default(),
        };
        catalog.locked(|catalog| {
            if catalog.list_folders()?.is_empty() {
                catalog.create_folder(None, DEFAULT_FOLDER)?;
            }
            Ok::<_, CatalogError>(())
        })?;
        Ok(catalog)
    }

    /// Runs `f` holding the catalog's write lock, so that no other process writes between what
    /// `f` reads and what it does, in the catalog or beside it: importing a file and removing one
    /// no document needs are each done inside it. All or nothing: rolled back if `f` fails.
    pub fn locked<T, E: From<CatalogError>>(&self, f: impl FnOnce(&Catalog) -> Result<T, E>) -> Result<T, E> {
        self.db.transaction(|| f(self))
    }

    /// Runs `f` reading one snapshot of the catalog, which other processes' writes meanwhile do
    /// not change and do not wait for: a copy of the library reads all of it as of one moment.
    pub fn snapshot<T, E: From<CatalogError>>(&self, f: impl FnOnce(&Catalog) -> Result<T, E>) -> Result<T, E> {
        self.db.snapshot(|| f(self))
    }

    /// A stamp that changes whenever anything in the catalog may have changed, other processes'
    /// commits included: what was read at one stamp is still true while it is unchanged. `None`
    /// where that cannot be told (PostgreSQL, or inside a transaction).
    pub fn change_stamp(&self) -> Option<String> {
        self.db
            .change_stamp()
            .map(|(version, changes)| format!("{version}.{changes}"))
    }
}

/// How many documents the catalog file at `path` holds, if there is one that can be read.
pub fn documents_in_file(path: &Path) -> Option<u64> {
    if !path.is_file() {
        return None;
    }
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    conn.query_row("SELECT COUNT(*) FROM documents", [], |r| r.get(0)).ok()
}

/// Milliseconds since the Unix epoch, now.
pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Checks a folder or document name: not empty, no '/', at most 255 characters.
fn validate_name(name: &str) -> Result<String, CatalogError> {
    let trimmed = name.trim();
    if trimmed.is_empty() || trimmed.contains('/') || trimmed.chars().count() > 255 {
        return Err(CatalogError::InvalidName(name.to_string()));
    }
    Ok(trimmed.to_string())
}
