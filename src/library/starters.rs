//! Starter questions through the facade: the empty chat's offer, drawn from a few documents of
//! the scope and the headings of their first stored passages (`answer/starters.rs` builds them).

use super::Library;
use crate::answer::starters::{self, Opening, PASSAGES_READ, STARTER_DOCUMENTS};
use crate::catalog::{display_name, DocumentId, Scope};
use crate::error::Error;
use crate::index::keywords::StoredChunks;

impl Library {
    /// A few questions to start a chat over `scope` with (none when it holds no ready document
    /// of this library): its documents' headings turned into questions, the same each time for
    /// the same library. Reads the catalog and a few stored passages; no model.
    pub fn starter_questions(&self, scope: &Scope) -> Result<Vec<String>, Error> {
        if !scope.has_local_part() {
            return Ok(Vec::new());
        }
        let docs = self.engine.catalog().documents_in_scope(scope)?;
        let openings: Vec<Opening> = starters::spread(&docs[..], STARTER_DOCUMENTS)
            .into_iter()
            .map(|doc| {
                let name = display_name(&doc.file_name, doc.title.as_deref());
                // A document whose passages cannot be read here (an index kept only in the
                // library's database) is summarized instead.
                let contexts = self.first_contexts(doc.id).unwrap_or_default();
                Opening {
                    headings: starters::headings(&name, contexts.iter().map(String::as_str)),
                    name,
                }
            })
            .collect();
        Ok(starters::questions(&openings))
    }

    /// The contexts of a document's first [`PASSAGES_READ`] passages, from its index on disk.
    fn first_contexts(&self, id: DocumentId) -> Result<Vec<String>, Error> {
        let stored = StoredChunks::open(&self.engine.dirs().dir(id).join("keywords"))?;
        let chunks = stored.read(0..stored.len().min(PASSAGES_READ))?;
        Ok(chunks.into_iter().map(|c| c.context).collect())
    }
}
