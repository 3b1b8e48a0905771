//! The index store: what a search asks of the indexes of the documents in its scope, whoever
//! keeps them. A search gives the question's keyword terms and vector; the store gives the best
//! passages by BM25, scored with statistics summed over the whole scope (so a passage scores the
//! same whichever document of the scope holds it), the best by exact cosine, only over
//! documents whose vectors the question's model made, and reads passages back. Fusion, named
//! documents, pages and the rest of ranking stay the search's (`search/run.rs`), over any store.
//! [`super::LocalStore`] (an index per document on disk) implements it.

use std::collections::HashSet;

use super::{IndexError, Located};
use crate::catalog::{DocumentId, ScopedDocument};

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

/// The indexes of a library's documents, as a search reads them.
pub trait IndexStore: Send + Sync {
    /// The distinct keyword terms of `text`, as the store analyses the passages' words (stemmed,
    /// lower case), in order of first appearance.
    fn terms(&self, text: &str) -> Vec<String>;

    /// Opens the documents of `docs` for one question: what [`ScopeSearch`] then reads is
    /// gathered here, for the whole scope at once.
    fn open<'s>(&'s self, docs: &[ScopedDocument], wanted: &Wanted<'_>) -> Box<dyn ScopeSearch + 's>;

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

    /// The text of a passage and its context ([`crate::chunk::Chunk::context`]), by the key a
    /// list gave it or else by chunk id. A passage the store lacks is damage.
    fn passage(&self, doc: usize, key: Option<PassageKey>, chunk_id: &str) -> Result<(String, String), IndexError>;

    /// The documents that could not be searched since the last call, by scope position, with why.
    fn take_skipped(&mut self) -> Vec<(usize, IndexError)>;
}
