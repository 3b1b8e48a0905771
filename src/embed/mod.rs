//! Text embeddings behind one trait, with two implementations: all-MiniLM-L6-v2 in-process (on
//! ONNX Runtime) and an HTTP client for Ollama and OpenAI-compatible servers.

mod error;
mod gguf;
mod graph;
mod http;
mod int8;
mod minilm;
mod runtime;
mod weights;

pub use error::EmbedError;
pub use gguf::{GgufEmbedder, DOCUMENT_PREFIX, QUERY_PREFIX};
pub use http::{identity as http_identity, HttpEmbedder};
pub use int8::Precision;
pub use minilm::{
    identity as minilm_identity, in_length_batches, tokenizer_for_batches, MiniLm, Parallelism, MAX_SEQUENCE,
    MODEL_FILE, ORIGINALS_FILE, TOKENIZER_FILE,
};
pub use runtime::LIBRARY_FILE;

/// The name of the in-process model's directory under the models directory.
pub const MINILM_DIR: &str = "all-MiniLM-L6-v2";

/// Turns texts into vectors of one fixed dimension.
pub trait Embedder: Send + Sync {
    /// The model's identity: its name and, where the weights are on this machine, a hash of
    /// them and of the pooling. Recorded in each index, and checked by every query, so that
    /// vectors of two models are never compared.
    fn id(&self) -> String;
    /// The length of every vector this embedder returns.
    fn dimension(&self) -> usize;
    /// One vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// The cosine similarity a question's best passage reaches when the documents bear on it,
    /// measured for this model; `None` when it has not been (every model spreads its
    /// similarities differently).
    fn relevance_floor(&self) -> Option<f32> {
        None
    }
}
