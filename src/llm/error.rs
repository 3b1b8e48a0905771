//! What can go wrong asking a language model, said so that a person can act on it.

use std::path::PathBuf;

use thiserror::Error;

use crate::fault::{Classified, ErrorCode, Hint};
use crate::model_server::ServerError;
use crate::models::ModelError;

#[derive(Debug, Error)]
pub enum LlmError {
    #[error("the language model {} is not there", path.display())]
    NotInstalled { path: PathBuf },
    #[error("could not load the language model {}: {reason}", path.display())]
    Load { path: PathBuf, reason: String },
    #[error("the built-in model failed while generating: {0}")]
    Runtime(String),
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error("invalid setting {name}: {reason}")]
    Setting { name: &'static str, reason: String },
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("the question and its passages do not fit the model's context window of {window} tokens")]
    ContextFull { window: usize },
    #[error("{server} at {url} has a smaller context window than the {window} tokens Lectern planned for ({message}): set LECTERN_LLM_CONTEXT to the window the server gives the model")]
    ServerContextFull {
        server: &'static str,
        url: String,
        window: usize,
        message: String,
    },
}

impl Classified for LlmError {
    fn code(&self) -> ErrorCode {
        match self {
            LlmError::ContextFull { .. } | LlmError::ServerContextFull { .. } | LlmError::Setting { .. } => {
                ErrorCode::InvalidInput
            }
            LlmError::Runtime(_) => ErrorCode::Internal,
            LlmError::Model(e) => e.code(),
            LlmError::Server(e) => e.code(),
            LlmError::NotInstalled { .. } | LlmError::Load { .. } => ErrorCode::Unavailable,
        }
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            LlmError::Model(e) => e.hint(),
            LlmError::Server(e) => e.hint(),
            LlmError::NotInstalled { .. } => Some(Hint::InstallModel { model: None }),
            _ => None,
        }
    }
}
