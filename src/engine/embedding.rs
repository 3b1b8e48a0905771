//! The embedding side of the models, loaded on first use (folder and document commands never need
//! it): the embedder, and the chunker that counts with MiniLM's tokenizer.

use std::sync::Arc;

use super::{lock, Engine};
use crate::chunk::Chunker;
use crate::config::EmbedderConfig;
use crate::embed::{tokenizer_for_batches, EmbedError, Embedder, HttpEmbedder, MiniLm, Parallelism, MINILM_DIR};
use crate::error::Error;

/// The loaded models: the embedder and the chunker counting with the model's tokenizer.
pub struct Models {
    pub embedder: Box<dyn Embedder>,
    pub chunker: Chunker,
}

impl Engine {
    /// The models, loaded on first use.
    pub fn models(&self) -> Result<Arc<Models>, Error> {
        let mut slot = lock(&self.models);
        if let Some(models) = slot.as_ref() {
            return Ok(models.clone());
        }
        let config = self.config();
        let minilm_dir = config.models_dir.join(MINILM_DIR);
        // Chunks are counted in MiniLM tokens whichever model embeds them.
        let tokenizer_path = minilm_dir.join("tokenizer.json");
        if !tokenizer_path.is_file() {
            return Err(EmbedError::ModelMissing {
                dir: minilm_dir,
                file: "tokenizer.json".into(),
            }
            .into());
        }
        let tokenizer = tokenizer_for_batches(&tokenizer_path)?;
        let embedder: Box<dyn Embedder> = match &config.embedder {
            EmbedderConfig::MiniLm => Box::new(MiniLm::load(&minilm_dir, Parallelism::for_workers(config.workers))?),
            EmbedderConfig::Http {
                api,
                url,
                model,
                api_key,
            } => Box::new(HttpEmbedder::connect(*api, url, model, api_key.clone(), None)?),
        };
        let models = Arc::new(Models {
            embedder,
            chunker: Chunker::new(tokenizer, config.chunker),
        });
        *slot = Some(models.clone());
        Ok(models)
    }

    /// Embeds a question with the library's embedder (a search scales it to unit length).
    /// Blocking: call it off the async threads.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, Error> {
        let models = self.models()?;
        let vector = models.embedder.embed(&[text])?.pop();
        Ok(vector.ok_or(EmbedError::Dimension {
            expected: models.embedder.dimension(),
            got: 0,
        })?)
    }
}
