//! Errors of the embedding models, saying whose fault a failure is and what to do.

use std::path::PathBuf;

use thiserror::Error;

/// Why text could not be embedded.
#[derive(Debug, Error)]
pub enum EmbedError {
    #[error(
        "the embedding model is not installed in {dir} (missing {file}); run `scripts/setup-models.sh` to install it"
    )]
    ModelMissing { dir: PathBuf, file: String },
    #[error("the embedding model in {dir} could not be loaded: {reason}")]
    ModelBroken { dir: PathBuf, reason: String },
    #[error("the embedding model failed while running: {0}")]
    Runtime(#[from] candle_core::Error),
    #[error("the text could not be tokenized: {0}")]
    Tokenizer(String),
    #[error("the embedding server is not answering at {url}: {reason}; is it running?")]
    Unreachable { url: String, reason: String },
    #[error("the embedding server at {url} does not know the model \"{model}\"; pull or load it first")]
    UnknownModel { url: String, model: String },
    #[error("the embedding server at {url} refused the API key; check LECTERN_EMBED_API_KEY")]
    Unauthorized { url: String },
    #[error("the embedding server at {url} answered {status}: {body}")]
    Server { url: String, status: u16, body: String },
    #[error("the embedding server at {url} sent a reply Lectern cannot read: {reason}")]
    BadReply { url: String, reason: String },
    #[error("the embedding model returned vectors of {got} dimensions, but {expected} were expected; the index and the model do not match")]
    Dimension { expected: usize, got: usize },
}
