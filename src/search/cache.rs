//! Open per-document indexes kept between queries: the resident vector block and the open
//! keyword reader of every document searched so far, keyed by document and index generation, so
//! a query touches no file but the few exact vectors it rescores.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::runtime::Handle;

use super::keyword::{Fields, KeywordReader};
use crate::catalog::{DocumentId, ScopedDocument};
use crate::index::block::{self, ResidentBlock};
use crate::index::{IndexError, Manifest};

/// One document's index, open and ready to search.
pub struct DocIndex {
    pub generation: i64,
    pub dir: PathBuf,
    pub block: ResidentBlock,
    pub keywords: KeywordReader,
}

impl DocIndex {
    /// Opens the index in `dir`, rebuilding its vector block from the LanceDB table when the
    /// block is missing or unreadable.
    pub fn open(
        dir: &Path,
        generation: i64,
        dimension: usize,
        fields: &Fields,
        runtime: &Handle,
    ) -> Result<DocIndex, IndexError> {
        let manifest = Manifest::read(dir)?;
        if manifest.dimension != dimension {
            return Err(IndexError::Manifest {
                path: dir.join(crate::index::MANIFEST_FILE),
                reason: format!(
                    "the index holds {}-dimensional vectors from {}, the question has {dimension}: re-index it \
                     with the current embedding model",
                    manifest.dimension, manifest.embedder
                ),
            });
        }
        let block = match block::read_resident(dir, dimension) {
            Ok(block) => block,
            Err(_) => {
                runtime.block_on(block::write_from_table(dir, dimension))?;
                block::read_resident(dir, dimension)?
            }
        };
        if block.vectors.len() as u64 != manifest.chunk_count {
            return Err(IndexError::Damaged {
                path: dir.join(block::BLOCK_FILE),
                reason: format!(
                    "the vector block holds {} rows, the manifest counts {} chunks",
                    block.vectors.len(),
                    manifest.chunk_count
                ),
            });
        }
        let keywords = KeywordReader::open(&dir.join("keywords"), fields)?;
        Ok(DocIndex {
            generation,
            dir: dir.to_path_buf(),
            block,
            keywords,
        })
    }
}

/// The open indexes, shared by every query of a library.
#[derive(Default)]
pub struct IndexCache {
    entries: Mutex<HashMap<DocumentId, Arc<DocIndex>>>,
}

impl IndexCache {
    /// The cached index of `doc` if it is of the document's current generation.
    pub fn get(&self, doc: &ScopedDocument) -> Option<Arc<DocIndex>> {
        self.lock()
            .get(&doc.id)
            .filter(|entry| entry.generation == doc.index_generation)
            .cloned()
    }

    /// Keeps `index` for `id`, replacing an older generation.
    pub fn insert(&self, id: DocumentId, index: Arc<DocIndex>) {
        self.lock().insert(id, index);
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
            entries.values().map(|e| e.block.vectors.heap_bytes()).sum(),
        )
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<DocumentId, Arc<DocIndex>>> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
