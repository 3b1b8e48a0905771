//! The local store: an index per document on disk (`indexes/<doc-id>/`: tantivy for keywords, a
//! vector block for the query path), kept open between queries (`cache.rs`). A question's scope
//! is split over a few threads, and each opens (or finds open) the index of each of its
//! documents, adds its keyword statistics to the scope's, and scans its int8 vectors for
//! candidates if the question's model made them (a document without them is searched by
//! keyword only); the candidates are then rescored exactly from the block's f32 rows. A document
//! is published by writing its index in a temporary directory and putting it in place in one
//! rename ([`IndexDirs::commit`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::future::BoxFuture;
use lectern_scan::{dot_f32, QuantizedQuery, TopK};
use tantivy::{DocAddress, Term};

use super::block::{self, RowMeta};
use super::keyword_search::{KeywordHits, ScopeQuery};
use super::keywords::{KeywordWriter, StoredChunks};
use super::statistics::ScopeStatistics;
use super::store::{best_first, DocumentIndex, Found, IndexStore, PassageKey, Publication, ScopeSearch, Wanted};
use super::vectors::VectorWriter;
use super::{DocIndex, Fields, IndexCache, IndexDirs, IndexError, Located, Manifest};
use crate::catalog::{DocumentId, ScopedDocument};

/// The per-document indexes of a library and those kept open.
pub struct LocalStore {
    dirs: IndexDirs,
    cache: IndexCache,
    fields: Fields,
    /// How many threads a question fans out on.
    threads: usize,
}

impl LocalStore {
    /// The store of the indexes under `dirs`, searched on up to `threads` threads.
    pub fn new(dirs: IndexDirs, threads: usize) -> Result<LocalStore, IndexError> {
        Ok(LocalStore {
            dirs,
            cache: IndexCache::default(),
            fields: Fields::new()?,
            threads: threads.max(1),
        })
    }

    /// Where the indexes are, for the indexer that writes them.
    pub fn dirs(&self) -> &IndexDirs {
        &self.dirs
    }

    /// The indexes kept open.
    pub fn cache(&self) -> &IndexCache {
        &self.cache
    }

    fn open_index(&self, doc: &ScopedDocument) -> Result<Arc<DocIndex>, IndexError> {
        self.cache.open(doc, &self.dirs, &self.fields)
    }
}

impl IndexStore for LocalStore {
    fn publish<'a>(&'a self, publication: Publication<'a>) -> BoxFuture<'a, Result<(), IndexError>> {
        Box::pin(async move {
            publication.check()?;
            let Publication {
                id,
                manifest,
                chunks,
                vectors,
            } = publication;
            let temp = self.dirs.begin(id)?;
            let mut keywords = KeywordWriter::create(&temp.join("keywords"))?;
            keywords.add(chunks)?;
            keywords.finish()?;
            if let Some((_, dimension)) = manifest.vectors() {
                let mut table = VectorWriter::create(&temp.join("vectors"), dimension).await?;
                table.append(chunks, vectors).await?;
                table.finish().await?;
                block::write_from_table(&temp, dimension).await?;
            }
            manifest.write(&temp)?;
            self.dirs.commit(id, &temp)?;
            self.cache.evict(id);
            Ok(())
        })
    }

    fn delete(&self, id: DocumentId) -> BoxFuture<'_, Result<(), IndexError>> {
        Box::pin(async move {
            self.cache.evict(id);
            self.dirs.remove(id)
        })
    }

    fn published(&self, id: DocumentId) -> BoxFuture<'_, Result<Option<Manifest>, IndexError>> {
        Box::pin(async move { Ok(self.dirs.manifest(id)) })
    }

    fn read_back(&self, id: DocumentId) -> BoxFuture<'_, Result<Option<DocumentIndex>, IndexError>> {
        Box::pin(async move {
            let Some(manifest) = self.dirs.manifest(id) else {
                return Ok(None);
            };
            let dir = self.dirs.dir(id);
            let chunks = StoredChunks::open(&dir.join("keywords"))?.all()?;
            let vectors = match manifest.vectors() {
                Some((_, dimension)) => block::vectors_of_chunks(&dir, dimension, &chunks).await?,
                None => Vec::new(),
            };
            Ok(Some(DocumentIndex {
                manifest,
                chunks,
                vectors,
            }))
        })
    }

    fn open<'s>(
        &'s self,
        docs: &[ScopedDocument],
        wanted: &Wanted<'_>,
    ) -> Result<Box<dyn ScopeSearch + 's>, IndexError> {
        Ok(Box::new(LocalScope::open(self, docs, wanted)))
    }

    fn warm(&self, docs: &[ScopedDocument]) -> usize {
        let nothing = Wanted {
            terms: &[],
            vector: None,
            depth: 0,
        };
        LocalScope::open(self, docs, &nothing).opened.len()
    }

    fn forget(&self, id: DocumentId) {
        self.cache.evict(id);
    }
}

