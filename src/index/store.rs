//! The index store: the indexes of a library's documents, whoever keeps them. A document's
//! passages and vectors are published in one step (a reader sees the old or the new, never a
//! mix), deleted, and what is published is described by its manifest (its content hash decides
//! whether a file needs indexing again). A search gives the question's keyword terms and vector; the store gives the best
//! passages by BM25, scored with statistics summed over the whole scope (so a passage scores the
//! same whichever document of the scope holds it), the best by exact cosine, only over
//! documents whose vectors the question's model made, and reads passages back. Fusion, named
//! documents, pages and the rest of ranking stay the search's (`search/run.rs`), over any store.
//! [`super::LocalStore`] (an index per document on disk) and [`super::PgStore`] (PostgreSQL with
//! pgvector) implement it.

use std::collections::HashSet;

use futures::future::BoxFuture;

use super::{keywords, IndexError, Located, Manifest};
use crate::catalog::{DocumentId, ScopedDocument};
use crate::chunk::Chunk;

/// Where a store holds a passage one of its lists found, to read it back without a lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PassageKey(pub u64);

/// A passage a list found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The document's position in the scope.
    pub doc: usize,
    pub located: Located,
    pub key: Option<PassageKey>,
    /// BM25 with the scope's statistics, or the exact cosine with the question's vector.
    pub score: f32,
}

/// What one question looks for in a scope.
#[derive(Debug, Clone, Copy)]
pub struct Wanted<'a> {
    /// The question's keyword terms ([`IndexStore::terms`]); none, no keyword list.
    pub terms: &'a [String],
    /// The question's vector, of unit length, and the identity of the model that made it; none,
    /// no vector list.
    pub vector: Option<(&'a [f32], &'a str)>,
    /// How many passages each list holds at most.
    pub depth: usize,
}

/// A document's index as it is published: its manifest, its passages and, once embedded, their
/// vectors (one a passage, in the same order, of the manifest's dimension; none while the
/// document is searchable by keyword only).
#[derive(Debug, Clone, Copy)]
pub struct Publication<'a> {
    pub id: DocumentId,
    pub manifest: &'a Manifest,
    pub chunks: &'a [Chunk],
    pub vectors: &'a [Vec<f32>],
    /// The term of the indexer that publishes it, where the store can have several indexers in
    /// turn (the database): the store refuses it once a newer term began, so that an indexer
    /// that lost its lock unawares never publishes beside the next. `None` outside indexing (a
    /// copy of the library, an index fetched) and on disk, where the lock cannot be lost.
    pub term: Option<i64>,
}

impl<'a> Publication<'a> {
    /// Checks that the vectors match the manifest and the passages; says the model and the
    /// dimension of the vectors, `None` for a document searchable by keyword only.
    pub fn check(&self) -> Result<Option<(&'a str, usize)>, IndexError> {
        let wrong = |reason: String| Err(IndexError::Publication { id: self.id, reason });
        if self.manifest.chunk_count != self.chunks.len() as u64 {
            return wrong(format!(
                "the manifest counts {} passages and {} were given",
                self.manifest.chunk_count,
                self.chunks.len()
            ));
        }
        let model = self.manifest.vectors();
        match model {
            None if self.vectors.is_empty() => Ok(None),
            None => wrong("vectors were given without the model that made them".into()),
            Some(_) if self.vectors.len() != self.chunks.len() => wrong(format!(
                "{} passages and {} vectors were given",
                self.chunks.len(),
                self.vectors.len()
            )),
            Some((_, dimension)) => match self.vectors.iter().find(|v| v.len() != dimension) {
                Some(v) => wrong(format!("a vector has {} dimensions, not {dimension}", v.len())),
                None => Ok(model),
            },
        }
    }
}

/// A document's whole index, read back from a store to be published in another.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentIndex {
    pub manifest: Manifest,
    pub chunks: Vec<Chunk>,
    pub vectors: Vec<Vec<f32>>,
}

impl DocumentIndex {
    /// This index as the publication of document `id`.
    pub fn publication(&self, id: DocumentId) -> Publication<'_> {
        Publication {
            id,
            manifest: &self.manifest,
            chunks: &self.chunks,
            vectors: &self.vectors,
            term: None,
        }
    }
}

/// The indexes of a library's documents: published, deleted, read back and searched.
pub trait IndexStore: Send + Sync {
    /// Publishes a document's index in one step, in place of any it had.
    fn publish<'a>(&'a self, publication: Publication<'a>) -> BoxFuture<'a, Result<(), IndexError>>;

