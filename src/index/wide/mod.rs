//! The library's wide index, which searches of many documents go through: what a question needs
//! to choose where to look, in one place per library (`indexes/.library/`), so that a library of
//! thousands of documents is not opened document by document. One keyword index over every covered document's passages
//! (`keywords.rs`), and a summary of each document (`summaries.rs`): its passage count and a few
//! centroids of its vectors, which choose the documents whose vectors are scanned exactly.
//!
//! The documents' own indexes stay the truth: the wide index is derived from them, kept by the
//! indexer ([`WideIndex::keep`]: after each step, and whole at its start, which rebuilds a
//! missing or damaged one), and never the other way round. A document is covered only while the
//! wide index holds its current index: every change to its directory uncovers it first
//! ([`summaries::uncover`]), and a document in scope that is not covered is searched on its own,
//! as every document of a small scope is.

mod keywords;
pub mod summaries;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use lectern_scan::{QuantizedBlock, QuantizedQuery};

use keywords::LibraryKeywords;
pub use keywords::{key_of, DOC};
use summaries::{Centroids, Reading, Records, Summary};

use super::keywords::StoredChunks;
use super::{block, IndexDirs, IndexError, KeywordReader, Manifest};
use crate::catalog::DocumentId;

/// A document's vectors are summed up by one centroid per this many passages.
const PASSAGES_PER_CENTROID: usize = 32;
/// At most this many centroids a document.
const MAX_CENTROIDS: usize = 64;
/// Rounds of k-means.
const ROUNDS: usize = 4;
/// Documents summarised per commit of the keeper.
const BATCH: usize = 64;
/// The vectors of at least this share of a scope's passages are scanned exactly...
const SCAN_SHARE: f64 = 0.02;
/// ...and of at least this many passages.
const SCAN_AT_LEAST: u64 = 20_000;

/// The wide index of a library's search.
pub struct WideIndex {
    /// The `indexes/` directory.
    root: PathBuf,
    reading: Mutex<Reading>,
    keywords: Mutex<Option<Arc<LibraryKeywords>>>,
    keeping: Mutex<()>,
    /// The indexer's requests to its keeper.
    pub requests: Requests,
}

/// The wide index as one question sees it.
pub struct Snapshot {
    pub records: Arc<Records>,
    pub keywords: Arc<KeywordReader>,
}

impl Snapshot {
    /// The summary of `id` if the wide index covers it.
    pub fn covered(&self, id: DocumentId) -> Option<&Summary> {
        self.records.get(&id).and_then(|s| s.as_deref())
    }
}

/// Whether a keeper runs, and whether it was asked to run again.
#[derive(Debug, Default)]
pub struct Requests {
    running: AtomicBool,
    again: AtomicBool,
}

impl Requests {
    /// Asks for a run; `true` when the caller is to start the keeper (none runs).
    pub fn ask(&self) -> bool {
        self.again.store(true, Ordering::SeqCst);
        !self.running.swap(true, Ordering::SeqCst)
    }

    /// Whether the running keeper is to run (again); `false` ends it.
    pub fn take(&self) -> bool {
        loop {
            if self.again.swap(false, Ordering::SeqCst) {
                return true;
            }
            self.running.store(false, Ordering::SeqCst);
            // Asked between the look and the end: run on, unless another keeper started.
            if !self.again.load(Ordering::SeqCst) || self.running.swap(true, Ordering::SeqCst) {
                return false;
            }
        }
    }
}

/// What one run of the keeper did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    /// Documents newly covered.
    pub covered: usize,
    /// Documents whose index is gone, taken out.
    pub removed: usize,
    /// Documents covered after the run.
    pub total: usize,
}

impl WideIndex {
    /// The wide index of the indexes under `root` (read when first asked for).
    pub fn new(root: &Path) -> WideIndex {
        WideIndex {
            root: root.to_path_buf(),
            reading: Mutex::new(Reading::default()),
            keywords: Mutex::new(None),
            keeping: Mutex::new(()),
            requests: Requests::default(),
        }
    }

    /// The wide index as it is now; `None` when the library has none.
    pub fn snapshot(&self) -> Result<Option<Snapshot>, IndexError> {
        let records = {
            let mut reading = self.reading.lock().unwrap_or_else(|p| p.into_inner());
            if !reading.refresh(&self.root)? {
                return Ok(None);
            }
            reading.records.clone()
        };
        let keywords = self.keywords()?.reader()?;
        Ok(Some(Snapshot { records, keywords }))
    }

    fn keywords(&self) -> Result<Arc<LibraryKeywords>, IndexError> {
        let mut open = self.keywords.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(keywords) = open.as_ref() {
            return Ok(keywords.clone());
        }
        let keywords = Arc::new(LibraryKeywords::open(&self.root.join(summaries::DIR).join("keywords"))?);
        *open = Some(keywords.clone());
        Ok(keywords)
    }

