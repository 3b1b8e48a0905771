//! all-MiniLM-L6-v2 run in-process with candle (`bert.rs`): BERT, mean pooling over the attention mask,
//! L2-normalised 384-dimensional vectors (what sentence-transformers computes for this model).

use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::bert::{mean_pool_normalised, Bert};
use super::{EmbedError, Embedder};

/// The model's maximum input, in tokens, as its sentence-transformers config says.
pub const MAX_SEQUENCE: usize = 256;
/// Texts embedded in one forward pass.
const BATCH: usize = 16;

/// The in-process MiniLM embedder.
pub struct MiniLm {
    model: Bert,
    tokenizer: Tokenizer,
    dimension: usize,
}

impl MiniLm {
    /// Loads the model from `dir` (model.safetensors, config.json, tokenizer.json).
    pub fn load(dir: &Path) -> Result<MiniLm, EmbedError> {
        let file = |name: &str| -> Result<PathBuf, EmbedError> {
            let path = dir.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(EmbedError::ModelMissing {
                    dir: dir.to_path_buf(),
                    file: name.to_string(),
                })
            }
        };
        let broken = |reason: String| EmbedError::ModelBroken {
            dir: dir.to_path_buf(),
            reason,
        };
        let config_text = std::fs::read_to_string(file("config.json")?).map_err(|e| broken(e.to_string()))?;
        let config: Config = serde_json::from_str(&config_text).map_err(|e| broken(e.to_string()))?;
        let dimension = config.hidden_size;
        let weights = file("model.safetensors")?;
        // SAFETY: the weights file is memory-mapped read-only; Lectern never writes to it while
        // it is loaded (the setup replaces it only by renaming a new file into place).
        let vb = unsafe { VarBuilder::from_mmaped_safetensors(&[weights], DType::F32, &Device::Cpu) }
            .map_err(|e| broken(e.to_string()))?;
        let model = Bert::load(vb, &config).map_err(|e| broken(e.to_string()))?;
        let tokenizer = tokenizer_for_batches(&file("tokenizer.json")?)?;
        Ok(MiniLm {
            model,
            tokenizer,
            dimension,
        })
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        let rows = encodings.len();
        let len = encodings.first().map_or(0, |e| e.len());
        let mut ids = Vec::with_capacity(rows * len);
        let mut mask = Vec::with_capacity(rows * len);
        for e in &encodings {
            ids.extend(e.get_ids().iter().copied());
            mask.extend(e.get_attention_mask().iter().copied());
        }
        let ids = Tensor::from_vec(ids, (rows, len), &Device::Cpu)?;
        let mask = Tensor::from_vec(mask, (rows, len), &Device::Cpu)?;
        let hidden = self.model.forward(&ids, &mask)?;
        Ok(mean_pool_normalised(&hidden, &mask)?.to_vec2::<f32>()?)
    }
}

/// all-MiniLM-L6-v2's relevance floor; see ARCHITECTURE.md ("Relevance floor") for how it was
/// measured.
pub const RELEVANCE_FLOOR: f32 = 0.28;

impl Embedder for MiniLm {
    fn id(&self) -> String {
        "all-MiniLM-L6-v2".to_string()
    }

    fn relevance_floor(&self) -> Option<f32> {
        Some(RELEVANCE_FLOOR)
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Sort by length so that each batch pads little, then restore the caller's order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let batch_texts: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            for (&i, vector) in batch.iter().zip(self.embed_batch(&batch_texts)?) {
                out[i] = vector;
            }
        }
        Ok(out)
    }
}

/// The model's tokenizer, set to pad each batch to its longest text and cut at 256 tokens.
pub fn tokenizer_for_batches(path: &Path) -> Result<Tokenizer, EmbedError> {
    let mut tokenizer = Tokenizer::from_file(path).map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        ..Default::default()
    }));
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: MAX_SEQUENCE,
            ..Default::default()
        }))
        .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
    Ok(tokenizer)
}