/// A scope opened for one question.
struct LocalScope<'s> {
    store: &'s LocalStore,
    /// Open indexes of the documents searched, by scope position.
    opened: HashMap<usize, Arc<DocIndex>>,
    skipped: Vec<(usize, IndexError)>,
    terms: Vec<Term>,
    /// The keyword statistics of the whole scope.
    stats: ScopeStatistics,
    /// The question's vector.
    vector: Option<Vec<f32>>,
    /// The vector candidates, on quantised scores.
    pool: TopK,
    keyword_only: HashSet<usize>,
    depth: usize,
}

impl<'s> LocalScope<'s> {
    /// Opens every document of `docs` and gathers what `wanted` names, on the store's threads.
    fn open(store: &'s LocalStore, docs: &[ScopedDocument], wanted: &Wanted<'_>) -> LocalScope<'s> {
        let terms: Vec<Term> = wanted
            .terms
            .iter()
            .map(|t| Term::from_field_text(store.fields.text, t))
            .collect();
        let quantized = wanted.vector.map(|(v, _)| QuantizedQuery::new(v));
        // Candidates are picked on quantised scores, then rescored exactly: pick generously.
        let pool = wanted.depth * 2 + 16;
        let empty = |store| LocalScope {
            store,
            opened: HashMap::new(),
            skipped: Vec::new(),
            terms: Vec::new(),
            stats: ScopeStatistics::default(),
            vector: None,
            pool: TopK::new(pool),
            keyword_only: HashSet::new(),
            depth: wanted.depth,
        };
        let parts = fan_out(docs, store.threads, |slice, offset| {
            let mut part = empty(store);
            for (i, doc) in slice.iter().enumerate() {
                let pos = offset + i;
                let index = match store.open_index(doc) {
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
                if let (Some(q), Some((_, embedder))) = (quantized.as_ref(), wanted.vector) {
                    match index.vectors_of(embedder) {
                        Ok(Some(block)) if block.vectors.dimension() == q.dimension() => {
                            block.vectors.scan(q, pos as u32, &mut part.pool)
                        }
                        Ok(Some(block)) => {
                            part.skipped
                                .push((pos, index.dimension_mismatch(block.vectors.dimension(), q.dimension())));
                            continue;
                        }
                        Ok(None) => {
                            part.keyword_only.insert(pos);
                        }
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
        let mut scope = empty(store);
        scope.terms = terms;
        scope.vector = wanted.vector.map(|(v, _)| v.to_vec());
        for part in parts {
            scope.opened.extend(part.opened);
            scope.skipped.extend(part.skipped);
            scope.stats.merge(part.stats);
            scope.pool.merge(part.pool);
            scope.keyword_only.extend(part.keyword_only);
        }
        scope
    }

    /// The positions and exact cosine scores of `rows` of the document at `pos`; `None` if its
    /// index changed since it was opened.
    fn exact_scores(&self, pos: usize, rows: &[u32]) -> Result<Option<Vec<(RowMeta, f32)>>, IndexError> {
        let (Some(index), Some(query)) = (self.opened.get(&pos), self.vector.as_deref()) else {
            return Ok(Some(Vec::new()));
        };
        Ok(index
            .read_exact(rows)?
            .map(|found| found.into_iter().map(|(meta, v)| (meta, dot_f32(query, &v))).collect()))
    }
}

impl ScopeSearch for LocalScope<'_> {
    fn score_bound(&self) -> f32 {
        self.stats.score_bound(&self.terms)
    }

    fn keyword_only(&self) -> &HashSet<usize> {
        &self.keyword_only
    }

    fn keyword_list(&mut self) -> Vec<Found> {
        if self.terms.is_empty() {
            return Vec::new();
        }
        let mut docs: Vec<(usize, Arc<DocIndex>)> = self.opened.iter().map(|(p, i)| (*p, i.clone())).collect();
        docs.sort_by_key(|(p, _)| *p);
        let Some((first_pos, first)) = docs.first() else {
            return Vec::new();
        };
        let query = match ScopeQuery::prepare(&first.keywords, &self.terms, &self.stats) {
            Ok(query) => query,
            Err(e) => {
                self.skipped.push((*first_pos, e));
                return Vec::new();
            }
        };
        let depth = self.depth;
        let parts = fan_out(&docs, self.store.threads, |slice, _| {
            let mut hits = KeywordHits::new(depth);
            let mut failed = Vec::new();
            for (pos, index) in slice {
                if let Err(e) = query.collect(&index.keywords, *pos, &mut hits) {
                    failed.push((*pos, e));
                }
            }
            (hits, failed)
        });
        let mut found = KeywordHits::new(depth);
        for (hits, failed) in parts {
            found.merge(hits);
            self.skipped.extend(failed);
        }
        let mut list = Vec::new();
        for hit in found.into_sorted() {
            let Some(index) = self.opened.get(&hit.pos) else {
                continue;
            };
            match index.keywords.locate(hit.address) {
                Ok(located) => list.push(Found {
                    doc: hit.pos,
                    located,
                    key: Some(key_of(hit.address)),
                    score: hit.score,
                }),
                Err(e) => self.skipped.push((hit.pos, e)),
            }
        }
        best_first(list, depth)
    }

    fn vector_list(&mut self) -> Vec<Found> {
        let pool = std::mem::replace(&mut self.pool, TopK::new(0));
        let mut by_doc: HashMap<usize, Vec<u32>> = HashMap::new();
        for c in pool.into_sorted() {
            by_doc.entry(c.block as usize).or_default().push(c.row);
        }
        let mut list = Vec::new();
        for (pos, rows) in by_doc {
            match self.exact_scores(pos, &rows) {
                Ok(Some(scores)) => list.extend(scores.into_iter().map(|(meta, score)| Found {
                    doc: pos,
                    located: located(&meta),
                    key: None,
                    score,
                })),
                Ok(None) => {
                    if let Some(index) = self.opened.get(&pos) {
                        self.skipped.push((pos, index.changed()));
                    }
                }
                Err(e) => self.skipped.push((pos, e)),
            }
        }
        best_first(list, self.depth)
    }

    fn vector_scores(&self, doc: usize, passages: &[Located]) -> Vec<Option<f32>> {
        let mut scores = vec![None; passages.len()];
        if self.keyword_only.contains(&doc) || self.vector.is_none() {
            return scores;
        }
        let Some(index) = self.opened.get(&doc) else {
            return scores;
        };
        let Ok(Some(meta)) = index.read_meta() else {
            return scores;
        };
        let rows: Vec<(usize, u32)> = passages
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                meta.iter()
                    .position(|m| m.chunk_id() == p.chunk_id && m.page == p.page && m.char_start == p.char_start)
                    .map(|row| (i, row as u32))
            })
            .collect();
        let ids: Vec<u32> = rows.iter().map(|(_, r)| *r).collect();
        if let Ok(Some(exact)) = self.exact_scores(doc, &ids) {
            for ((i, _), (_, score)) in rows.iter().zip(exact) {
                scores[*i] = Some(score);
            }
        }
        scores
    }

    fn passage(&self, doc: usize, key: Option<PassageKey>, chunk_id: &str) -> Result<(String, String), IndexError> {
        let Some(index) = self.opened.get(&doc) else {
            return Err(IndexError::Damaged {
                path: self.store.dirs.root().to_path_buf(),
                reason: format!("passage {chunk_id} of a document that was not opened"),
            });
        };
        index.passage(key.map(address_of), chunk_id, &self.store.fields)
    }

    fn take_skipped(&mut self) -> Vec<(usize, IndexError)> {
        std::mem::take(&mut self.skipped)
    }
}

/// A keyword-index address as a passage key: the segment above, the document within it below.
fn key_of(address: DocAddress) -> PassageKey {
    PassageKey((u64::from(address.segment_ord) << 32) | u64::from(address.doc_id))
}

fn address_of(key: PassageKey) -> DocAddress {
    DocAddress::new((key.0 >> 32) as u32, key.0 as u32)
}

fn located(meta: &RowMeta) -> Located {
    Located {
        chunk_id: meta.chunk_id().to_string(),
        page: meta.page,
        char_start: meta.char_start,
        char_end: meta.char_end,
    }
}

/// Runs `work` on contiguous slices of `items` (with the offset of each slice), one slice per
/// thread, and returns each slice's result.
fn fan_out<I: Sync, T: Send>(items: &[I], threads: usize, work: impl Fn(&[I], usize) -> T + Sync) -> Vec<T> {
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