    /// Deletes a document's index; deleting one there is not is not an error.
    fn delete(&self, id: DocumentId) -> BoxFuture<'_, Result<(), IndexError>>;

    /// The manifest of a document's published index, if it has one.
    fn published(&self, id: DocumentId) -> BoxFuture<'_, Result<Option<Manifest>, IndexError>>;

    /// A document's whole published index (its passages in their order, with their vectors), if
    /// it has one: what another store publishes to hold the same without embedding again.
    fn read_back(&self, id: DocumentId) -> BoxFuture<'_, Result<Option<DocumentIndex>, IndexError>>;

    /// The distinct keyword terms of `text`, as the store analyses the passages' words (stemmed,
    /// lower case), in order of first appearance: tantivy's English analysis in every store.
    fn terms(&self, text: &str) -> Vec<String> {
        keywords::terms(text)
    }

    /// Opens the documents of `docs` for one question: what [`ScopeSearch`] then reads is
    /// gathered here, for the whole scope at once. A document that cannot be searched is
    /// skipped ([`ScopeSearch::take_skipped`]); an error is a store that cannot be read at all.
    fn open<'s>(
        &'s self,
        docs: &[ScopedDocument],
        wanted: &Wanted<'_>,
    ) -> Result<Box<dyn ScopeSearch + 's>, IndexError>;

    /// Makes the documents of `docs` ready for a first question without delay (a search box
    /// calls it as it opens); returns how many are.
    fn warm(&self, docs: &[ScopedDocument]) -> usize;

    /// Forgets whatever is kept open of a document: it was deleted or indexed again.
    fn forget(&self, id: DocumentId);
}

/// One question's view of a scope. Every list is best first, by score, then chunk id, then
/// document position.
pub trait ScopeSearch {
    /// The most a passage could score by BM25 for the question's terms in this scope: the sum of
    /// each term's IDF times `k1 + 1`.
    fn score_bound(&self) -> f32;

    /// The documents searched by keyword only, by scope position: they have no vectors of the
    /// question's model yet.
    fn keyword_only(&self) -> &HashSet<usize>;

    /// The best passages by BM25, scored with the statistics of the whole scope.
    fn keyword_list(&mut self) -> Vec<Found>;

    /// The best passages by exact cosine with the question's vector.
    fn vector_list(&mut self) -> Vec<Found>;

    /// The exact cosine of passages of the document at scope position `doc`, each `None` when
    /// the document has no vector of the question's model for it.
    fn vector_scores(&self, doc: usize, passages: &[Located]) -> Vec<Option<f32>>;

    /// [`Self::vector_scores`] of several documents, in their order: a store whose reads wait
    /// on a disk reads them side by side.
    fn vector_scores_of(&self, wanted: &[(usize, Vec<Located>)]) -> Vec<Vec<Option<f32>>> {
        wanted
            .iter()
            .map(|(doc, passages)| self.vector_scores(*doc, passages))
            .collect()
    }

    /// The text of a passage and its context ([`crate::chunk::Chunk::context`]), by the key a
    /// list gave it or else by chunk id. A passage the store lacks is damage.
    fn passage(&self, doc: usize, key: Option<PassageKey>, chunk_id: &str) -> Result<(String, String), IndexError>;

    /// [`Self::passage`] of several passages (document, key, chunk id), in their order, read
    /// side by side where the store can.
    fn passages(&self, wanted: &[(usize, Option<PassageKey>, &str)]) -> Vec<Result<(String, String), IndexError>> {
        wanted
            .iter()
            .map(|(doc, key, chunk_id)| self.passage(*doc, *key, chunk_id))
            .collect()
    }

    /// The passages of page `page` (1-based) of the document at scope position `doc`, in their
    /// order on the page, each scored by its exact cosine with the question's vector (0 without
    /// one); none for a page the document lacks.
    fn page_passages(&self, doc: usize, page: u32) -> Result<Vec<Found>, IndexError>;

    /// The pages of the document at scope position `doc` whose header or footer prints `number`
    /// as their page number ([`crate::chunk::prints_page_number`]), in order.
    fn numbered_pages(&self, doc: usize, number: u32) -> Result<Vec<u32>, IndexError>;

    /// The documents that could not be searched since the last call, by scope position, with why.
    fn take_skipped(&mut self) -> Vec<(usize, IndexError)>;
}

/// The best `depth` of `list` in the order every list has: score descending, then chunk id, then
/// document position.
pub fn best_first(mut list: Vec<Found>, depth: usize) -> Vec<Found> {
    list.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.located.chunk_id.cmp(&b.located.chunk_id))
            .then(a.doc.cmp(&b.doc))
    });
    list.truncate(depth);
    list
}
