//! The vector list: the int8 scan's candidates (gathered while the scope is opened,
//! `fan_out.rs`) rescored exactly from the vector block, and the exact cosine of passages that
//! only the keyword list found.

use std::collections::HashMap;

use lectern_scan::{dot_f32, TopK};

use super::fan_out::Opened;
use super::merge::{ranked, top_of, Ranked};
use crate::index::{block::RowMeta, DocIndex, IndexError, Located};

/// Exact cosine scores of the quantised scan's candidates; the best `depth` of them.
pub fn vector_list(
    opened: &Opened,
    pool: TopK,
    query: &[f32],
    depth: usize,
    skipped: &mut Vec<(usize, IndexError)>,
) -> Vec<Ranked> {
    let mut by_doc: HashMap<usize, Vec<u32>> = HashMap::new();
    for c in pool.into_sorted() {
        by_doc.entry(c.block as usize).or_default().push(c.row);
    }
    let mut list = Vec::new();
    for (pos, rows) in by_doc {
        let Some(index) = opened.get(&pos) else { continue };
        match exact_scores(index, &rows, query) {
            Ok(Some(scores)) => {
                for (meta, score) in scores {
                    list.push(ranked(pos, located(&meta), None, score));
                }
            }
            Ok(None) => skipped.push((pos, index.changed())),
            Err(e) => skipped.push((pos, e)),
        }
    }
    top_of(list, depth, |r, rank| {
        r.vector = Some(r.score);
        r.vector_rank = Some(rank);
    })
}

/// Computes the exact cosine of every passage that lacks one, where the question's model
/// (`embedder`) made the document's vectors.
pub fn fill_vector_scores(hits: &mut [Ranked], opened: &Opened, query: &[f32], embedder: &str) {
    let mut wanted: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, hit) in hits.iter().enumerate() {
        if hit.vector.is_none() {
            wanted.entry(hit.doc).or_default().push(i);
        }
    }
    for (doc, want) in wanted {
        let Some(index) = opened
            .get(&doc)
            .filter(|i| matches!(i.vectors_of(embedder), Ok(Some(_))))
        else {
            continue;
        };
        let Ok(Some(meta)) = index.read_meta() else {
            continue;
        };
        let rows: Vec<(usize, u32)> = want
            .into_iter()
            .filter_map(|i| {
                let h = &hits[i];
                meta.iter()
                    .position(|m| m.chunk_id() == h.chunk_id && m.page == h.page && m.char_start == h.char_start)
                    .map(|row| (i, row as u32))
            })
            .collect();
        let ids: Vec<u32> = rows.iter().map(|(_, r)| *r).collect();
        if let Ok(Some(scores)) = exact_scores(index, &ids, query) {
            for ((i, _), (_, score)) in rows.iter().zip(scores) {
                hits[*i].vector = Some(score);
            }
        }
    }
}

/// The positions and exact cosine scores of `rows`; `None` if the index changed since it was
/// opened.
fn exact_scores(index: &DocIndex, rows: &[u32], query: &[f32]) -> Result<Option<Vec<(RowMeta, f32)>>, IndexError> {
    Ok(index
        .read_exact(rows)?
        .map(|found| found.into_iter().map(|(meta, v)| (meta, dot_f32(query, &v))).collect()))
}

fn located(meta: &RowMeta) -> Located {
    Located {
        chunk_id: meta.chunk_id().to_string(),
        page: meta.page,
        char_start: meta.char_start,
        char_end: meta.char_end,
    }
}
