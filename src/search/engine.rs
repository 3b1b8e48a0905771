//! The fan-out: every document in scope is searched on a few threads (per-document collect),
//! then the per-thread results are merged (vector candidates rescored exactly, keyword hits
//! scored with scope-wide statistics) and fused into one ranked list.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use lectern_scan::{dot_f32, QuantizedQuery, TopK};
use tantivy::{DocAddress, Term};
use tokio::runtime::Handle;

use super::cache::{DocIndex, IndexCache};
use super::keyword::{query_terms, Fields, KeywordHits, Located, ScopeStatistics};
use super::SearchMode;
use crate::catalog::ScopedDocument;
use crate::index::block::{self, RowMeta};
use crate::index::{IndexDirs, IndexError};

/// The weight of the vector score in hybrid fusion (the keyword score gets the rest). Chosen on
/// `eval/` (see ARCHITECTURE.md, "Retrieval quality").
pub const VECTOR_WEIGHT: f32 = 0.4;

/// The share of the most a question's terms could score at which a keyword match counts in full
/// in hybrid fusion (see ARCHITECTURE.md, "Retrieval quality").
pub const KEYWORD_FULL: f32 = 0.5;

/// What the fan-out is asked.
pub struct Question<'a> {
    pub text: &'a str,
    /// The question's embedding, unit length; `None` for keyword-only search.
    pub vector: Option<&'a [f32]>,
    pub mode: SearchMode,
    /// How deep each ranked list goes before fusion.
    pub depth: usize,
}

/// One ranked passage, before its text is read.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// Position of the document in the scope list.
    pub doc: usize,
    pub chunk_id: String,
    pub page: u32,
    pub char_start: u32,
    pub char_end: u32,
    pub score: f32,
    pub vector: Option<f32>,
    pub keyword: Option<f32>,
    /// `keyword` as a share of the most the question's terms could score in the scope.
    pub keyword_share: Option<f32>,
    pub vector_rank: Option<u32>,
    pub keyword_rank: Option<u32>,
    /// The text, once read.
    pub text: Option<String>,
    /// Where the keyword index holds the passage, when it was a keyword hit.
    pub address: Option<DocAddress>,
}

/// The fused ranking of one question over a scope.
pub struct Ranking {
    /// Best first: score descending, then chunk id ascending, then document position.
    pub ranked: Vec<Ranked>,
    /// Open indexes of the documents searched, by scope position.
    pub opened: HashMap<usize, Arc<DocIndex>>,
    /// Documents that could not be searched, by scope position.
    pub skipped: Vec<(usize, IndexError)>,
}

/// The fan-out's shared inputs.
pub struct Engine<'a> {
    pub cache: &'a IndexCache,
    pub dirs: &'a IndexDirs,
    pub fields: &'a Fields,
    pub runtime: &'a Handle,
    pub threads: usize,
}

struct PartOne {
    opened: Vec<(usize, Arc<DocIndex>)>,
    skipped: Vec<(usize, IndexError)>,
    stats: ScopeStatistics,
    vectors: TopK,
}

