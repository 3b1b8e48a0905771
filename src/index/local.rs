//! The local store: an index per document on disk (`indexes/<doc-id>/`: tantivy for keywords, a
//! vector block for the query path), kept open between queries (`cache.rs`). A question's scope
//! is split over a few threads, and each opens (or finds open) the index of each of its
//! documents, adds its keyword statistics to the scope's, and scans its int8 vectors for
//! candidates if the question's model made them (a document without them is searched by
//! keyword only); the candidates are then rescored exactly from the block's f32 rows. A scope
//! of many documents goes through the library's wide index instead (`wide/`): one
//! keyword query over the library's index, with the library's statistics, keeping the passages
//! of the documents in scope, and the vectors of the documents whose centroids come nearest,
//! read on several threads (a new question's reads wait on the disk) and kept within a bound
//! (`cache.rs`). The keyword query runs, and its hits are located, while those vectors are read
//! and rescored, so that a new question waits on the disk and on the cores at once. Only the
//! documents it does not cover are opened one by one, and a document is
//! opened for its passages' text only. A document is published by
//! writing its index in a temporary directory and putting it in place in one rename
//! ([`IndexDirs::commit`]).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::future::BoxFuture;
use lectern_scan::{dot_f32, QuantizedQuery, TopK};
use rayon::prelude::*;
use tantivy::{DocAddress, Term};

use super::block::{self, RowMeta};
use super::cache::{BlockCache, Indexed, BLOCK_CACHE_BYTES};
use super::keyword_search::{KeywordHit, KeywordHits, ScopeQuery};
use super::keywords::{KeywordWriter, StoredChunks};
use super::statistics::ScopeStatistics;
use super::store::{best_first, DocumentIndex, Found, IndexStore, PassageKey, Publication, ScopeSearch, Wanted};
use super::vectors::VectorWriter;
use super::wide::{self, key_of, Kept, WideIndex};
use super::{DocIndex, Fields, IndexCache, IndexDirs, IndexError, KeywordReader, Located, Manifest};
use crate::catalog::{DocumentId, ScopedDocument};

/// The per-document indexes of a library and those kept open.
pub struct LocalStore {
    dirs: IndexDirs,
    cache: IndexCache,
    /// The blocks searches through the wide index read.
    blocks: BlockCache,
    fields: Fields,
    /// How many threads a question fans out on.
    threads: usize,
    wide: WideIndex,
    /// Scopes of this many documents or more go through the wide index, which the indexer
    /// keeps once the library has this many indexes.
    wide_index_from: usize,
}

/// Threads that read what a question needs from disk (blocks, exact rows, passages): a read waits
/// on the disk, not on a core, so many more reads than cores keep the disk busy (a new
/// question's blocks are seldom in the page cache of a large library; 24 answered a new question
/// over 10,000 documents a few milliseconds sooner than 8).
const READERS: usize = 24;

/// Scopes of this many documents go through the wide index unless told otherwise.
pub const WIDE_INDEX_FROM: usize = 1_000;

impl LocalStore {
    /// The store of the indexes under `dirs`, searched on up to `threads` threads.
    pub fn new(dirs: IndexDirs, threads: usize) -> Result<LocalStore, IndexError> {
        Ok(LocalStore {
            wide: WideIndex::new(dirs.root()),
            dirs,
            cache: IndexCache::default(),
            blocks: BlockCache::new(BLOCK_CACHE_BYTES),
            fields: Fields::new()?,
            threads: threads.max(1),
            wide_index_from: WIDE_INDEX_FROM,
        })
    }

    /// This store with scopes of `documents` or more going through the wide index.
    pub fn with_wide_index_from(mut self, documents: usize) -> LocalStore {
        self.wide_index_from = documents.max(1);
        self
    }

    /// Brings the library's wide index in line with the indexes on disk (building it once the
    /// library is large enough): for the indexer, after each step and at its start.
    pub fn keep_wide_index(&self) -> Result<Kept, IndexError> {
        self.wide.keep(&self.dirs, self.wide_index_from)
    }

    /// The error of each document at `positions` when the wide index could not be read.
    fn wide_unread(&self, positions: impl Iterator<Item = usize>, e: &IndexError) -> Vec<(usize, IndexError)> {
        let path = self.dirs.root().join(wide::summaries::DIR);
        positions
            .map(|pos| {
                (
                    pos,
                    IndexError::Damaged {
                        path: path.clone(),
                        reason: e.to_string(),
                    },
                )
            })
            .collect()
    }

