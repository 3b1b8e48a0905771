//! Hybrid fusion: the passages of the vector and keyword lists, each once with the components of
//! both, scored by a weighted sum of the scaled cosine and the scaled BM25.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use super::merge::Ranked;
use super::Tuning;

/// The passages of both lists, each once, with the components of both.
pub fn union(vector: Vec<Ranked>, keyword: Vec<Ranked>) -> Vec<Ranked> {
    let mut merged: HashMap<(usize, String), Ranked> = HashMap::new();
    for hit in vector.into_iter().chain(keyword) {
        match merged.entry((hit.doc, hit.chunk_id.clone())) {
            Entry::Occupied(mut e) => {
                let kept = e.get_mut();
                kept.keyword = kept.keyword.or(hit.keyword);
                kept.keyword_rank = kept.keyword_rank.or(hit.keyword_rank);
                kept.vector = kept.vector.or(hit.vector);
                kept.vector_rank = kept.vector_rank.or(hit.vector_rank);
                if kept.text.is_none() {
                    kept.text = hit.text;
                    kept.context = hit.context;
                }
                kept.key = kept.key.or(hit.key);
            }
            Entry::Vacant(e) => {
                e.insert(hit);
            }
        }
    }
    merged.into_values().collect()
}

/// Hybrid fusion of passages that carry both components: the cosine scaled to [0, 1] by min-max
/// over the candidates, BM25 as a fraction of the best candidate's or `tuning.keyword_full` of
/// `bound` (the most the question's terms could score), whichever is more, so that a list of weak
/// matches of common words stays weak and a strong one counts in full; then weighted by
/// `tuning.vector_weight`. A passage missing from the keyword list counts 0 there; a passage of a
/// document that has no vectors of the question's model yet is scored by its keyword share
/// alone (no score of one model is compared with another's).
pub fn fuse(mut hits: Vec<Ranked>, bound: f32, keyword_only: &HashSet<usize>, tuning: &Tuning) -> Vec<Ranked> {
    let cos: Vec<f32> = hits.iter().filter_map(|h| h.vector).collect();
    let (cmin, cmax) = cos.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
        (lo.min(*c), hi.max(*c))
    });
    let best = hits.iter().filter_map(|h| h.keyword).fold(0.0f32, f32::max);
    let bound = best.max(tuning.keyword_full * bound);
    for hit in &mut hits {
        let v = match hit.vector {
            Some(c) if cmax > cmin => (c - cmin) / (cmax - cmin),
            Some(_) => 1.0,
            None => 0.0,
        };
        let k = match hit.keyword {
            Some(b) if bound > 0.0 => (b / bound).min(1.0),
            _ => 0.0,
        };
        hit.score = if keyword_only.contains(&hit.doc) {
            k
        } else {
            tuning.vector_weight * v + (1.0 - tuning.vector_weight) * k
        };
    }
    hits
}
