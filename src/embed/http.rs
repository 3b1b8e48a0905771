//! Embeddings from an HTTP server: Ollama's `/api/embed` or an OpenAI-compatible `/v1/embeddings`.

use std::time::Duration;

use reqwest::blocking::Client;
use serde::Deserialize;
use serde_json::json;

use super::{EmbedError, Embedder};
use crate::server::ServerApi;

/// An embedder that calls a server; the dimension is learned from a first call and then enforced.
pub struct HttpEmbedder {
    client: Client,
    api: ServerApi,
    url: String,
    model: String,
    api_key: Option<String>,
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
        let client = Client::builder()
            .timeout(Duration::from_secs(120))
            .build()
            .map_err(|e| EmbedError::Unreachable {
                url: url.clone(),
                reason: e.to_string(),
            })?;
        let mut embedder = HttpEmbedder {
            client,
            api,
            url,
            model: model.to_string(),
            api_key,
            dimension: 0,
        };
        let probe = embedder.request(&["dimension probe"])?;
        let got = probe.first().map_or(0, Vec::len);
        if let Some(expected) = expected.filter(|&e| e != got) {
            return Err(EmbedError::Dimension { expected, got });
        }
        embedder.dimension = got;
        Ok(embedder)
    }

    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = json!({ "model": self.model, "input": texts });
        let mut request = self.client.post(&self.url).json(&body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let reply = request.send().map_err(|e| EmbedError::Unreachable {
            url: self.url.clone(),
            reason: e.to_string(),
        })?;
        let status = reply.status().as_u16();
        let text = reply.text().map_err(|e| EmbedError::BadReply {
            url: self.url.clone(),
            reason: e.to_string(),
        })?;
        match status {
            200..=299 => {}
            401 | 403 => return Err(EmbedError::Unauthorized { url: self.url.clone() }),
            404 => {
                return Err(EmbedError::UnknownModel {
                    url: self.url.clone(),
                    model: self.model.clone(),
                })
            }
            _ => {
                return Err(EmbedError::Server {
                    url: self.url.clone(),
                    status,
                    body: text.chars().take(300).collect(),
                })
            }
        }
        let bad = |e: serde_json::Error| EmbedError::BadReply {
            url: self.url.clone(),
            reason: e.to_string(),
        };
        let vectors = match self.api {
            ServerApi::Ollama => serde_json::from_str::<OllamaReply>(&text).map_err(bad)?.embeddings,
            ServerApi::OpenAi => {
                let mut data = serde_json::from_str::<OpenAiReply>(&text).map_err(bad)?.data;
                data.sort_by_key(|d| d.index);
                data.into_iter().map(|d| d.embedding).collect()
            }
        };
        if vectors.len() != texts.len() {
            return Err(EmbedError::BadReply {
                url: self.url.clone(),
                reason: format!("{} vectors for {} texts", vectors.len(), texts.len()),
            });
        }
        Ok(vectors)
    }
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> String {
        format!("{}:{}", self.api.id(), self.model)
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