impl Engine<'_> {
    /// Ranks the passages of `docs` for `question`.
    pub fn rank(&self, docs: &[ScopedDocument], question: &Question<'_>) -> Ranking {
        let wants_vectors = question.mode != SearchMode::Keyword && question.vector.is_some();
        let wants_keywords = question.mode != SearchMode::Vector;
        let terms = if wants_keywords {
            query_terms(question.text, self.fields)
        } else {
            Vec::new()
        };
        let quantized = question.vector.filter(|_| wants_vectors).map(QuantizedQuery::new);
        // Candidates are picked on quantised scores, then rescored exactly: pick generously.
        let vector_pool = question.depth * 2 + 16;

        // Pass 1, per thread: open (or find) each index, sum keyword statistics, scan vectors.
        let parts = self.fan_out(docs, |slice, offset| {
            let mut part = PartOne {
                opened: Vec::with_capacity(slice.len()),
                skipped: Vec::new(),
                stats: ScopeStatistics::default(),
                vectors: TopK::new(vector_pool),
            };
            for (i, doc) in slice.iter().enumerate() {
                let pos = offset + i;
                let index = match self.open(doc, question.vector.map(<[f32]>::len)) {
                    Ok(index) => index,
                    Err(e) => {
                        part.skipped.push((pos, e));
                        continue;
                    }
                };
                if !terms.is_empty() {
                    if let Err(e) = part.stats.add(&index.keywords, &terms) {
                        part.skipped.push((pos, e));
                        continue;
                    }
                }
                if let Some(q) = &quantized {
                    index.block.vectors.scan(q, pos as u32, &mut part.vectors);
                }
                part.opened.push((pos, index));
            }
            part
        });
        let mut opened = HashMap::new();
        let mut skipped = Vec::new();
        let mut stats = ScopeStatistics::default();
        let mut pool = TopK::new(vector_pool);
        for part in parts {
            opened.extend(part.opened);
            skipped.extend(part.skipped);
            stats.merge(part.stats);
            pool.merge(part.vectors);
        }

        let vector_list = match question.vector.filter(|_| wants_vectors) {
            Some(q) => self.rescore(&opened, pool, q, question.depth, &mut skipped),
            None => Vec::new(),
        };
        let keyword_list = if terms.is_empty() {
            Vec::new()
        } else {
            self.keyword_list(&opened, &terms, &stats, question.depth, &mut skipped)
        };
        let bound = stats.score_bound(&terms);
        let mut ranked = match question.mode {
            SearchMode::Vector => vector_list,
            SearchMode::Keyword => keyword_list,
            SearchMode::Hybrid => {
                let mut union = union(vector_list, keyword_list);
                if let Some(q) = question.vector {
                    self.fill_vector_scores(&mut union, &opened, q);
                }
                fuse(union, bound)
            }
        };
        for hit in &mut ranked {
            hit.keyword_share = hit.keyword.filter(|_| bound > 0.0).map(|b| (b / bound).min(1.0));
        }
        ranked.sort_by(rank_order);
        skipped.sort_by_key(|(pos, _)| *pos);
        skipped.dedup_by_key(|(pos, _)| *pos);
        for (pos, _) in &skipped {
            opened.remove(pos);
        }
        ranked.retain(|r| opened.contains_key(&r.doc));
        Ranking {
            ranked,
            opened,
            skipped,
        }
    }

    /// Runs `work` on contiguous slices of `items` (with the offset of each slice), one slice per
    /// thread, and returns each slice's result.
    fn fan_out<I: Sync, T: Send>(&self, items: &[I], work: impl Fn(&[I], usize) -> T + Sync) -> Vec<T> {
        let threads = self.threads.clamp(1, items.len().max(1));
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

    fn open(&self, doc: &ScopedDocument, dimension: Option<usize>) -> Result<Arc<DocIndex>, IndexError> {
        if let Some(index) = self.cache.get(doc) {
            return Ok(index);
        }
        let dir = self.dirs.dir(doc.id);
        let dimension = match dimension {
            Some(d) => d,
            None => crate::index::Manifest::read(&dir)?.dimension,
        };
        let index = Arc::new(DocIndex::open(
            &dir,
            doc.index_generation,
            dimension,
            self.fields,
            self.runtime,
        )?);
        self.cache.insert(doc.id, index.clone());
        Ok(index)
    }

    /// Exact cosine scores of the quantised scan's candidates; the best `depth` of them.
    fn rescore(
        &self,
        opened: &HashMap<usize, Arc<DocIndex>>,
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
                        list.push(ranked_row(pos, &meta, score));
                    }
                }
                Ok(None) => skipped.push((pos, changed_under_us(index))),
                Err(e) => skipped.push((pos, e)),
            }
        }
        top_of(list, depth, |r, rank| {
            r.vector = Some(r.score);
            r.vector_rank = Some(rank);
        })
    }

    /// The best `depth` keyword hits of the scope, scored with the scope's statistics.
    fn keyword_list(
        &self,
        opened: &HashMap<usize, Arc<DocIndex>>,
        terms: &[Term],
        stats: &ScopeStatistics,
        depth: usize,
        skipped: &mut Vec<(usize, IndexError)>,
    ) -> Vec<Ranked> {
        let mut docs: Vec<(usize, Arc<DocIndex>)> = opened.iter().map(|(p, i)| (*p, i.clone())).collect();
        docs.sort_by_key(|(p, _)| *p);
        let Some((_, first)) = docs.first() else {
            return Vec::new();
        };
        let query = match first.keywords.prepare(terms, stats) {
            Ok(query) => query,
            Err(e) => {
                skipped.push((docs[0].0, e));
                return Vec::new();
            }
        };
        let parts = self.fan_out(&docs, |slice, _| {
            let mut hits = KeywordHits::new(depth);
            let mut failed = Vec::new();
            for (pos, index) in slice {
                if let Err(e) = index.keywords.collect(&query, *pos, &mut hits) {
                    failed.push((*pos, e));
                }
            }
            (hits, failed)
        });
        let mut found = KeywordHits::new(depth);
        for (hits, failed) in parts {
            found.merge(hits);
            skipped.extend(failed);
        }
        let found = found.into_sorted();
        let mut list = Vec::with_capacity(found.len());
        for hit in found {
            let Some(index) = opened.get(&hit.pos) else { continue };
            match index.keywords.locate(hit.address) {
                Ok(located) => list.push(ranked(hit.pos, located, Some(hit.address), hit.score)),
                Err(e) => skipped.push((hit.pos, e)),
            }
        }
        top_of(list, depth, |r, rank| {
            r.keyword = Some(r.score);
            r.keyword_rank = Some(rank);
        })
    }

    /// Computes the exact cosine of every passage that lacks one.
    fn fill_vector_scores(&self, hits: &mut [Ranked], opened: &HashMap<usize, Arc<DocIndex>>, query: &[f32]) {
        let mut wanted: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, hit) in hits.iter().enumerate() {
            if hit.vector.is_none() {
                wanted.entry(hit.doc).or_default().push(i);
            }
        }
        for (doc, want) in wanted {
            let Some(index) = opened.get(&doc) else { continue };
            let Ok(Some(meta)) = block::read_meta(&index.dir, index.block.stamp) else {
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

    /// Fills in what the top hits still lack: the text of passages found by vector only, and
    /// the exact vector score of passages found by keyword only. Returns the documents whose
    /// passages could not be read, with why: their hits are left without text, for the caller to
    /// drop, and the documents are damaged (a passage is never shown empty).
    pub fn complete(
        &self,
        hits: &mut [Ranked],
        opened: &HashMap<usize, Arc<DocIndex>>,
        query: Option<&[f32]>,
    ) -> Vec<(usize, IndexError)> {
        let mut unreadable: Vec<(usize, IndexError)> = Vec::new();
        for hit in hits.iter_mut() {
            let Some(index) = opened.get(&hit.doc) else { continue };
            if hit.text.is_some() || unreadable.iter().any(|(doc, _)| *doc == hit.doc) {
                continue;
            }
            let text = match hit.address {
                Some(address) => index.keywords.text(address, self.fields),
                None => index.keywords.text_of_chunk(&hit.chunk_id, self.fields),
            };
            match text {
                Ok(Some(text)) => hit.text = Some(text),
                Ok(None) => unreadable.push((
                    hit.doc,
                    IndexError::Damaged {
                        path: index.dir.join("keywords"),
                        reason: format!("the text of passage {} is missing", hit.chunk_id),
                    },
                )),
                Err(e) => unreadable.push((hit.doc, e)),
            }
        }
        if let Some(q) = query {
            self.fill_vector_scores(hits, opened, q);
        }
        unreadable
    }
}

/// The positions and exact cosine scores of `rows`; `None` if the index changed since it was
/// opened.
fn exact_scores(index: &DocIndex, rows: &[u32], query: &[f32]) -> Result<Option<Vec<(RowMeta, f32)>>, IndexError> {
    Ok(block::read_exact(&index.dir, index.block.stamp, rows)?
        .map(|found| found.into_iter().map(|(meta, v)| (meta, dot_f32(query, &v))).collect()))
}

fn changed_under_us(index: &DocIndex) -> IndexError {
    IndexError::Damaged {
        path: index.dir.join(block::BLOCK_FILE),
        reason: "the index was rebuilt while it was being searched".into(),
    }
}

fn ranked_row(doc: usize, meta: &RowMeta, score: f32) -> Ranked {
    let located = Located {
        chunk_id: meta.chunk_id().to_string(),
        page: meta.page,
        char_start: meta.char_start,
        char_end: meta.char_end,
    };
    ranked(doc, located, None, score)
}

fn ranked(doc: usize, located: Located, address: Option<DocAddress>, score: f32) -> Ranked {
    Ranked {
        doc,
        chunk_id: located.chunk_id,
        page: located.page,
        char_start: located.char_start,
        char_end: located.char_end,
        score,
        vector: None,
        keyword: None,
        keyword_share: None,
        vector_rank: None,
        keyword_rank: None,
        text: None,
        address,
    }
}

/// The best `depth` of `list` in rank order, each told its 1-based rank.
fn top_of(mut list: Vec<Ranked>, depth: usize, mut set_rank: impl FnMut(&mut Ranked, u32)) -> Vec<Ranked> {
    list.sort_by(rank_order);
    list.truncate(depth);
    for (i, r) in list.iter_mut().enumerate() {
        set_rank(r, i as u32 + 1);
    }
    list
}

/// The one order of results: score descending, then chunk id ascending, then scope position
/// (two copies of one PDF share chunk ids).
pub fn rank_order(a: &Ranked, b: &Ranked) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| a.chunk_id.cmp(&b.chunk_id))
        .then(a.doc.cmp(&b.doc))
}

