//! Open per-document indexes kept between queries: the open keyword reader and (once read) the
//! resident vector block of every document searched so far, keyed by document and index
//! generation, so a query touches no file but the few exact vectors it rescores.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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
