//! The library's error: one variant per area, each keeping its source, plus a small code the
//! desktop shell and `--json` output branch on and a hint of what the user can do
//! (`{code, message, hint}` across the IPC boundary).

use std::path::PathBuf;

use serde::Serialize;
use thiserror::Error;

use crate::catalog::CatalogError;
use crate::embed::EmbedError;
use crate::fault::{Classified, DocumentChoice, ErrorCode, Hint};
use crate::index::IndexError;
use crate::llm::LlmError;
use crate::models::ModelError;
use crate::pdf::PdfError;

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

    /// The code a client branches on: the area's own, for an error of an area.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Catalog(e) => e.code(),
            Error::Pdf(e) => e.code(),
            Error::Embed(e) => e.code(),
            Error::Llm(e) => e.code(),
            Error::Model(e) => e.code(),
            Error::Index(e) => e.code(),
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
            Error::Io { .. } | Error::Stopped { .. } => ErrorCode::Internal,
        }
    }

    /// What the user can do about it, where there is something to do.
    pub fn hint(&self) -> Option<Hint> {
        match self {
            Error::Catalog(e) => e.hint(),
            Error::Pdf(e) => e.hint(),
            Error::Embed(e) => e.hint(),
            Error::Llm(e) => e.hint(),
            Error::Model(e) => e.hint(),
            Error::Index(e) => e.hint(),
            Error::WhichDocument { choices, .. } => Some(Hint::ChooseDocument {
                choices: choices.clone(),
            }),
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