/// The passages of both lists, each once, with the components of both.
fn union(vector: Vec<Ranked>, keyword: Vec<Ranked>) -> Vec<Ranked> {
    let mut merged: HashMap<(usize, String), Ranked> = HashMap::new();
    for hit in vector.into_iter().chain(keyword) {
        match merged.entry((hit.doc, hit.chunk_id.clone())) {
            std::collections::hash_map::Entry::Occupied(mut e) => {
                let kept = e.get_mut();
                kept.keyword = kept.keyword.or(hit.keyword);
                kept.keyword_rank = kept.keyword_rank.or(hit.keyword_rank);
                kept.vector = kept.vector.or(hit.vector);
                kept.vector_rank = kept.vector_rank.or(hit.vector_rank);
                kept.text = kept.text.take().or(hit.text);
                kept.address = kept.address.or(hit.address);
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(hit);
            }
        }
    }
    merged.into_values().collect()
}

/// Hybrid fusion of passages that carry both components: the cosine scaled to [0, 1] by min-max
/// over the candidates, BM25 as a fraction of the best candidate's or [`KEYWORD_FULL`] of `bound`
/// (the most the question's terms could score), whichever is more, so that a list of weak
/// matches of common words stays weak and a strong one counts in full; then weighted by
/// [`VECTOR_WEIGHT`]. A passage missing from the keyword list counts 0 there.
fn fuse(mut hits: Vec<Ranked>, bound: f32) -> Vec<Ranked> {
    let cos: Vec<f32> = hits.iter().filter_map(|h| h.vector).collect();
    let (cmin, cmax) = cos.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
        (lo.min(*c), hi.max(*c))
    });
    let best = hits.iter().filter_map(|h| h.keyword).fold(0.0f32, f32::max);
    let bound = best.max(KEYWORD_FULL * bound);
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
        hit.score = VECTOR_WEIGHT * v + (1.0 - VECTOR_WEIGHT) * k;
    }
    hits
}
