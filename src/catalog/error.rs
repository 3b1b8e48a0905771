//! Errors of the catalog: what failed, whose fault it is, and what to do about it.

use thiserror::Error;

/// An error from the SQLite catalog of folders and documents.
#[derive(Debug, Error)]
pub enum CatalogError {
    #[error("the library catalog could not be read or written: {0}")]
    Sqlite(#[from] rusqlite::Error),
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
}
