//! The second stage of a search: the first stage's best [`CANDIDATES`] pages scored again by a
//! stronger embedding model (nomic-embed-text-v1.5, run by llama.cpp) at question time. A page's
//! new score is a weighted sum of its first-stage score and the model's cosine, each scaled to
//! the range the candidates span; the pages after the candidates keep their order below them.
//! A search asks for it (`lectern search --second-stage`, `/v1/search`); answers do not, as on
//! realqa it found the gold page a little more often but did not make answers better, and it
//! costs about three seconds (docs/figures.md).

use super::question::search_text;
use super::Hit;
use crate::embed::{EmbedError, GgufEmbedder, DOCUMENT_PREFIX, QUERY_PREFIX};

/// How many of the first stage's pages are scored again: the gold page is among the first 15
/// far more often than among the first 5, and every page costs time. On realqa, 15 found as
/// many gold pages in the first five as 20 and 30 did, in three quarters of 20's time
/// (`docs/figures.md`).
pub const CANDIDATES: usize = 15;

/// The share of the model's cosine in the new score.
const WEIGHT: f32 = 0.5;

/// Reorders the first [`CANDIDATES`] of `hits` (best first) for `question`, and records each
/// one's cosine in its components.
pub fn rerank(model: &GgufEmbedder, question: &str, hits: &mut [Hit]) -> Result<(), EmbedError> {
    let n = hits.len().min(CANDIDATES);
    if n < 2 {
        return Ok(());
    }
    let mut texts = Vec::with_capacity(n + 1);
    texts.push(format!("{QUERY_PREFIX}{}", search_text(question)));
    texts.extend(hits[..n].iter().map(|h| format!("{DOCUMENT_PREFIX}{}", h.text)));
    let vectors = model.embed(&texts)?;
    let (query, pages) = vectors.split_first().ok_or(EmbedError::Dimension {
        expected: model.dimension(),
        got: 0,
    })?;
    let cosines: Vec<f32> = pages
        .iter()
        .map(|v| v.iter().zip(query).map(|(a, b)| a * b).sum())
        .collect();
    let firsts: Vec<f32> = hits[..n].iter().map(|h| h.score).collect();
    let (first, second) = (Span::of(&firsts), Span::of(&cosines));
    for (hit, cosine) in hits[..n].iter_mut().zip(&cosines) {
        hit.components.second_stage = Some(*cosine);
        hit.score = (1.0 - WEIGHT) * first.scale(hit.score) + WEIGHT * second.scale(*cosine);
    }
    hits[..n].sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.chunk_id.cmp(&b.chunk_id)));
    // The pages below the candidates stay below them, whatever their first-stage score was.
    let floor = hits[n - 1].score;
    for hit in &mut hits[n..] {
        hit.score = hit.score.min(floor);
    }
    Ok(())
}

/// The range a list of scores spans, to scale them to 0..1.
struct Span {
    low: f32,
    width: f32,
}

impl Span {
    fn of(scores: &[f32]) -> Span {
        let low = scores.iter().copied().fold(f32::INFINITY, f32::min);
        let high = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        Span {
            low,
            width: (high - low).max(1e-6),
        }
    }

    fn scale(&self, score: f32) -> f32 {
        (score - self.low) / self.width
    }
}