    /// The indexer's requests to the wide index's keeper.
    pub fn keeper(&self) -> &wide::Requests {
        &self.wide.requests
    }

    /// Where the indexes are, for the indexer that writes them.
    pub fn dirs(&self) -> &IndexDirs {
        &self.dirs
    }

    /// The indexes kept open.
    pub fn cache(&self) -> &IndexCache {
        &self.cache
    }

    fn open_index(&self, doc: Indexed) -> Result<Arc<DocIndex>, IndexError> {
        self.cache.open(doc, &self.dirs, &self.fields)
    }
}

impl IndexStore for LocalStore {
    fn publish<'a>(&'a self, publication: Publication<'a>) -> BoxFuture<'a, Result<(), IndexError>> {
        Box::pin(async move {
            let model = publication.check()?;
            let Publication { id, chunks, .. } = publication;
            let temp = self.dirs.begin(id)?;
            let mut keywords = KeywordWriter::create(&temp.join("keywords"))?;
            keywords.add(chunks)?;
            keywords.finish()?;
            if let Some((_, dimension)) = model {
                let mut table = VectorWriter::create(&temp.join("vectors"), dimension).await?;
                table.append(chunks, publication.vectors).await?;
                table.finish().await?;
                block::write_from_table(&temp, dimension).await?;
            }
            publication.manifest.write(&temp)?;
            self.dirs.commit(id, &temp)?;
            self.cache.evict(id);
            self.blocks.evict(id);
            Ok(())
        })
    }

    fn delete(&self, id: DocumentId) -> BoxFuture<'_, Result<(), IndexError>> {
        Box::pin(async move {
            self.cache.evict(id);
            self.blocks.evict(id);
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
        let scope = LocalScope::open(self, docs, &nothing);
        scope.opened.len() + scope.library.map_or(0, |l| l.members.len())
    }

    fn forget(&self, id: DocumentId) {
        self.cache.evict(id);
        self.blocks.evict(id);
    }
}

/// A scope opened for one question.
struct LocalScope<'s> {
    store: &'s LocalStore,
    /// The scope's documents, by position.
    docs: Vec<Indexed>,
    /// Indexes opened one by one (a small scope's, or those the wide index does not cover), by
    /// scope position.
    opened: HashMap<usize, Arc<DocIndex>>,
    /// The wide index's part of the scope, when it has one.
    library: Option<LibraryPart>,
    /// The stamps of the vector blocks of covered documents read for this question.
    stamps: HashMap<usize, u64>,
    skipped: Vec<(usize, IndexError)>,
    terms: Vec<Term>,
    /// The keyword statistics of the whole scope (of the library, when the wide index answers).
    stats: ScopeStatistics,
    /// The question's vector.
    vector: Option<Vec<f32>>,
    /// The vector candidates, on quantised scores.
    pool: TopK,
    /// The vector list, when it was made as the scope was opened.
    rescored: Option<Vec<Found>>,
    keyword_only: HashSet<usize>,
    depth: usize,
}

/// The documents of a scope the wide index covers: the scope position of each covered document's
/// key, and what the library's keyword index found among them.
struct LibraryPart {
    members: Arc<HashMap<u64, usize>>,
    /// The best passages of the question's terms among them, found and located as the scope was
    /// opened.
    hits: Option<Result<Vec<LocatedHit>, IndexError>>,
}

/// A hit of the library's keyword index, and where its passage is.
type LocatedHit = (KeywordHit, Result<Located, IndexError>);

