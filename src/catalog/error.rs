//! Errors of the catalog: what failed, whose fault it is, and what to do about it.

use std::path::PathBuf;

use thiserror::Error;

use crate::database::said;

use super::backup::Backup;
use crate::database::Unreached;
use crate::fault::{Classified, ErrorCode, Hint};

/// An error from the catalog of folders and documents (SQLite, or the library's database).
#[derive(Debug, Error)]
pub enum CatalogError {
    #[error("the library catalog could not be read or written: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("the library's database at {server} could not be read or written: {}", said(.source))]
    Database {
        server: String,
        #[source]
        source: tokio_postgres::Error,
    },
    #[error(
        "the library's database at {server} cannot be reached ({}); ask again once it answers: check \
         that its server runs and that this machine reaches it",
        said(.source)
    )]
    DatabaseAway {
        server: String,
        #[source]
        source: tokio_postgres::Error,
    },
    #[error("the library's database at {server} cannot be used: {reason}")]
    DatabaseSetup { server: String, reason: String },
    #[error("the library catalog holds a value Lectern cannot read (column {index}: {reason}); it was changed outside Lectern")]
    Column { index: usize, reason: String },
    #[error("the library catalog returned no row where one is always expected")]
    NoRow,
    #[error("{what} would be kept in the library's database in clear text: set LECTERN_SECRET_KEY (the same long random string for every process using the database) to seal it, or use a system keyring")]
    SecretInClear { what: &'static str },
    #[error("the library's secret key: {reason}")]
    SecretKey { reason: String },
    #[error("no folder named \"{0}\"")]
    FolderNotFound(String),
    #[error("no chat with id {0}")]
    ChatNotFound(String),
    #[error("no retrieval strategy \"{0}\": choose always, confidence, function or smart")]
    UnknownStrategy(String),
    #[error("chat {chat} has no answer {message}")]
    AnswerNotFound { chat: String, message: i64 },
    #[error("a chat's stored {what} could not be read: {reason}")]
    BadChatData { what: &'static str, reason: String },
    #[error("no linked directory {0}")]
    LinkNotFound(String),
    #[error("{path} is already linked to folder \"{folder}\"; unlink it first")]
    AlreadyLinked { path: String, folder: String },
    #[error("no token named \"{0}\" (`lectern serve token list` lists them)")]
    TokenNotFound(String),
    #[error("no remote library named \"{0}\" (`lectern remote ls` lists them)")]
    RemoteNotFound(String),
    #[error("no job with id {0}")]
    JobNotFound(String),
    #[error("no document with id {0}")]
    DocumentNotFound(String),
    #[error("\"{name}\" already exists in {parent}; choose another name")]
    NameClash { name: String, parent: String },
    #[error("cannot move folder \"{folder}\" into \"{target}\", which is inside it")]
    MoveIntoItself { folder: String, target: String },
    #[error("folder \"{name}\" holds {documents} document(s) and {subfolders} subfolder(s); choose whether to delete the documents or move them to the parent folder")]
    FolderNotEmpty {
        name: String,
        documents: u64,
        subfolders: u64,
    },
    #[error("folder \"{0}\" is at the top level, so its documents cannot move to a parent; delete them or move them elsewhere first")]
    NoParent(String),
    #[error("invalid name {0:?}: a name must not be empty, contain '/', or be longer than 255 characters")]
    InvalidName(String),
    #[error("the catalog names this document's stored file {0:?}, which is not a content hash; the catalog was changed outside Lectern, so delete the document and add the file again")]
    BadContentHash(String),
    #[error("the catalog has schema version {found}, newer than this Lectern ({supported}); update Lectern")]
    TooNew { found: i64, supported: i64 },
    #[error("the library catalog {} is damaged ({reason}); the PDFs and their indexes are untouched. {}", .path.display(), remedy(.backup.as_ref()))]
    Damaged {
        path: PathBuf,
        reason: String,
        /// The newest backup SQLite reads without a problem.
        backup: Option<Backup>,
    },
    #[error("the library catalog could not be backed up to {}: {source}", .path.display())]
    Backup {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What to do about a damaged catalog, with the newest good `backup` if there is one.
fn remedy(backup: Option<&Backup>) -> String {
    match backup {
        Some(backup) => format!(
            "Put back its last good backup, made {}, with `lectern library restore-catalog`: the damaged file is kept \
             beside it, and documents added since are found again from their indexes",
            crate::dates::utc(backup.made)
        ),
        None => "There is no backup of it: `lectern library restore-catalog` rebuilds it from the documents' indexes \
                 (the damaged file is kept beside it; folders and chats cannot be rebuilt, so the documents go to the \
                 folder \"Recovered\")"
            .to_string(),
    }
}

impl CatalogError {
    /// The error `source` of the database at `server`: [`CatalogError::DatabaseAway`] when the
    /// server went away or cannot be reached, what comes right by itself.
    pub fn database(server: String, source: tokio_postgres::Error) -> CatalogError {
        if crate::database::went_away(&source) {
            CatalogError::DatabaseAway { server, source }
        } else {
            CatalogError::Database { server, source }
        }
    }
}

impl From<Unreached> for CatalogError {
    fn from(unreached: Unreached) -> CatalogError {
        match unreached {
            Unreached::Setup { server, reason } => CatalogError::DatabaseSetup { server, reason },
            Unreached::Refused { server, source } => CatalogError::database(server, source),
        }
    }
}

impl Classified for CatalogError {
    fn code(&self) -> ErrorCode {
        match self {
            CatalogError::FolderNotFound(_)
            | CatalogError::DocumentNotFound(_)
            | CatalogError::JobNotFound(_)
            | CatalogError::RemoteNotFound(_)
            | CatalogError::ChatNotFound(_)
            | CatalogError::AnswerNotFound { .. }
            | CatalogError::LinkNotFound(_)
            | CatalogError::TokenNotFound(_) => ErrorCode::NotFound,
            CatalogError::NameClash { .. }
            | CatalogError::FolderNotEmpty { .. }
            | CatalogError::AlreadyLinked { .. } => ErrorCode::Conflict,
            CatalogError::MoveIntoItself { .. }
            | CatalogError::SecretInClear { .. }
            | CatalogError::SecretKey { .. }
            | CatalogError::NoParent(_)
            | CatalogError::InvalidName(_)
            | CatalogError::UnknownStrategy(_) => ErrorCode::InvalidInput,
            CatalogError::Database { .. }
            | CatalogError::DatabaseAway { .. }
            | CatalogError::DatabaseSetup { .. }
            | CatalogError::Damaged { .. } => ErrorCode::Unavailable,
            CatalogError::Sqlite(_)
            | CatalogError::Backup { .. }
            | CatalogError::Column { .. }
            | CatalogError::NoRow
            | CatalogError::TooNew { .. }
            | CatalogError::BadChatData { .. }
            | CatalogError::BadContentHash(_) => ErrorCode::Internal,
        }
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            CatalogError::FolderNotFound(_) => Some(Hint::ListFolders),
            CatalogError::DocumentNotFound(_) => Some(Hint::ListDocuments),
            CatalogError::ChatNotFound(_) | CatalogError::AnswerNotFound { .. } => Some(Hint::ListChats),
            CatalogError::LinkNotFound(_) => Some(Hint::ListLinks),
            CatalogError::AlreadyLinked { .. } => Some(Hint::Unlink),
            _ => None,
        }
    }
}
