//! all-MiniLM-L6-v2 run in-process by ONNX Runtime (`runtime.rs`): the graph of the model's int8
//! export, its products at int8 or with its f32 weights (`int8.rs`), mean pooling over the attention mask and L2 normalisation, which
//! is what sentence-transformers computes for this model. The graph is prepared before it loads
//! (`graph.rs`). Sessions side by side, each on its own threads: a session runs one batch at a
//! time.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::{graph, int8, runtime, EmbedError, Embedder, Precision};

/// The model's maximum input, in tokens, as its sentence-transformers config says.
pub const MAX_SEQUENCE: usize = 256;
/// Texts embedded in one run of the model at f32: as fast as 16 here, with a quarter of the
/// activations (the attention scores of 256-token texts are 3 MB per text and layer).
const BATCH: usize = 4;
/// The int8 ONNX export of the model, for its graph.
pub const MODEL_FILE: &str = "model.onnx";
/// The model's f32 weights, which replace the export's int8 ones at f32.
pub const ORIGINALS_FILE: &str = "model.safetensors";
/// The tokenizer, which the chunker counts with too.
pub const TOKENIZER_FILE: &str = "tokenizer.json";

/// The in-process MiniLM embedder.
pub struct MiniLm {
    sessions: Vec<Mutex<Session>>,
    tokenizer: Tokenizer,
    dimension: usize,
    id: String,
    /// Texts embedded in one run of the model.
    batch: usize,
}

/// How the model's output becomes a text's vector; part of the model's identity.
const POOLING: &str = "mean over the attention mask, L2-normalised, 256 tokens";

/// The identity of the model in `dir` run at `precision` (see [`Embedder::id`]): its name, the
/// precision and a hash of its graph, weights and pooling. Reads the model's files, without
/// loading it.
pub fn identity(dir: &Path, precision: Precision) -> Result<String, EmbedError> {
    let files = ModelFiles::read(dir)?;
    Ok(files.identity(precision))
}

/// The model's files, read.
struct ModelFiles {
    exported: Vec<u8>,
    originals: Vec<u8>,
}

impl ModelFiles {
    fn read(dir: &Path) -> Result<ModelFiles, EmbedError> {
        let read = |file: &str| {
            std::fs::read(installed(dir, file)?).map_err(|e| EmbedError::ModelBroken {
                dir: dir.to_path_buf(),
                reason: format!("{file}: {e}"),
            })
        };
        Ok(ModelFiles {
            exported: read(MODEL_FILE)?,
            originals: read(ORIGINALS_FILE)?,
        })
    }

    fn identity(&self, precision: Precision) -> String {
        use sha2::{Digest, Sha256};
        let mut hash = Sha256::new()
            .chain_update(&self.exported)
            .chain_update(&self.originals)
            .chain_update(POOLING);
        if precision == Precision::Int8 {
            hash.update(int8::RECIPE);
        }
        let hash = hash.finalize();
        let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
        format!("all-MiniLM-L6-v2/{precision}/{hex}")
    }
}

/// How the model runs: sessions side by side, threads for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parallelism {
    /// Batches run at once.
    pub sessions: usize,
    /// Threads each session's matrix products use.
    pub threads: usize,
}