impl<'s> LocalScope<'s> {
    fn empty(store: &'s LocalStore, docs: &[ScopedDocument], pool: usize, depth: usize) -> LocalScope<'s> {
        LocalScope {
            store,
            docs: docs.iter().map(Indexed::from).collect(),
            opened: HashMap::new(),
            library: None,
            stamps: HashMap::new(),
            skipped: Vec::new(),
            terms: Vec::new(),
            stats: ScopeStatistics::default(),
            vector: None,
            pool: TopK::new(pool),
            rescored: None,
            keyword_only: HashSet::new(),
            depth,
        }
    }

    /// Opens the documents of `docs` and gathers what `wanted` names, on the store's threads:
    /// through the wide index for the documents it covers when the scope is large, one by one
    /// for the others.
    fn open(store: &'s LocalStore, docs: &[ScopedDocument], wanted: &Wanted<'_>) -> LocalScope<'s> {
        let terms: Vec<Term> = wanted
            .terms
            .iter()
            .map(|t| Term::from_field_text(store.fields.text, t))
            .collect();
        let quantized = wanted.vector.map(|(v, _)| QuantizedQuery::new(v));
        // Candidates are picked on quantised scores, then rescored exactly: pick generously.
        let pool = wanted.depth * 2 + 16;
        let mut scope = LocalScope::empty(store, docs, pool, wanted.depth);
        scope.vector = wanted.vector.map(|(v, _)| v.to_vec());
        let snapshot = match docs.len() >= store.wide_index_from {
            // A wide index that cannot be read leaves every document to be searched on its own.
            true => store.wide.snapshot().ok().flatten(),
            false => None,
        };
        let mut covered = Vec::new();
        let mut own = Vec::new();
        for (pos, doc) in docs.iter().enumerate() {
            match snapshot.as_ref().and_then(|s| s.covered(doc.id)) {
                Some(summary) => covered.push((pos, summary)),
                None => own.push((pos, doc)),
            }
        }
        let parts = fan_out(&own, store.threads, |slice, _| {
            let mut part = LocalScope::empty(store, &[], pool, wanted.depth);
            for &(pos, doc) in slice {
                part.open_one(pos, doc, &terms, quantized.as_ref(), wanted);
            }
            part
        });
        for part in parts {
            scope.absorb(part);
        }
        if let Some(snapshot) = snapshot.as_ref().filter(|_| !covered.is_empty()) {
            if !terms.is_empty() {
                if let Err(e) = scope.stats.add(&snapshot.keywords, &terms) {
                    let unread = store.wide_unread(covered.iter().map(|(pos, _)| *pos), &e);
                    scope.skipped.extend(unread);
                    return scope;
                }
            }
            let mut candidates = Vec::new();
            if let (Some(q), Some((_, embedder))) = (quantized.as_ref(), wanted.vector) {
                let mut unsearchable = HashSet::new();
                for &(pos, summary) in &covered {
                    match &summary.vectors {
                        Some(c) if c.embedder == embedder && c.block.dimension() == q.dimension() => {
                            candidates.push((pos, summary))
                        }
                        Some(c) if c.embedder == embedder => {
                            unsearchable.insert(pos);
                            let mismatch =
                                IndexError::dimension_mismatch(&scope.dir(pos), c.block.dimension(), q.dimension());
                            scope.skipped.push((pos, mismatch));
                        }
                        _ => {
                            scope.keyword_only.insert(pos);
                        }
                    }
                }
                covered.retain(|(pos, _)| !unsearchable.contains(pos));
            }
            let members: Arc<HashMap<u64, usize>> =
                Arc::new(covered.iter().map(|(pos, _)| (key_of(docs[*pos].id), *pos)).collect());
            scope.library = Some(LibraryPart {
                members: members.clone(),
                hits: None,
            });
            let query = (!terms.is_empty()).then(|| ScopeQuery::prepare(&snapshot.keywords, &terms, &scope.stats));
            // The library's keyword query runs on its cores, and its hits are located, while the
            // vectors' reads wait on the disk.
            let hits = std::thread::scope(|s| {
                let hits = query.map(|query| {
                    let (keywords, members) = (&snapshot.keywords, &*members);
                    s.spawn(move || {
                        let hits = library_hits(keywords, members, &query?, wanted.depth, store.threads)?.into_sorted();
                        let located = read_each(&hits, |hit| keywords.locate(hit.address));
                        Ok(hits.into_iter().zip(located).collect())
                    })
                });
                if let Some(q) = quantized.as_ref().filter(|_| !candidates.is_empty()) {
                    let chosen = wide::choose(&candidates, q);
                    let parts = fan_out(&chosen, READERS, |slice, _| {
                        let mut part = LocalScope::empty(store, &[], pool, wanted.depth);
                        for &pos in slice {
                            match store.blocks.read((&docs[pos]).into(), &store.dirs, q.dimension()) {
                                Ok(block) => {
                                    block.vectors.scan(q, pos as u32, &mut part.pool);
                                    part.stamps.insert(pos, block.stamp);
                                }
                                Err(e) => part.skipped.push((pos, e)),
                            }
                        }
                        part
                    });
                    for part in parts {
                        scope.absorb(part);
                    }
                }
                if scope.vector.is_some() {
                    scope.rescored = Some(scope.rescore());
                }
                hits.map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            });
            if let Some(library) = scope.library.as_mut() {
                library.hits = hits;
            }
        }
        scope.terms = terms;
        scope
    }

