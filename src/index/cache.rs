//! Open per-document indexes kept between queries: the open keyword reader and (once read) the
//! resident vector block of every document searched so far, keyed by document and index
//! generation, so a query touches no file but the few exact vectors it rescores. A search
//! through the wide index keeps the blocks it reads too, but within a bound ([`BlockCache`]):
//! a library of ten thousand documents is not held whole.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use super::block::{self, ResidentBlock};
use super::keyword_reader::Fields;
use super::reader::DocIndex;
use super::{IndexDirs, IndexError};
use crate::catalog::{DocumentId, ScopedDocument};

/// A document's index as the catalog knows it: the document, and the generation of its index.
#[derive(Debug, Clone, Copy)]
pub struct Indexed {
    pub id: DocumentId,
    pub generation: i64,
}

impl From<&ScopedDocument> for Indexed {
    fn from(doc: &ScopedDocument) -> Indexed {
        Indexed {
            id: doc.id,
            generation: doc.index_generation,
        }
    }
}

/// The open indexes, shared by every query of a library.
#[derive(Default)]
pub struct IndexCache {
    entries: Mutex<HashMap<DocumentId, Arc<DocIndex>>>,
}

impl IndexCache {
    /// The cached index of `doc` if it is of the document's current generation.
    fn get(&self, doc: Indexed) -> Option<Arc<DocIndex>> {
        self.lock()
            .get(&doc.id)
            .filter(|entry| entry.generation == doc.generation)
            .cloned()
    }

    /// The index of `doc`, from the cache or opened (and kept).
    pub fn open(&self, doc: Indexed, dirs: &IndexDirs, fields: &Fields) -> Result<Arc<DocIndex>, IndexError> {
        if let Some(index) = self.get(doc) {
            return Ok(index);
        }
        let index = Arc::new(DocIndex::open(&dirs.dir(doc.id), doc.generation, fields)?);
        self.lock().insert(doc.id, index.clone());
        Ok(index)
    }

    /// Forgets a document (deleted, or re-indexed).
    pub fn evict(&self, id: DocumentId) {
        self.lock().remove(&id);
    }

    /// The number of open indexes and the heap their vector blocks hold.
    pub fn usage(&self) -> (usize, usize) {
        let entries = self.lock();
        (
            entries.len(),
            entries
                .values()
                .filter_map(|e| e.resident_vectors())
                .map(|block| block.vectors.heap_bytes())
                .sum(),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<DocumentId, Arc<DocIndex>>> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The vector blocks a search through the wide index read, kept up to a bound of memory: the
/// first in is the first out, and a block of an index published since is read again.
pub struct BlockCache {
    limit: usize,
    kept: Mutex<KeptBlocks>,
}

#[derive(Default)]
struct KeptBlocks {
    blocks: HashMap<DocumentId, (i64, Arc<ResidentBlock>)>,
    order: VecDeque<DocumentId>,
    bytes: usize,
}

/// The memory the wide index's searches keep blocks in: a thousand documents of 300 passages.
pub const BLOCK_CACHE_BYTES: usize = 120_000_000;

impl BlockCache {
    /// A cache of up to `limit` bytes of blocks.
    pub fn new(limit: usize) -> BlockCache {
        BlockCache {
            limit,
            kept: Mutex::new(KeptBlocks::default()),
        }
    }

    /// The block of `doc`, kept or read from `dirs` (and kept).
    pub fn read(&self, doc: Indexed, dirs: &IndexDirs, dimension: usize) -> Result<Arc<ResidentBlock>, IndexError> {
        let found = self.lock().blocks.get(&doc.id).cloned();
        if let Some((generation, block)) = found {
            if generation == doc.generation && block.vectors.dimension() == dimension {
                return Ok(block);
            }
        }
        let block = Arc::new(block::read_resident(&dirs.dir(doc.id), dimension)?);
        let bytes = block.vectors.heap_bytes();
        if bytes <= self.limit {
            let mut kept = self.lock();
            if let Some((_, old)) = kept.blocks.insert(doc.id, (doc.generation, block.clone())) {
                kept.bytes -= old.vectors.heap_bytes();
            } else {
                kept.order.push_back(doc.id);
            }
            kept.bytes += bytes;
            while kept.bytes > self.limit {
                let Some(oldest) = kept.order.pop_front() else { break };
                if let Some((_, gone)) = kept.blocks.remove(&oldest) {
                    kept.bytes -= gone.vectors.heap_bytes();
                }
            }
        }
        Ok(block)
    }

    /// Forgets a document's block (deleted, or re-indexed).
    pub fn evict(&self, id: DocumentId) {
        let mut kept = self.lock();
        if let Some((_, gone)) = kept.blocks.remove(&id) {
            kept.bytes -= gone.vectors.heap_bytes();
            kept.order.retain(|d| *d != id);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, KeptBlocks> {
        self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::block::{RowMeta, CHUNK_ID_LEN};

    /// Writes a block of `rows` rows of 4 dimensions for `id` under `dirs`.
    fn write_block(dirs: &IndexDirs, id: DocumentId, rows: usize) {
        let dir = dirs.dir(id);
        std::fs::create_dir_all(&dir).unwrap();
        let meta: Vec<RowMeta> = (0..rows as u32)
            .map(|page| RowMeta {
                chunk_id: [b'a'; CHUNK_ID_LEN],
                page,
                char_start: 0,
                char_end: 1,
            })
            .collect();
        let vectors: Vec<f32> = (0..rows * 4).map(|i| (i % 7) as f32 + 1.0).collect();
        block::write(&dir, 4, &meta, &vectors).unwrap();
    }

    #[test]
    fn blocks_are_kept_within_the_bound_first_in_first_out_and_read_again_once_republished() {
        let home = tempfile::tempdir().unwrap();
        let dirs = IndexDirs::new(home.path().to_path_buf());
        let docs: Vec<Indexed> = (0..3)
            .map(|_| Indexed {
                id: DocumentId::new_random(),
                generation: 1,
            })
            .collect();
        for doc in &docs {
            write_block(&dirs, doc.id, 10);
        }
        let one = block::read_resident(&dirs.dir(docs[0].id), 4)
            .unwrap()
            .vectors
            .heap_bytes();
        // Room for two blocks.
        let cache = BlockCache::new(2 * one + one / 2);
        let first = cache.read(docs[0], &dirs, 4).unwrap();
        assert!(Arc::ptr_eq(&first, &cache.read(docs[0], &dirs, 4).unwrap()), "kept");
        let second = cache.read(docs[1], &dirs, 4).unwrap();
        let third = cache.read(docs[2], &dirs, 4).unwrap();
        let kept = |doc: Indexed, block: &Arc<ResidentBlock>| Arc::ptr_eq(block, &cache.read(doc, &dirs, 4).unwrap());
        assert!(!kept(docs[0], &first), "the first in went first");
        assert!(kept(docs[2], &third), "the last in stays");
        assert!(!kept(docs[1], &second), "the second went next");
        // Published again: a new generation is read from disk, with the new block's stamp.
        write_block(&dirs, docs[1].id, 10);
        let again = Indexed {
            generation: 2,
            ..docs[1]
        };
        let fresh = cache.read(again, &dirs, 4).unwrap();
        assert_eq!(fresh.stamp, block::read_stamp(&dirs.dir(docs[1].id)).unwrap().unwrap());
        cache.evict(again.id);
        assert!(!Arc::ptr_eq(&fresh, &cache.read(again, &dirs, 4).unwrap()), "evicted");
    }
}
