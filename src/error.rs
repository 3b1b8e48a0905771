//! The library's error: one variant per area, each keeping its source, plus a small code the
//! desktop shell and `--json` output branch on and a hint of what the user can do
//! (`{code, message, hint}` across the IPC boundary).

use std::path::PathBuf;

use serde::Serialize;
use thiserror::Error;

use crate::catalog::{CatalogError, DocumentId};
use crate::embed::EmbedError;
use crate::index::IndexError;
use crate::llm::LlmError;
use crate::models::ModelError;
use crate::pdf::PdfError;
use crate::server::ServerError;

/// Anything a [`crate::Library`] call can fail with.
#[derive(Debug, Error)]
pub enum Error {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error(transparent)]
    Pdf(#[from] PdfError),
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A remote library could not be asked: the remote client's error, which classifies itself
    /// where it is defined (`remote/client.rs`).
    #[error("{message}")]
    Remote { message: String, code: ErrorCode },
    /// A question that points at one document without naming it ("page 14", "this paper"),
    /// over a scope of several, in a chat about none (`ask/about.rs`).
    #[error("{}", which_document(*in_scope, choices))]
    WhichDocument {
        in_scope: usize,
        /// The likeliest documents, best first.
        choices: Vec<DocumentChoice>,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: no such file or directory")]
    NotFound(PathBuf),
    /// The server could not listen where it was told to.
    #[error("could not serve the library at {address}: {reason}; if another program (another `lectern serve`, or the app) listens there, stop it or choose another address (`lectern serve --listen`, or LECTERN_SERVE_ADDRESS for the app)")]
    Listen { address: String, reason: String },
    /// A page or passage a document does not have (or not yet: it is not indexed).
    #[error("document {document} has no {part}")]
    PartNotFound { document: String, part: String },
    #[error("another Lectern process is indexing this library; it picks up new documents by itself")]
    IndexerBusy,
    /// A library cannot be copied where it was asked to go.
    #[error("the library cannot be copied to {target}: {reason}")]
    ExportTarget { target: String, reason: String },
    #[error("document {0} does not need a password")]
    NotLocked(String),
    #[error("invalid setting {name}: {reason}")]
    Config { name: String, reason: String },
    /// The system's keyring, which holds this library's secrets, failed.
    #[error("{what} the system keyring failed: {reason}")]
    Keyring { what: &'static str, reason: String },
    /// Work that Lectern runs on a thread of its own ended before it finished (a panic, or a
    /// thread the system would not start): Lectern's fault, not the user's.
    #[error("{what} stopped unexpectedly ({reason}); this is a fault in Lectern, not in your files")]
    Stopped { what: &'static str, reason: String },
    /// A write failed because the disk holding the library is full (`jobs/space.rs`).
    #[error("the disk holding the library is full ({reason}); free some space on it")]
    DiskFull { reason: String },
    /// The library's data directory is not there: its drive was unmounted or removed.
    #[error("the library's data directory {home} is not there (was its drive unmounted or removed?); nothing in the library was changed: reconnect the drive, and indexing goes on once it is back", home = home.display())]
    LibraryGone { home: PathBuf },
    /// The data directory chosen for the library is not there when the library opens: rather
    /// than a new, empty library at its place, this (`app_config.rs`).
    #[error("the library's data directory {home} is not there (is its drive unmounted or removed?); nothing was changed: reconnect the drive and open Lectern again, or, to start a new library elsewhere, choose another data directory in {config} or set LECTERN_HOME", home = home.display(), config = config.display())]
    LibraryMissing { home: PathBuf, config: PathBuf },
    /// The disk holding the library's data directory has turned read-only.
    #[error("the library's data directory {home} is on a disk that is read-only now; nothing in the library was changed: make the disk writable again (remount it, or check it for errors), and indexing goes on once it is", home = home.display())]
    LibraryReadOnly { home: PathBuf },
}

/// What kind of failure an [`Error`] is, for a client to branch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// A folder, document or file that does not exist.
    NotFound,
    /// Input the user can correct: a bad name, a non-PDF, a move into itself.
    InvalidInput,
    /// The request clashes with the library's state: a taken name, a non-empty folder.
    Conflict,
    /// The PDF needs a (correct) password.
    NeedsPassword,
    /// A model is not installed or a model server is not answering.
    Unavailable,
    /// The package index (or another source of a model) could not be reached: the machine is
    /// offline, most likely, and a model can come from a file or folder on it instead.
    Offline,
    /// Lectern's own fault or the machine's: disk, database, a bug.
    Internal,
    /// The request could mean several things: the hint lists them to choose from.
    Ambiguous,
}

/// What the user can do about an error. Messages say what failed and whose fault it is; each
/// client says the remedy in its own terms (a command for the CLI, a button or a place in the
/// window for the app).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Hint {
    /// The folders are listed where the library is shown.
    ListFolders,
    /// The documents are listed where the library is shown.
    ListDocuments,
    /// The past chats are listed where the chats are shown.
    ListChats,
    /// The linked directories are listed where the folders are shown.
    ListLinks,
    /// The directory must be unlinked from its folder first.
    Unlink,
    /// The known models are listed in the model manager.
    ListModels,
    /// A model must be installed: this one, or (none) any language model.
    InstallModel { model: Option<String> },
    /// A model must be installed or another chosen in the settings: the model or server there is
    /// missing, unreachable, or refuses.
    CheckSettings,
    /// The PDF's password must be given (again).
    EnterPassword,
    /// The question is to be asked again of one of these documents (the likeliest first).
    ChooseDocument { choices: Vec<DocumentChoice> },
}

/// A document offered to choose from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct DocumentChoice {
    pub id: DocumentId,
    /// The name it is shown by.
    pub name: String,
    /// Its folder's path.
    pub folder: String,
}

