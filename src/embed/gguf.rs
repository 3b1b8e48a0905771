//! A GGUF embedding model run in-process by llama.cpp, mean-pooled, each text cut at
//! [`MAX_TOKENS`]: the second stage of a search (nomic-embed-text-v1.5), larger and slower than
//! the index's MiniLM, so it embeds only the question and the first stage's best pages.

use std::num::NonZeroU32;
use std::path::Path;

use llama_cpp_2::context::params::{LlamaContextParams, LlamaPoolingType};
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;

use super::EmbedError;
use crate::llm::runtime::backend;

/// The most tokens of one text the model reads: a passage is at most about 300 MiniLM tokens,
/// and the question far less.
pub const MAX_TOKENS: usize = 320;

/// The task prefixes nomic-embed-text was trained with: a question, or a text it may be asked of.
pub const QUERY_PREFIX: &str = "search_query: ";
pub const DOCUMENT_PREFIX: &str = "search_document: ";

/// Tokens read per llama.cpp call: whole texts, several at a time.
const BATCH_TOKENS: usize = 2048;

/// A GGUF embedding model loaded in this process.
pub struct GgufEmbedder {
    model: LlamaModel,
    threads: i32,
}

impl GgufEmbedder {
    /// Loads the GGUF file at `path`; embedding uses `threads` threads.
    pub fn load(path: &Path, threads: usize) -> Result<GgufEmbedder, EmbedError> {
        let load = |reason: String| EmbedError::ModelBroken {
            dir: path.to_path_buf(),
            reason,
        };
        if !path.is_file() {
            return Err(load("the file is not there".into()));
        }
        let backend = backend().map_err(|e| load(e.to_string()))?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| load(format!("{e} (is it a GGUF file?)")))?;
        Ok(GgufEmbedder {
            model,
            threads: threads.clamp(1, 64) as i32,
        })
    }

    /// The length of its vectors.
    pub fn dimension(&self) -> usize {
        self.model.n_embd().max(0) as usize
    }

    /// The unit-length embeddings of `texts`, in order.
    pub fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let runtime = |what: &str, e: &dyn std::fmt::Display| EmbedError::Runtime(format!("{what}: {e}"));
        let vocab = self.model.vocab();
        let tokenized: Vec<_> = texts
            .iter()
            .map(|t| {
                let mut tokens = vocab.tokenize(t.as_bytes(), true, false);
                if tokens.len() > MAX_TOKENS {
                    // Keep the closing separator the tokenizer added.
                    let last = tokens[tokens.len() - 1];
                    tokens.truncate(MAX_TOKENS - 1);
                    tokens.push(last);
                }
                tokens
            })
            .collect();
        let sequences = (BATCH_TOKENS / 16) as u32;
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(BATCH_TOKENS as u32))
            .with_n_batch(BATCH_TOKENS as u32)
            .with_n_ubatch(BATCH_TOKENS as u32)
            .with_n_seq_max(sequences)
            .with_embeddings(true)
            .with_pooling_type(LlamaPoolingType::Mean)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        let mut ctx = self
            .model
            .new_context(backend().map_err(|e| EmbedError::Runtime(e.to_string()))?, params)
            .map_err(|e| runtime("could not make a context", &e))?;
        let mut out = Vec::with_capacity(texts.len());
        let mut batch = LlamaBatch::new(BATCH_TOKENS, sequences as i32);
        let mut start = 0;
        while start < tokenized.len() {
            batch.clear();
            let (mut used, mut end) = (0, start);
            while end < tokenized.len()
                && used + tokenized[end].len() <= BATCH_TOKENS
                && end - start < sequences as usize
            {
                batch
                    .add_sequence(&tokenized[end], (end - start) as i32, true)
                    .map_err(|e| runtime("a batch of texts", &e))?;
                used += tokenized[end].len();
                end += 1;
            }
            ctx.clear_kv_cache();
            ctx.decode(&mut batch).map_err(|e| runtime("embedding", &e))?;
            for seq in 0..(end - start) {
                let mut vector = ctx
                    .embeddings_seq_ith(seq as i32)
                    .map_err(|e| runtime("reading an embedding", &e))?
                    .to_vec();
                let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
                if norm > 0.0 {
                    vector.iter_mut().for_each(|x| *x /= norm);
                }
                out.push(vector);
            }
            start = end;
        }
        Ok(out)
    }
}
