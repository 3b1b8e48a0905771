//! What can go wrong talking to a model server, for embeddings and answers alike, said so that a
//! person can act on it.

use thiserror::Error;

use crate::fault::{Classified, ErrorCode, Hint};

/// A model server's failure: which server (`server`, as [`super::ServerApi::name`] says it) at
/// which endpoint, and what went wrong.
#[derive(Debug, Error)]
pub enum ServerError {
    #[error("could not reach {server} at {url} ({reason}): is the server running? Check the URL")]
    Unreachable {
        server: &'static str,
        url: String,
        reason: String,
    },
    #[error("{server} at {url} does not know the model \"{model}\"{remedy}")]
    UnknownModel {
        server: &'static str,
        url: String,
        model: String,
        remedy: &'static str,
    },
    #[error("{server} at {url} refused the API key: check the key")]
    Unauthorized { server: &'static str, url: String },
    #[error("{server} at {url} answered with an error (HTTP {status}): {message}")]
    Refused {
        server: &'static str,
        url: String,
        status: u16,
        message: String,
    },
    #[error("{server} at {url} sent a reply Lectern cannot read: {reason}")]
    BadReply {
        server: &'static str,
        url: String,
        reason: String,
    },
    #[error("the connection to {server} at {url} closed before the reply was complete")]
    Dropped { server: &'static str, url: String },
    #[error("Lectern does not send an API key over plain http to another machine ({url}): use an https:// address, or no key")]
    KeyInClear { url: String },
}

impl Classified for ServerError {
    /// A key Lectern will not send is the settings' fault; anything else, the server's.
    fn code(&self) -> ErrorCode {
        match self {
            ServerError::KeyInClear { .. } => ErrorCode::InvalidInput,
            _ => ErrorCode::Unavailable,
        }
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            ServerError::Unreachable { .. }
            | ServerError::UnknownModel { .. }
            | ServerError::Unauthorized { .. }
            | ServerError::KeyInClear { .. } => Some(Hint::CheckSettings),
            _ => None,
        }
    }
}
