//! The scope: the ready documents a question is asked of, read from the catalog when the search
//! starts, and read again before the results are assembled, since moves, deletes and re-indexing
//! may happen meanwhile. Only documents still ready, in scope and of the same index generation
//! count, under their folder now. A document that could not be searched is skipped here and
//! reported, if the catalog, asked once more, still holds it as it was: an index that vanished
//! because its document was deleted or re-indexed meanwhile is no damage. A query never removes
//! an index: one whose contents look wrong is queued for the indexer to verify, which keeps it
//! if it is whole and otherwise builds a new one beside it and replaces it when published.

use std::collections::HashMap;

use super::Skipped;
use crate::catalog::{DocumentId, Scope, ScopedDocument};
use crate::engine::Engine;
use crate::error::Error;
use crate::index::IndexError;

/// The documents of a scope as the search saw them, and as they are now.
pub struct Current<'a> {
    scope: &'a Scope,
    docs: &'a [ScopedDocument],
    now: HashMap<DocumentId, ScopedDocument>,
}

impl<'a> Current<'a> {
    /// Reads again those of `docs` at the scope positions `candidates`.
    pub fn read(
        engine: &Engine,
        scope: &'a Scope,
        docs: &'a [ScopedDocument],
        candidates: impl Iterator<Item = usize>,
    ) -> Result<Current<'a>, Error> {
        Ok(Current {
            scope,
            docs,
            now: read(engine, scope, docs, candidates)?,
        })
    }

    /// The document at scope position `pos` as it is now, if it still counts.
    pub fn get(&self, pos: usize) -> Option<&ScopedDocument> {
        unchanged(&self.now, &self.docs[pos])
    }

    /// The documents that could not be searched, reported, and queued to be verified when their
    /// index looks damaged. A document that changed meanwhile is not damaged: it is simply out of
    /// this query.
    pub fn skip(&self, engine: &Engine, failures: Vec<(usize, IndexError)>) -> Result<Vec<Skipped>, Error> {
        if failures.is_empty() {
            return Ok(Vec::new());
        }
        let still = read(engine, self.scope, self.docs, failures.iter().map(|(pos, _)| *pos))?;
        let mut skipped: Vec<Skipped> = Vec::new();
        for (pos, error) in failures {
            let Some(doc) = unchanged(&still, &self.docs[pos]) else {
                continue;
            };
            if skipped.iter().any(|s| s.document == doc.id) {
                continue;
            }
            let requeued = error.is_damage() && engine.recheck(doc.id).is_ok();
            skipped.push(Skipped {
                document: doc.id,
                document_name: doc.file_name.clone(),
                reason: error.to_string(),
                requeued,
            });
        }
        Ok(skipped)
    }
}

/// `doc` as `now` holds it, if it is there with the same index.
fn unchanged<'m>(now: &'m HashMap<DocumentId, ScopedDocument>, doc: &ScopedDocument) -> Option<&'m ScopedDocument> {
    now.get(&doc.id).filter(|d| d.index_generation == doc.index_generation)
}

/// The documents of `docs` at the scope positions `positions`, as the catalog holds them now, if
/// they are still ready and in `scope`.
fn read(
    engine: &Engine,
    scope: &Scope,
    docs: &[ScopedDocument],
    positions: impl Iterator<Item = usize>,
) -> Result<HashMap<DocumentId, ScopedDocument>, Error> {
    let mut ids: Vec<DocumentId> = positions.map(|pos| docs[pos].id).collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(engine
        .catalog()
        .documents_in_scope_among(scope, &ids)?
        .into_iter()
        .map(|d| (d.id, d))
        .collect())
}
