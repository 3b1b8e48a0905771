//! The models indexing and search use, each loaded on first use (folder and document commands
//! never need them): the chunker, which counts with MiniLM's tokenizer and is all reading a PDF
//! needs, the embedder, which only embedding and vector search need, and the second stage's
//! model, which only searches that ask for it need.

use std::sync::Arc;

use super::{lock, Engine};
use crate::chunk::Chunker;
use crate::config::EmbedderConfig;
use crate::embed::{
    http_identity, minilm_identity, tokenizer_for_batches, EmbedError, Embedder, GgufEmbedder, HttpEmbedder, MiniLm,
    Parallelism, MINILM_DIR,
};
use crate::error::Error;
use crate::models::{known, ModelStore, NOMIC};

impl Engine {
    /// The chunker, loaded on first use. Chunks are counted in MiniLM tokens whichever model
    /// embeds them.
    pub fn chunker(&self) -> Result<Arc<Chunker>, Error> {
        let mut slot = lock(&self.chunker);
        if let Some(chunker) = slot.as_ref() {
            return Ok(chunker.clone());
        }
        let config = self.config();
        let minilm_dir = config.models_dir.join(MINILM_DIR);
        let tokenizer_path = minilm_dir.join("tokenizer.json");
        if !tokenizer_path.is_file() {
            return Err(EmbedError::ModelMissing {
                dir: minilm_dir,
                file: "tokenizer.json".into(),
            }
            .into());
        }
        let chunker = Arc::new(Chunker::new(tokenizer_for_batches(&tokenizer_path)?, config.chunker));
        *slot = Some(chunker.clone());
        Ok(chunker)
    }

    /// The embedder, loaded on first use.
    pub fn embedder(&self) -> Result<Arc<dyn Embedder>, Error> {
        let mut slot = lock(&self.embedder);
        if let Some(embedder) = slot.as_ref() {
            return Ok(embedder.clone());
        }
        let config = self.config();
        let embedder: Arc<dyn Embedder> = match &config.embedder {
            EmbedderConfig::MiniLm(precision) => Arc::new(MiniLm::load(
                &config.models_dir.join(MINILM_DIR),
                Parallelism::whole_machine(),
                *precision,
            )?),
            EmbedderConfig::Http {
                api,
                url,
                model,
                api_key,
            } => Arc::new(HttpEmbedder::connect(*api, url, model, api_key.clone(), None)?),
        };
        *slot = Some(embedder.clone());
        Ok(embedder)
    }

    /// The identity of the library's embedder ([`Embedder::id`]), known without loading it.
    pub fn embedder_id(&self) -> Result<String, Error> {
        if let Some(embedder) = lock(&self.embedder).as_ref() {
            return Ok(embedder.id());
        }
        let mut known = lock(&self.embedder_id);
        if let Some(id) = known.as_ref() {
            return Ok(id.clone());
        }
        let config = self.config();
        let id = match &config.embedder {
            EmbedderConfig::MiniLm(precision) => minilm_identity(&config.models_dir.join(MINILM_DIR), *precision)?,
            EmbedderConfig::Http { api, model, .. } => http_identity(*api, model),
        };
        *known = Some(id.clone());
        Ok(id)
    }

    /// The second stage's model if it is installed, loaded on first use and kept. One that does
    /// not load is said once on standard error, and searches go on without it.
    pub fn second_stage_model(&self) -> Option<Arc<GgufEmbedder>> {
        let mut slot = lock(&self.second_stage);
        if let Some(loaded) = slot.as_ref() {
            return loaded.clone();
        }
        let store = ModelStore::new(&self.config().models_dir);
        let model = known(NOMIC)?;
        if !store.is_installed(model) {
            return None;
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let loaded = match GgufEmbedder::load(&store.file_path(model, &model.files[0]), threads) {
            Ok(loaded) => Some(Arc::new(loaded)),
            Err(e) => {
                eprintln!("lectern: searching without a second stage: {e}");
                None
            }
        };
        *slot = Some(loaded.clone());
        loaded
    }

    /// Drops the second stage's model (its file is about to go, or has just come).
    pub fn forget_second_stage_model(&self) {
        *lock(&self.second_stage) = None;
    }

    /// Embeds a question with the library's embedder (a search scales it to unit length).
    /// Blocking: call it off the async threads.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, Error> {
        let embedder = self.embedder()?;
        let vector = embedder.embed(&[text])?.pop();
        Ok(vector.ok_or(EmbedError::Dimension {
            expected: embedder.dimension(),
            got: 0,
        })?)
    }
}