    /// Opens (or finds open) the index of `doc`, at scope position `pos`, adds its keyword
    /// statistics and scans its vectors.
    fn open_one(
        &mut self,
        pos: usize,
        doc: &ScopedDocument,
        terms: &[Term],
        quantized: Option<&QuantizedQuery>,
        wanted: &Wanted<'_>,
    ) {
        let index = match self.store.open_index(doc.into()) {
            Ok(index) => index,
            Err(e) => return self.skipped.push((pos, e)),
        };
        if !terms.is_empty() {
            if let Err(e) = self.stats.add(&index.keywords, terms) {
                return self.skipped.push((pos, e));
            }
        }
        if let (Some(q), Some((_, embedder))) = (quantized, wanted.vector) {
            match index.vectors_of(embedder) {
                Ok(Some(block)) if block.vectors.dimension() == q.dimension() => {
                    block.vectors.scan(q, pos as u32, &mut self.pool)
                }
                Ok(Some(block)) => {
                    let mismatch = IndexError::dimension_mismatch(&index.dir, block.vectors.dimension(), q.dimension());
                    return self.skipped.push((pos, mismatch));
                }
                Ok(None) => {
                    self.keyword_only.insert(pos);
                }
                Err(e) => return self.skipped.push((pos, e)),
            }
        }
        self.opened.insert(pos, index);
    }

    /// Adds what a part of the scope gathered (on another thread).
    fn absorb(&mut self, part: LocalScope<'_>) {
        self.opened.extend(part.opened);
        self.stamps.extend(part.stamps);
        self.skipped.extend(part.skipped);
        self.stats.merge(part.stats);
        self.pool.merge(part.pool);
        self.keyword_only.extend(part.keyword_only);
    }

    /// The vector candidates rescored exactly from their blocks' `f32` rows, best first.
    fn rescore(&mut self) -> Vec<Found> {
        let pool = std::mem::replace(&mut self.pool, TopK::new(0));
        let mut by_doc: HashMap<usize, Vec<u32>> = HashMap::new();
        for c in pool.into_sorted() {
            by_doc.entry(c.block as usize).or_default().push(c.row);
        }
        let by_doc: Vec<(usize, Vec<u32>)> = by_doc.into_iter().collect();
        let read = read_each(&by_doc, |(pos, rows)| (*pos, self.exact_scores(*pos, rows)));
        let mut list = Vec::new();
        for (pos, scores) in read {
            match scores {
                Ok(Some(scores)) => list.extend(scores.into_iter().map(|(meta, score)| Found {
                    doc: pos,
                    located: located(&meta),
                    key: None,
                    score,
                })),
                Ok(None) => self.skipped.push((pos, IndexError::rebuilt(&self.dir(pos)))),
                Err(e) => self.skipped.push((pos, e)),
            }
        }
        best_first(list, self.depth)
    }

    /// The document's own index, open for this question or opened now for a covered document
    /// (for the text of its passages and its pages only).
    fn doc_index(&self, pos: usize) -> Result<Option<Arc<DocIndex>>, IndexError> {
        if let Some(index) = self.opened.get(&pos) {
            return Ok(Some(index.clone()));
        }
        match self.docs.get(pos).filter(|_| self.is_covered(pos)) {
            Some(doc) => self.store.open_index(*doc).map(Some),
            None => Ok(None),
        }
    }

    /// Whether the wide index answers for the document at `pos`.
    fn is_covered(&self, pos: usize) -> bool {
        let key = self.docs.get(pos).map(|d| key_of(d.id));
        self.library
            .as_ref()
            .is_some_and(|l| key.is_some_and(|k| l.members.get(&k) == Some(&pos)))
    }

    fn dir(&self, pos: usize) -> std::path::PathBuf {
        match self.docs.get(pos) {
            Some(doc) => self.store.dirs.dir(doc.id),
            None => self.store.dirs.root().to_path_buf(),
        }
    }

    /// The stamp of the vector block of the covered document at `pos`: the one read for this
    /// question, else the block's now.
    fn stamp_of(&self, pos: usize) -> Result<Option<u64>, IndexError> {
        match self.stamps.get(&pos) {
            Some(stamp) => Ok(Some(*stamp)),
            None => block::read_stamp(&self.dir(pos)),
        }
    }

