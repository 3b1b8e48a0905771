//! The scope: the ready documents a question is asked of, read from the catalog when the search
//! starts, and read again before the results are assembled, since moves, deletes and re-indexing
//! may happen meanwhile. Only documents still ready, in scope and of the same index generation
//! count, under their folder now; a document that could not be searched is skipped here, and
//! queued to be indexed again.

use std::collections::HashMap;

use super::Skipped;
use crate::catalog::{DocumentId, Scope, ScopedDocument};
use crate::engine::Engine;
use crate::error::Error;
use crate::index::IndexError;

/// The documents of a scope as the search saw them, and as they are now.
pub struct Current<'a> {
    docs: &'a [ScopedDocument],
    now: HashMap<DocumentId, ScopedDocument>,
}

impl<'a> Current<'a> {
    /// Reads again those of `docs` at the scope positions `candidates`.
    pub fn read(
        engine: &Engine,
        scope: &Scope,
        docs: &'a [ScopedDocument],
        candidates: impl Iterator<Item = usize>,
    ) -> Result<Current<'a>, Error> {
        let mut ids: Vec<DocumentId> = candidates.map(|pos| docs[pos].id).collect();
        ids.sort_unstable();
        ids.dedup();
        let now = engine
            .catalog()
            .documents_in_scope_among(scope, &ids)?
            .into_iter()
            .map(|d| (d.id, d))
            .collect();
        Ok(Current { docs, now })
    }

    /// The document at scope position `pos` as it is now, if it still counts.
    pub fn get(&self, pos: usize) -> Option<&ScopedDocument> {
        self.now
            .get(&self.docs[pos].id)
            .filter(|d| d.index_generation == self.docs[pos].index_generation)
    }

    /// The documents that could not be searched, each closed and queued to be indexed again. A
    /// document that changed meanwhile is not damaged: it is simply out of this query.
    pub fn skip(&self, engine: &Engine, failures: impl Iterator<Item = (usize, IndexError)>) -> Vec<Skipped> {
        let mut skipped: Vec<Skipped> = Vec::new();
        for (pos, error) in failures {
            let Some(doc) = self.get(pos) else { continue };
            if skipped.iter().any(|s| s.document == doc.id) {
                continue;
            }
            let requeued = engine.requeue(doc.id).is_ok();
            skipped.push(Skipped {
                document: doc.id,
                document_name: doc.file_name.clone(),
                reason: error.to_string(),
                requeued,
            });
        }
        skipped
    }
}
