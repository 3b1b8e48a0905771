//! Errors of the embedding models, saying whose fault a failure is and what to do.

use std::path::PathBuf;

use thiserror::Error;

use crate::fault::{Classified, ErrorCode, Hint};
use crate::model_server::ServerError;

/// Why text could not be embedded.
#[derive(Debug, Error)]
pub enum EmbedError {
    #[error(
        "the embedding model is not installed in {dir} (missing {file}); install it from the app's setup or Models settings, or with `lectern model install all-minilm-l6-v2`"
    )]
    ModelMissing { dir: PathBuf, file: String },
    #[error("the embedding model in {dir} could not be loaded: {reason}")]
    ModelBroken { dir: PathBuf, reason: String },
    #[error(
        "ONNX Runtime ({library}) could not be loaded: {reason}; `lectern model install all-minilm-l6-v2` replaces it if it is damaged"
    )]
    RuntimeMissing { library: PathBuf, reason: String },
    #[error("the embedding model failed while running: {0}")]
    Runtime(String),
    #[error("the text could not be tokenized: {0}")]
    Tokenizer(String),
    #[error("{0}; the embedding server is set by LECTERN_EMBEDDER, LECTERN_EMBED_URL and LECTERN_EMBED_API_KEY")]
    Server(#[from] ServerError),
    #[error("the embedding model returned vectors of {got} dimensions, but {expected} were expected; the index and the model do not match")]
    Dimension { expected: usize, got: usize },
}

impl Classified for EmbedError {
    /// A missing or failing embedder leaves the library unable to search until it is mended.
    fn code(&self) -> ErrorCode {
        match self {
            EmbedError::Server(e) => e.code(),
            _ => ErrorCode::Unavailable,
        }
    }

    fn hint(&self) -> Option<Hint> {
        match self {
            EmbedError::Server(e) => e.hint(),
            _ => None,
        }
    }
}