    /// The positions of every vector row of the document at `pos`; `None` if its index changed.
    fn rows_of(&self, pos: usize) -> Result<Option<Vec<RowMeta>>, IndexError> {
        if let Some(index) = self.opened.get(&pos) {
            return index.read_meta();
        }
        match self.stamp_of(pos)? {
            Some(stamp) => block::read_meta(&self.dir(pos), stamp),
            None => Ok(None),
        }
    }

    /// The positions and exact cosine scores of `rows` of the document at `pos`; `None` if its
    /// index changed since it was opened.
    fn exact_scores(&self, pos: usize, rows: &[u32]) -> Result<Option<Vec<(RowMeta, f32)>>, IndexError> {
        let Some(query) = self.vector.as_deref() else {
            return Ok(Some(Vec::new()));
        };
        let found = if let Some(index) = self.opened.get(&pos) {
            index.read_exact(rows)?
        } else if self.is_covered(pos) {
            match self.stamp_of(pos)? {
                Some(stamp) => block::read_exact(&self.dir(pos), stamp, rows)?,
                None => None,
            }
        } else {
            return Ok(Some(Vec::new()));
        };
        Ok(found.map(|found| found.into_iter().map(|(meta, v)| (meta, dot_f32(query, &v))).collect()))
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
        let depth = self.depth;
        let mut found = KeywordHits::new(depth);
        let mut docs: Vec<(usize, Arc<DocIndex>)> = self.opened.iter().map(|(p, i)| (*p, i.clone())).collect();
        docs.sort_by_key(|(p, _)| *p);
        if let Some((first_pos, first)) = docs.first() {
            // The weights depend on the statistics only: any reader of the scope prepares them.
            match ScopeQuery::prepare(&first.keywords, &self.terms, &self.stats) {
                Ok(query) => {
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
                    for (hits, failed) in parts {
                        found.merge(hits);
                        self.skipped.extend(failed);
                    }
                }
                Err(e) => self.skipped.push((*first_pos, e)),
            }
        }
        let mut located_there = HashMap::new();
        if let Some(library) = self.library.as_mut() {
            match library.hits.take() {
                Some(Ok(hits)) => {
                    for (hit, located) in hits {
                        found.offer(hit.score, hit.pos, hit.address);
                        located_there.insert((hit.pos, hit.address), located);
                    }
                }
                Some(Err(e)) => {
                    let unread = self.store.wide_unread(library.members.values().copied(), &e);
                    self.skipped.extend(unread);
                }
                None => {}
            }
        }
        let mut list = Vec::new();
        for hit in found.into_sorted() {
            let (located, key) = match self.opened.get(&hit.pos) {
                Some(index) => (index.keywords.locate(hit.address), Some(key_of_address(hit.address))),
                // A hit of the library's index is read back by chunk id from its document's.
                None => match located_there.remove(&(hit.pos, hit.address)) {
                    Some(located) => (located, None),
                    None => continue,
                },
            };
            match located {
                Ok(located) => list.push(Found {
                    doc: hit.pos,
                    located,
                    key,
                    score: hit.score,
                }),
                Err(e) => self.skipped.push((hit.pos, e)),
            }
        }
        best_first(list, depth)
    }

    fn vector_list(&mut self) -> Vec<Found> {
        match self.rescored.take() {
            Some(list) => list,
            None => self.rescore(),
        }
    }