/// What [`Error::WhichDocument`] says.
fn which_document(in_scope: usize, choices: &[DocumentChoice]) -> String {
    let likeliest: Vec<String> = choices
        .iter()
        .map(|c| format!("\"{}\" (in {})", c.name, c.folder))
        .collect();
    format!(
        "the question points at one document without naming it, and {in_scope} documents are asked: name the document in the question, or ask it of one; the likeliest are {}",
        likeliest.join(", ")
    )
}

/// The error as the desktop shell sends it to the UI and `--json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ErrorPayload {
    pub code: ErrorCode,
    pub message: String,
    pub hint: Option<Hint>,
}

impl Error {
    /// Says that `what` stopped before it finished, with why.
    pub fn stopped<E: std::fmt::Display>(what: &'static str) -> impl FnOnce(E) -> Error {
        move |e| Error::Stopped {
            what,
            reason: e.to_string(),
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    /// The code a client branches on.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Catalog(e) => match e {
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
            },
            Error::Pdf(PdfError::NeedsPassword | PdfError::WrongPassword) => ErrorCode::NeedsPassword,
            Error::Pdf(PdfError::Io(_)) => ErrorCode::Internal,
            Error::Pdf(PdfError::Stopped(_) | PdfError::Gone(_)) => ErrorCode::Unavailable,
            Error::Pdf(_) => ErrorCode::InvalidInput,
            Error::Embed(EmbedError::Server(ServerError::KeyInClear { .. }))
            | Error::Llm(LlmError::Server(ServerError::KeyInClear { .. })) => ErrorCode::InvalidInput,
            Error::Embed(_) => ErrorCode::Unavailable,
            Error::Llm(
                LlmError::ContextFull { .. } | LlmError::ServerContextFull { .. } | LlmError::Setting { .. },
            ) => ErrorCode::InvalidInput,
            Error::Llm(LlmError::Runtime(_)) => ErrorCode::Internal,
            Error::Llm(LlmError::Model(e)) | Error::Model(e) => model_code(e),
            Error::Llm(_) => ErrorCode::Unavailable,
            Error::NotFound(_) | Error::PartNotFound { .. } => ErrorCode::NotFound,
            Error::IndexerBusy | Error::Listen { .. } | Error::ExportTarget { .. } => ErrorCode::Conflict,
            Error::NotLocked(_) | Error::Config { .. } => ErrorCode::InvalidInput,
            Error::Keyring { .. }
            | Error::DiskFull { .. }
            | Error::LibraryGone { .. }
            | Error::LibraryMissing { .. }
            | Error::LibraryReadOnly { .. } => ErrorCode::Unavailable,
            Error::Remote { code, .. } => *code,
            Error::WhichDocument { .. } => ErrorCode::Ambiguous,
            Error::Index(IndexError::DatabaseAway { .. }) => ErrorCode::Unavailable,
            Error::Index(IndexError::Superseded { .. }) => ErrorCode::Conflict,
            Error::Index(_) | Error::Io { .. } | Error::Stopped { .. } => ErrorCode::Internal,
        }
    }

    /// What the user can do about it, where there is something to do.
    pub fn hint(&self) -> Option<Hint> {
        match self {
            Error::Catalog(e) => match e {
                CatalogError::FolderNotFound(_) => Some(Hint::ListFolders),
                CatalogError::DocumentNotFound(_) => Some(Hint::ListDocuments),
                CatalogError::ChatNotFound(_) | CatalogError::AnswerNotFound { .. } => Some(Hint::ListChats),
                CatalogError::LinkNotFound(_) => Some(Hint::ListLinks),
                CatalogError::AlreadyLinked { .. } => Some(Hint::Unlink),
                _ => None,
            },
            Error::Pdf(PdfError::NeedsPassword | PdfError::WrongPassword) => Some(Hint::EnterPassword),
            Error::WhichDocument { choices, .. } => Some(Hint::ChooseDocument {
                choices: choices.clone(),
            }),
            Error::Model(e) | Error::Llm(LlmError::Model(e)) => model_hint(e),
            Error::Llm(LlmError::NotInstalled { .. }) => Some(Hint::InstallModel { model: None }),
            Error::Llm(LlmError::Server(
                ServerError::Unreachable { .. }
                | ServerError::UnknownModel { .. }
                | ServerError::Unauthorized { .. }
                | ServerError::KeyInClear { .. },
            )) => Some(Hint::CheckSettings),
            _ => None,
        }
    }

    /// The `{code, message, hint}` a client branches on and shows.
    pub fn payload(&self) -> ErrorPayload {
        ErrorPayload {
            code: self.code(),
            message: self.to_string(),
            hint: self.hint(),
        }
    }
}