    /// Brings the wide index in line with the indexes on disk: covers every document whose
    /// index it does not hold, and takes out those whose index is gone. A library with fewer
    /// than `from` indexes and no wide index yet gets none. Run by the indexer only.
    pub fn keep(&self, dirs: &IndexDirs, from: usize) -> Result<Kept, IndexError> {
        let _one = self.keeping.lock().unwrap_or_else(|p| p.into_inner());
        let present = dirs.document_ids()?;
        let log = summaries::path(&self.root);
        if present.len() < from && !log.exists() {
            return Ok(Kept::default());
        }
        let keywords = self.keywords()?;
        summaries::create(&self.root)?;
        let records = self.refreshed()?;
        let present_set: HashSet<DocumentId> = present.iter().copied().collect();
        let mut kept = Kept::default();
        let gone: Vec<DocumentId> = records.keys().filter(|id| !present_set.contains(id)).copied().collect();
        if !gone.is_empty() {
            keywords.write(|w| {
                gone.iter().for_each(|id| w.remove(*id));
                Ok(())
            })?;
            summaries::append_forgotten(&self.root, &gone)?;
            kept.removed = gone
                .iter()
                .filter(|id| matches!(records.get(id), Some(Some(_))))
                .count();
        }
        let mut keys: HashMap<u64, DocumentId> = records
            .iter()
            .filter(|(_, s)| s.is_some())
            .map(|(id, _)| (key_of(*id), *id))
            .collect();
        let todo: Vec<DocumentId> = present
            .into_iter()
            .filter(|id| !matches!(records.get(id), Some(Some(_))))
            // Two documents of one key would be mistaken for each other: the second is searched
            // on its own.
            .filter(|id| *keys.entry(key_of(*id)).or_insert(*id) == *id)
            .collect();
        for batch in todo.chunks(BATCH) {
            // The log knows these may have passages in the keyword index from here on.
            let since = summaries::append_removals(&self.root, batch)?;
            let mut puts = Vec::new();
            keywords.write(|w| {
                for &id in batch {
                    // A document whose index cannot be read stays uncovered: it is searched on
                    // its own, where the damage is reported.
                    if let Ok(Some((chunks, summary))) = summarise(&dirs.dir(id)) {
                        w.replace(id, &chunks)?;
                        puts.push((id, summary));
                    }
                }
                Ok(())
            })?;
            kept.covered += summaries::append_puts(&self.root, since, puts)?.len();
        }
        let records = self.refreshed()?;
        kept.total = records.values().filter(|s| s.is_some()).count();
        let reading = self.reading.lock().unwrap_or_else(|p| p.into_inner());
        summaries::compact_if_worth_it(&self.root, &reading)?;
        Ok(kept)
    }

    fn refreshed(&self) -> Result<Arc<Records>, IndexError> {
        let mut reading = self.reading.lock().unwrap_or_else(|p| p.into_inner());
        reading.refresh(&self.root)?;
        Ok(reading.records.clone())
    }
}

/// A document's passages and summary, read from its index in `dir`; `None` if it has none.
fn summarise(dir: &Path) -> Result<Option<(Vec<crate::chunk::Chunk>, Summary)>, IndexError> {
    let Ok(manifest) = Manifest::read(dir) else {
        return Ok(None);
    };
    let chunks = StoredChunks::open(&dir.join("keywords"))?.all()?;
    let vectors = match manifest.vectors() {
        None => None,
        Some((embedder, dimension)) => {
            let rows = block::read_rows(dir, dimension, manifest.chunk_count)?;
            let k = (manifest.chunk_count as usize)
                .div_ceil(PASSAGES_PER_CENTROID)
                .clamp(1, MAX_CENTROIDS);
            let centres = lectern_scan::centroids(&rows, dimension, k, ROUNDS);
            Some(Centroids {
                embedder: embedder.to_string(),
                block: QuantizedBlock::from_rows(&centres, dimension),
            })
        }
    };
    Ok(Some((
        chunks,
        Summary {
            chunks: manifest.chunk_count,
            vectors,
        },
    )))
}

/// The documents whose vectors to scan for `query`, of `candidates` (scope position and
/// summary): those whose centroids come nearest, until they hold a share of the candidates'
/// passages.
pub fn choose(candidates: &[(usize, &Summary)], query: &QuantizedQuery) -> Vec<usize> {
    let total: u64 = candidates.iter().map(|(_, s)| s.chunks).sum();
    let budget = ((total as f64 * SCAN_SHARE).ceil() as u64).max(SCAN_AT_LEAST);
    let (positions, groups): (Vec<usize>, Vec<(&QuantizedBlock, u64)>) = candidates
        .iter()
        .filter_map(|(pos, s)| Some((*pos, (&s.vectors.as_ref()?.block, s.chunks))))
        .unzip();
    lectern_scan::nearest_groups(&groups, query, budget)
        .into_iter()
        .map(|i| positions[i])
        .collect()
}
