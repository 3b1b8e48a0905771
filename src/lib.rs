//! Lectern's core: a library of PDFs in nested folders, each document indexed on its own (LanceDB
//! vectors and a tantivy keyword index), indexed in the background, with no user interface in it.
//! [`Library`] is the facade the command line (`lectern-cli`), the server (`lectern-serve`) and
//! the desktop shell call; `ARCHITECTURE.md` walks the modules in order.

pub mod allocator;
pub mod answer;
pub mod app_config;
mod ask;
pub mod catalog;
pub mod chunk;
mod config;
pub mod database;
pub mod dates;
pub mod embed;
mod engine;
mod error;
mod fault;
mod files;
mod ids;
pub mod index;
pub mod jobs;
mod library;
pub mod llm;
pub mod model_server;
pub mod models;
mod panic;
pub mod pdf;
pub mod remote;
pub mod search;
mod secrets;
pub mod throttle;
mod tuning;
pub mod watch;

pub use ask::{About, Answered, AskRequest, AskedOf, Because, Need, Question, Retrieval};
pub use catalog::{
    DeleteMode, Document, DocumentId, DocumentStatus, Folder, FolderId, FolderStats, Job, JobEvent, JobId, JobState,
};
pub use config::{one_thread_per_model, EmbedderConfig, LibraryConfig};
pub use error::{Error, ErrorPayload};
pub use fault::{Classified, DocumentChoice, ErrorCode, Hint};
pub use library::{
    restore_catalog, Access, AddedRemote, AskAt, AskChoices, AskOutcome, AskPlan, ContextPassage, ContextRequest,
    ContextWindow, Exported, ImportFailure, ImportReport, JobLogPage, Library, LibraryStatus, ModelEntry, Restored,
    Settings, JOB_LOG_POLL, LISTED_JOBS, MAX_K, RECOVERED_FOLDER, TOKEN_FILE,
};
pub use llm::BackendKind;
pub use secrets::SecretPlace;
pub use watch::{SyncProgress, SyncReport};
