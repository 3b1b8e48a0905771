//! Lectern's embedder before ONNX Runtime, kept as the benchmark's baseline and f32 reference:
//! all-MiniLM-L6-v2 in f32 on candle, a lean BERT encoder (the query, key and value projections
//! fused into one matrix product, the attention scale folded into the queries, the fused
//! last-axis softmax), mean pooling over the attention mask, L2-normalised: what
//! sentence-transformers computes for this model.

use std::path::Path;

use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_nn::{embedding, layer_norm, linear, Embedding, LayerNorm, Linear, VarBuilder};
use candle_transformers::models::bert::Config;
use lectern::embed::in_length_batches;
use tokenizers::Tokenizer;

/// Texts embedded in one forward pass.
const BATCH: usize = 16;

/// all-MiniLM-L6-v2 in f32 on candle.
pub struct CandleMiniLm {
    model: Bert,
    tokenizer: Tokenizer,
}

impl CandleMiniLm {
    /// Loads `model.safetensors` and `config.json` from `dir`; `tokenizer` is Lectern's, set for batches.
    pub fn load(dir: &Path, tokenizer: Tokenizer) -> anyhow::Result<CandleMiniLm> {
        let config: Config = serde_json::from_str(&std::fs::read_to_string(dir.join("config.json"))?)?;
        // SAFETY: the weights file is memory-mapped read-only and nothing writes to it meanwhile.
        let vb =
            unsafe { VarBuilder::from_mmaped_safetensors(&[dir.join("model.safetensors")], DType::F32, &Device::Cpu) }?;
        Ok(CandleMiniLm {
            model: Bert::load(vb, &config)?,
            tokenizer,
        })
    }

    /// One vector per text, in order, batches sorted by length as Lectern's embedder sorts them.
    pub fn embed(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
        in_length_batches(texts, BATCH, 1, |_, batch| self.embed_batch(batch))
    }

    fn embed_batch(&self, texts: &[&str]) -> anyhow::Result<Vec<Vec<f32>>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| anyhow::anyhow!("tokenizer: {e}"))?;
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

/// The encoder of a BERT model, without pooler.
struct Bert {
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_size: usize,
}

struct Layer {
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

impl Bert {
    /// Loads the weights (`embeddings.*`, `encoder.layer.N.*`) from `vb`.
    fn load(vb: VarBuilder, config: &Config) -> Result<Bert> {
        let hidden = config.hidden_size;
        let heads = config.num_attention_heads;
        let e = vb.pp("embeddings");
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let attention = l.pp("attention");
            let head_size = hidden / heads;
            let scale = 1.0 / (head_size as f64).sqrt();
            let part = |name: &str, scale: f64| -> Result<(Tensor, Tensor)> {
                let p = attention.pp("self").pp(name);
                Ok((
                    (p.get((hidden, hidden), "weight")? * scale)?,
                    (p.get(hidden, "bias")? * scale)?,
                ))
            };
            let (qw, qb) = part("query", scale)?;
            let (kw, kb) = part("key", 1.0)?;
            let (vw, vb_) = part("value", 1.0)?;
            layers.push(Layer {
                qkv: Linear::new(Tensor::cat(&[qw, kw, vw], 0)?, Some(Tensor::cat(&[qb, kb, vb_], 0)?)),
                attention_out: linear(hidden, hidden, attention.pp("output.dense"))?,
                attention_norm: layer_norm(hidden, config.layer_norm_eps, attention.pp("output.LayerNorm"))?,
                intermediate: linear(hidden, config.intermediate_size, l.pp("intermediate.dense"))?,
                output: linear(config.intermediate_size, hidden, l.pp("output.dense"))?,
                output_norm: layer_norm(hidden, config.layer_norm_eps, l.pp("output.LayerNorm"))?,
            });
        }
        Ok(Bert {
            words: embedding(config.vocab_size, hidden, e.pp("word_embeddings"))?,
            positions: embedding(config.max_position_embeddings, hidden, e.pp("position_embeddings"))?,
            token_types: embedding(config.type_vocab_size, hidden, e.pp("token_type_embeddings"))?,
            embeddings_norm: layer_norm(hidden, config.layer_norm_eps, e.pp("LayerNorm"))?,
            layers,
            heads,
            head_size: hidden / heads,
        })
    }

    /// Hidden states `(batch, seq, hidden)` for token ids and a 0/1 attention mask `(batch, seq)`.
    fn forward(&self, ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (batch, seq) = ids.dims2()?;
        let positions = Tensor::arange(0u32, seq as u32, ids.device())?;
        let types = ids.zeros_like()?;
        let x = self
            .words
            .forward(ids)?
            .add(&self.token_types.forward(&types)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?;
        let mut x = self.embeddings_norm.forward(&x)?;
        // 0 where attended, a large negative number at padding: (batch, 1, 1, seq).
        let bias = ((mask.to_dtype(DType::F32)? - 1.0)? * 1e9)?.reshape((batch, 1, 1, seq))?;
        for layer in &self.layers {
            x = self.layer(layer, &x, &bias, batch, seq)?;
        }
        Ok(x)
    }

    fn layer(&self, layer: &Layer, x: &Tensor, bias: &Tensor, batch: usize, seq: usize) -> Result<Tensor> {
        let (heads, size) = (self.heads, self.head_size);
        let qkv = layer.qkv.forward(x)?.reshape((batch, seq, 3, heads, size))?;
        let split = |i: usize| qkv.narrow(2, i, 1)?.squeeze(2)?.transpose(1, 2)?.contiguous();
        let (q, k, v) = (split(0)?, split(1)?, split(2)?);
        let scores = q.matmul(&k.t()?)?.broadcast_add(bias)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = probs
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((batch, seq, heads * size))?;
        let attended = layer
            .attention_norm
            .forward(&(layer.attention_out.forward(&context)? + x)?)?;
        let hidden = layer.intermediate.forward(&attended)?.gelu_erf()?;
        layer
            .output_norm
            .forward(&(layer.output.forward(&hidden)? + &attended)?)
    }
}

/// Mean of the hidden states over the attended tokens, L2-normalised: one vector per text.
fn mean_pool_normalised(hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
    let counts = mask.sum(1)?.clamp(1e-9, f64::MAX)?;
    let mean = summed.broadcast_div(&counts)?;
    let norm = mean.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?.clamp(1e-12, f64::MAX)?;
    mean.broadcast_div(&norm)
}