impl Parallelism {
    /// One session on every core of the machine, with one copy of the weights and one arena: at
    /// f32 as fast as a session per core (the benchmark's layouts); at int8 a session per core
    /// was 1.36x faster but took indexing's peak memory from 464 to 609 MiB (docs/figures.md).
    pub fn whole_machine() -> Parallelism {
        Parallelism {
            sessions: 1,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

impl MiniLm {
    /// Loads the model from `dir` (`model.onnx`, `model.safetensors`, `tokenizer.json`, and the
    /// ONNX Runtime library that runs it), to run at `precision`.
    pub fn load(dir: &Path, parallelism: Parallelism, precision: Precision) -> Result<MiniLm, EmbedError> {
        let environment = runtime::environment(dir)?;
        let broken = |reason: String| EmbedError::ModelBroken {
            dir: dir.to_path_buf(),
            reason,
        };
        let files = ModelFiles::read(dir)?;
        let id = files.identity(precision);
        let model = graph::prepare(&files.exported, &files.originals, precision).map_err(|e| broken(e.to_string()))?;
        drop(files);
        let sessions = (0..parallelism.sessions.max(1))
            .map(|_| {
                let session = Session::builder(&environment)
                    .and_then(|b| Ok(b.with_optimization_level(GraphOptimizationLevel::Level3)?))
                    .and_then(|b| Ok(b.with_intra_threads(parallelism.threads.max(1))?))
                    .and_then(|b| Ok(b.with_inter_threads(1)?))
                    .and_then(|b| Ok(b.with_intra_op_spinning(false)?))
                    // Planning memory per input shape keeps a plan for every batch length: a
                    // long document's batches took 2 GB that way.
                    .and_then(|b| Ok(b.with_memory_pattern(false)?))
                    .and_then(|mut b| b.commit_from_memory(&model))
                    .map_err(|e| broken(e.to_string()))?;
                Ok(Mutex::new(session))
            })
            .collect::<Result<Vec<_>, EmbedError>>()?;
        let dimension = hidden_size(&sessions[0])
            .ok_or_else(|| broken("its output is not last_hidden_state of (batch, sequence, hidden) floats".into()))?;
        let tokenizer = tokenizer_for_batches(&installed(dir, TOKENIZER_FILE)?)?;
        Ok(MiniLm {
            sessions,
            tokenizer,
            dimension,
            id,
            batch: match precision {
                Precision::F32 => BATCH,
                // One text a run: a batch's quantisation scale would be its companions' and its
                // padding's too, and a text's vector should not depend on them (int8.rs).
                Precision::Int8 => 1,
            },
        })
    }

    /// A session no other thread is running, the lane's own first, else the lane's own, waited
    /// for (two documents embedded at once share the sessions).
    fn session(&self, lane: usize) -> MutexGuard<'_, Session> {
        let n = self.sessions.len();
        (0..n)
            .find_map(|k| self.sessions[(lane + k) % n].try_lock().ok())
            .unwrap_or_else(|| self.sessions[lane % n].lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn embed_batch(&self, lane: usize, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        let rows = encodings.len();
        let len = encodings.first().map_or(0, |e| e.len());
        let mut ids = Vec::with_capacity(rows * len);
        let mut mask = Vec::with_capacity(rows * len);
        for e in &encodings {
            ids.extend(e.get_ids().iter().map(|&id| i64::from(id)));
            mask.extend(e.get_attention_mask().iter().map(|&m| i64::from(m)));
        }
        let shape = [rows as i64, len as i64];
        let tensor = |values: Vec<i64>| Tensor::from_array((shape, values)).map_err(runtime_error);
        let inputs = ort::inputs! {
            "input_ids" => tensor(ids)?,
            "attention_mask" => tensor(mask.clone())?,
            "token_type_ids" => tensor(vec![0; rows * len])?,
        };
        let mut session = self.session(lane);
        let outputs = session.run(inputs).map_err(runtime_error)?;
        let (_, hidden) = outputs["last_hidden_state"]
            .try_extract_tensor::<f32>()
            .map_err(runtime_error)?;
        if hidden.len() != rows * len * self.dimension {
            return Err(EmbedError::Dimension {
                expected: rows * len * self.dimension,
                got: hidden.len(),
            });
        }
        Ok(hidden
            .chunks(len * self.dimension)
            .zip(mask.chunks(len))
            .map(|(states, mask)| mean_pool_normalised(states, mask, self.dimension))
            .collect())
    }
}

/// The path of `file` in `dir`, if it is there.
fn installed(dir: &Path, file: &str) -> Result<PathBuf, EmbedError> {
    let path = dir.join(file);
    if path.is_file() {
        Ok(path)
    } else {
        Err(EmbedError::ModelMissing {
            dir: dir.to_path_buf(),
            file: file.to_string(),
        })
    }
}

/// The width of the model's `last_hidden_state`, from the graph.
fn hidden_size(session: &Mutex<Session>) -> Option<usize> {
    let session = session.lock().unwrap_or_else(PoisonError::into_inner);
    let output = session.outputs().iter().find(|o| o.name() == "last_hidden_state")?;
    let shape = output.dtype().tensor_shape()?;
    match shape.len() {
        3 if shape[2] > 0 => Some(shape[2] as usize),
        _ => None,
    }
}

fn runtime_error(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Runtime(e.to_string())
}

/// The mean of the attended tokens' hidden states (`states`: sequence × dimension), scaled to
/// unit length: one text's vector.
fn mean_pool_normalised(states: &[f32], mask: &[i64], dimension: usize) -> Vec<f32> {
    let mut sum = vec![0f32; dimension];
    let mut count = 0f32;
    for (token, _) in states.chunks(dimension).zip(mask).filter(|(_, &m)| m != 0) {
        for (s, v) in sum.iter_mut().zip(token) {
            *s += v;
        }
        count += 1.0;
    }
    let mean: Vec<f32> = sum.iter().map(|s| s / count.max(1e-9)).collect();
    let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
    mean.iter().map(|v| v / norm).collect()
}

/// all-MiniLM-L6-v2's relevance floor; see docs/figures.md ("The relevance floor") for how it was
/// measured.
pub const RELEVANCE_FLOOR: f32 = 0.28;

impl Embedder for MiniLm {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn relevance_floor(&self) -> Option<f32> {
        Some(RELEVANCE_FLOOR)
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        in_length_batches(texts, self.batch, self.sessions.len(), |lane, batch| {
            self.embed_batch(lane, batch)
        })
    }
}

/// Embeds `texts` in batches of `size` texts of like length, so that each batch pads little,
/// `lanes` batches at once (`embed` is told its lane), and returns their vectors in the caller's
/// order.
pub fn in_length_batches<E: Send>(
    texts: &[&str],
    size: usize,
    lanes: usize,
    embed: impl Fn(usize, &[&str]) -> Result<Vec<Vec<f32>>, E> + Sync,
) -> Result<Vec<Vec<f32>>, E> {
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| texts[i].len());
    let batches: Vec<&[usize]> = order.chunks(size.max(1)).collect();
    let next = AtomicUsize::new(0);
    // Each lane's vectors, with the position of their text.
    type Placed = Vec<(usize, Vec<f32>)>;
    let lane = |lane: usize| -> Result<Placed, E> {
        let mut done = Vec::new();
        while let Some(batch) = batches.get(next.fetch_add(1, Ordering::Relaxed)) {
            let batch_texts: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            done.extend(batch.iter().copied().zip(embed(lane, &batch_texts)?));
        }
        Ok(done)
    };
    let lanes = lanes.clamp(1, batches.len().max(1));
    let done: Vec<Result<Placed, E>> = if lanes == 1 {
        vec![lane(0)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..lanes).map(|i| s.spawn(move || lane(i))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        })
    };
    let mut out = vec![Vec::new(); texts.len()];
    for part in done {
        for (i, vector) in part? {
            out[i] = vector;
        }
    }
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooling_averages_only_attended_tokens_and_scales_to_unit_length() {
        let states = [3.0, 0.0, 5.0, 6.0, 100.0, 100.0];
        let vector = mean_pool_normalised(&states, &[1, 1, 0], 2);
        assert!(
            (vector[0] - 0.8).abs() < 1e-6 && (vector[1] - 0.6).abs() < 1e-6,
            "{vector:?}"
        );
    }
}
