//! Embeddings from an HTTP server: Ollama's `/api/embed` or an OpenAI-compatible `/v1/embeddings`.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use super::{EmbedError, Embedder};
use crate::model_server::{Endpoint, ServerApi};

/// An embedder that calls a server; the dimension is learned from a first call and then enforced.
pub struct HttpEmbedder {
    endpoint: Endpoint,
    dimension: usize,
}

#[derive(Deserialize)]
struct OllamaReply {
    embeddings: Vec<Vec<f32>>,
}

#[derive(Deserialize)]
struct OpenAiItem {
    embedding: Vec<f32>,
    index: usize,
}

#[derive(Deserialize)]
struct OpenAiReply {
    data: Vec<OpenAiItem>,
}

impl HttpEmbedder {
    /// Connects to `base_url` and embeds a probe text to learn (or, with `expected`, check) the
    /// model's dimension, so that a wrong URL, model or key fails here and not mid-index.
    pub fn connect(
        api: ServerApi,
        base_url: &str,
        model: &str,
        api_key: Option<String>,
        expected: Option<usize>,
    ) -> Result<HttpEmbedder, EmbedError> {
        let url = api.endpoint(base_url, "embed", "embeddings");
        let endpoint = Endpoint::new(api, url, model, api_key, Some(Duration::from_secs(120)))?;
        let mut embedder = HttpEmbedder { endpoint, dimension: 0 };
        let probe = embedder.request(&["dimension probe"])?;
        let got = probe.first().map_or(0, Vec::len);
        if let Some(expected) = expected.filter(|&e| e != got) {
            return Err(EmbedError::Dimension { expected, got });
        }
        embedder.dimension = got;
        Ok(embedder)
    }

    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let reply = self
            .endpoint
            .post_json(&json!({ "model": self.endpoint.model(), "input": texts }))?;
        let bad = |e: serde_json::Error| self.endpoint.bad_reply(e.to_string());
        let vectors = match self.endpoint.api() {
            ServerApi::Ollama => serde_json::from_value::<OllamaReply>(reply).map_err(bad)?.embeddings,
            ServerApi::OpenAi => {
                let mut data = serde_json::from_value::<OpenAiReply>(reply).map_err(bad)?.data;
                data.sort_by_key(|d| d.index);
                data.into_iter().map(|d| d.embedding).collect()
            }
        };
        if vectors.len() != texts.len() {
            let reason = format!("{} vectors for {} texts", vectors.len(), texts.len());
            return Err(self.endpoint.bad_reply(reason).into());
        }
        Ok(vectors)
    }
}

/// The identity of a server's model: the server's kind and the model's name (its weights are
/// the server's).
pub fn identity(api: ServerApi, model: &str) -> String {
    format!("{}:{model}", api.id())
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> String {
        identity(self.endpoint.api(), self.endpoint.model())
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let vectors = self.request(texts)?;
        if let Some(bad) = vectors.iter().find(|v| v.len() != self.dimension) {
            return Err(EmbedError::Dimension {
                expected: self.dimension,
                got: bad.len(),
            });
        }
        Ok(vectors)
    }
}
