//! What can go wrong asking a language model, said so that a person can act on it.

use std::path::PathBuf;

use thiserror::Error;

use crate::models::ModelError;

#[derive(Debug, Error)]
pub enum LlmError {
    #[error("the language model {} is not there", path.display())]
    NotInstalled { path: PathBuf },
    #[error("could not load the language model {}: {reason}", path.display())]
    Load { path: PathBuf, reason: String },
    #[error("the built-in model failed while generating: {0}")]
    Runtime(String),
    #[error("could not reach {backend} at {url} ({reason}): is the server running? Check the URL in the settings")]
    Unreachable {
        backend: &'static str,
        url: String,
        reason: String,
    },
    #[error("{backend} at {url} has no model named \"{model}\"{hint}")]
    UnknownModel {
        backend: &'static str,
        url: String,
        model: String,
        hint: &'static str,
    },
    #[error("{backend} at {url} refused the API key: check it in the settings or in LECTERN_LLM_API_KEY")]
    Unauthorized { backend: &'static str, url: String },
    #[error("{backend} at {url} answered with an error (HTTP {status}): {message}")]
    Server {
        backend: &'static str,
        url: String,
        status: u16,
        message: String,
    },
    #[error("{backend} at {url} sent a reply Lectern cannot read: {reason}")]
    BadReply {
        backend: &'static str,
        url: String,
        reason: String,
    },
    #[error("the connection to {backend} at {url} closed before the answer was complete")]
    Dropped { backend: &'static str, url: String },
    #[error("invalid setting {name}: {reason}")]
    Setting { name: &'static str, reason: String },
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("the question and its passages do not fit the model's context window of {window} tokens")]
    ContextFull { window: usize },
    #[error("{backend} at {url} has a smaller context window than the {window} tokens Lectern planned for ({message}): set LECTERN_LLM_CONTEXT to the window the server gives the model")]
    ServerContextFull {
        backend: &'static str,
        url: String,
        window: usize,
        message: String,
    },
}
