//! The fan-out: the documents in scope are split over a few threads, and each thread opens (or
//! finds open) the index of each of its documents, adds its keyword statistics to the scope's,
//! and scans its int8 vectors for candidates if the question's model made them (a document
//! without them is searched by keyword only). The threads' results are merged into one.

use std::collections::HashMap;
use std::sync::Arc;

use lectern_scan::{QuantizedQuery, TopK};
use tantivy::Term;

use super::statistics::ScopeStatistics;
use crate::catalog::ScopedDocument;
use crate::engine::Engine;
use crate::index::{DocIndex, IndexError};

/// Open indexes of the documents searched, by scope position.
pub type Opened = HashMap<usize, Arc<DocIndex>>;

/// The scope, opened: what every later stage reads.
pub struct OpenScope {
    pub opened: Opened,
    /// Documents that could not be searched, by scope position.
    pub skipped: Vec<(usize, IndexError)>,
    /// The keyword statistics of the whole scope.
    pub stats: ScopeStatistics,
    /// The vector candidates, on quantised scores.
    pub pool: TopK,
    /// Documents searched by keyword only, by scope position: their index has no vectors of the
    /// question's model yet.
    pub keyword_only: Vec<usize>,
}

/// What the fan-out looks for in each document.
pub struct Wanted<'a> {
    pub terms: &'a [Term],
    pub quantized: Option<&'a QuantizedQuery>,
    /// The model that made the question's vector: only vectors of that model are scanned.
    pub embedder: Option<&'a str>,
    /// How many vector candidates to keep.
    pub pool: usize,
}

/// Opens every document of `docs` and gathers what `wanted` names, on the engine's threads.
pub fn open_scope(engine: &Engine, docs: &[ScopedDocument], wanted: &Wanted<'_>) -> OpenScope {
    let parts = fan_out(docs, engine.search_threads(), |slice, offset| {
        let mut part = OpenScope {
            opened: HashMap::with_capacity(slice.len()),
            skipped: Vec::new(),
            stats: ScopeStatistics::default(),
            pool: TopK::new(wanted.pool),
            keyword_only: Vec::new(),
        };
        for (i, doc) in slice.iter().enumerate() {
            let pos = offset + i;
            let index = match engine.open_index(doc) {
                Ok(index) => index,
                Err(e) => {
                    part.skipped.push((pos, e));
                    continue;
                }
            };
            if !wanted.terms.is_empty() {
                if let Err(e) = part.stats.add(&index.keywords, wanted.terms) {
                    part.skipped.push((pos, e));
                    continue;
                }
            }
            if let (Some(q), Some(embedder)) = (wanted.quantized, wanted.embedder) {
                match index.vectors_of(embedder) {
                    Ok(Some(block)) if block.vectors.dimension() == q.dimension() => {
                        block.vectors.scan(q, pos as u32, &mut part.pool)
                    }
                    Ok(_) => part.keyword_only.push(pos),
                    Err(e) => {
                        part.skipped.push((pos, e));
                        continue;
                    }
                }
            }
            part.opened.insert(pos, index);
        }
        part
    });
    let mut scope = OpenScope {
        opened: HashMap::new(),
        skipped: Vec::new(),
        stats: ScopeStatistics::default(),
        pool: TopK::new(wanted.pool),
        keyword_only: Vec::new(),
    };
    for part in parts {
        scope.opened.extend(part.opened);
        scope.skipped.extend(part.skipped);
        scope.stats.merge(part.stats);
        scope.pool.merge(part.pool);
        scope.keyword_only.extend(part.keyword_only);
    }
    scope
}

/// Runs `work` on contiguous slices of `items` (with the offset of each slice), one slice per
/// thread, and returns each slice's result.
pub fn fan_out<I: Sync, T: Send>(items: &[I], threads: usize, work: impl Fn(&[I], usize) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return vec![work(items, 0)];
    }
    let per = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(per)
            .enumerate()
            .map(|(i, slice)| {
                let work = &work;
                s.spawn(move || work(slice, i * per))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}