/// The remedy of a model manager's error.
fn model_hint(error: &ModelError) -> Option<Hint> {
    match error {
        ModelError::Unknown(_) => Some(Hint::ListModels),
        ModelError::NotInstalled(id) => Some(Hint::InstallModel {
            model: Some(id.clone()),
        }),
        _ => None,
    }
}

/// The code of a model manager's error.
fn model_code(error: &ModelError) -> ErrorCode {
    match error {
        ModelError::Unknown(_) | ModelError::NotInstalled(_) => ErrorCode::NotFound,
        ModelError::NotGguf { .. } | ModelError::NotChat { .. } => ErrorCode::InvalidInput,
        ModelError::IdTaken(_) => ErrorCode::Conflict,
        ModelError::Io { .. } => ErrorCode::Internal,
        ModelError::Unreachable { .. } => ErrorCode::Offline,
        _ => ErrorCode::Unavailable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_json_shape_is_stable() {
        let error = Error::Catalog(CatalogError::FolderNotFound("Taxes".into()));
        let json = serde_json::to_value(error.payload()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "code": "not_found",
                "message": "no folder named \"Taxes\"",
                "hint": {"kind": "list_folders"}
            })
        );
    }

    #[test]
    fn a_model_source_out_of_reach_is_an_offline_error() {
        let error = Error::Model(ModelError::Unreachable {
            url: "https://pypi.org/simple/pypdfium2/".into(),
            reason: "dns error".into(),
        });
        assert_eq!(serde_json::to_value(error.payload()).unwrap()["code"], "offline");
    }
}