    fn vector_scores(&self, doc: usize, passages: &[Located]) -> Vec<Option<f32>> {
        let mut scores = vec![None; passages.len()];
        if self.keyword_only.contains(&doc) || self.vector.is_none() {
            return scores;
        }
        if !self.opened.contains_key(&doc) && !self.is_covered(doc) {
            return scores;
        }
        let Ok(Some(meta)) = self.rows_of(doc) else {
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

    fn vector_scores_of(&self, wanted: &[(usize, Vec<Located>)]) -> Vec<Vec<Option<f32>>> {
        read_each(wanted, |(doc, passages)| self.vector_scores(*doc, passages))
    }

    fn passages(&self, wanted: &[(usize, Option<PassageKey>, &str)]) -> Vec<Result<(String, String), IndexError>> {
        read_each(wanted, |(doc, key, chunk_id)| self.passage(*doc, *key, chunk_id))
    }

    fn passage(&self, doc: usize, key: Option<PassageKey>, chunk_id: &str) -> Result<(String, String), IndexError> {
        // Every key is an address in the document's own index; the library's hits have none.
        match self.doc_index(doc)? {
            Some(index) => index.passage(key.map(address_of), chunk_id, &self.store.fields),
            None => Err(IndexError::Damaged {
                path: self.store.dirs.root().to_path_buf(),
                reason: format!("passage {chunk_id} of a document that was not opened"),
            }),
        }
    }

    fn page_passages(&self, doc: usize, page: u32) -> Result<Vec<Found>, IndexError> {
        let Some(index) = self.doc_index(doc)? else {
            return Ok(Vec::new());
        };
        let on_page = index.keywords.page(page, &self.store.fields)?;
        let located: Vec<Located> = on_page.iter().map(|(_, located)| located.clone()).collect();
        let scores = self.vector_scores(doc, &located);
        Ok(on_page
            .into_iter()
            .zip(scores)
            .map(|((address, located), score)| Found {
                doc,
                located,
                key: Some(key_of_address(address)),
                score: score.unwrap_or(0.0),
            })
            .collect())
    }

    fn numbered_pages(&self, doc: usize, number: u32) -> Result<Vec<u32>, IndexError> {
        match self.doc_index(doc)? {
            Some(index) => index.keywords.numbered_pages(number, &self.store.fields),
            None => Ok(Vec::new()),
        }
    }

    fn take_skipped(&mut self) -> Vec<(usize, IndexError)> {
        std::mem::take(&mut self.skipped)
    }
}

/// A keyword-index address as a passage key: the segment above, the document within it below.
fn key_of_address(address: DocAddress) -> PassageKey {
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

/// The best passages for `query` in the library's keyword index `keywords` of the documents
/// whose keys `members` maps to scope positions: its segments on `threads` threads, largest first
/// and dealt alternately, so that each thread gets a like share.
fn library_hits(
    keywords: &KeywordReader,
    members: &HashMap<u64, usize>,
    query: &ScopeQuery,
    depth: usize,
    threads: usize,
) -> Result<KeywordHits, IndexError> {
    let readers = keywords.searcher().segment_readers();
    let mut by_size: Vec<usize> = (0..readers.len()).collect();
    by_size.sort_by_key(|&ord| std::cmp::Reverse(readers[ord].max_doc()));
    let segments: Vec<usize> = by_size
        .iter()
        .step_by(2)
        .chain(by_size.iter().skip(1).step_by(2))
        .copied()
        .collect();
    let parts = fan_out(&segments, threads, |slice, _| -> Result<KeywordHits, IndexError> {
        let mut hits = KeywordHits::new(depth);
        for &ord in slice {
            query.collect_members(keywords, ord, members, &mut hits)?;
        }
        Ok(hits)
    });
    let mut found = KeywordHits::new(depth);
    for part in parts {
        found.merge(part?);
    }
    Ok(found)
}

/// `read` of each of `items`, in their order, on every reader thread: reads that wait on the disk.
fn read_each<I: Sync, T: Send>(items: &[I], read: impl Fn(&I) -> T + Sync) -> Vec<T> {
    let parts = fan_out(items, READERS, |slice, _| slice.iter().map(&read).collect::<Vec<_>>());
    parts.into_iter().flatten().collect()
}

/// Runs `work` on contiguous slices of `items` (with the offset of each slice), up to `threads`
/// slices at once on the store's readers ([`readers`]; in this thread alone if they could not be
/// started), and returns each slice's result.
fn fan_out<I: Sync, T: Send>(items: &[I], threads: usize, work: impl Fn(&[I], usize) -> T + Sync) -> Vec<T> {
    let threads = threads.clamp(1, items.len().max(1));
    let Some(pool) = readers().filter(|_| threads > 1) else {
        return vec![work(items, 0)];
    };
    let per = items.len().div_ceil(threads);
    let slices: Vec<(usize, &[I])> = items.chunks(per).enumerate().collect();
    pool.install(|| slices.par_iter().map(|(i, slice)| work(slice, i * per)).collect())
}

/// The threads every question's reads and scans run on, started once: a question fans out a few
/// times, and starting [`READERS`] threads each time costs more than the work of a question whose
/// data is in memory.
fn readers() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(READERS)
            .thread_name(|i| format!("lectern-reader-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}
