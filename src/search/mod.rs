//! The query path, from question to merged hits, behind one function: [`run`]. Its stages, one
//! file each, in the order a question meets them:
//!
//! - `question.rs`: the words of the question that are searched (not its words of asking).
//! - `scope.rs`: the ready documents in scope, from the catalog, and the same read again before
//!   the results are assembled; the documents that could not be searched (`skipped`).
//! - the index store (`index::IndexStore`, the library's `index::LocalStore`) opens the scope
//!   and gives its lists: passages by exact cosine, and by BM25 with the scope's statistics.
//! - `fusion.rs`: hybrid mode's weighted sum of the scaled cosine and BM25.
//! - `documents.rs`: the documents the question names (company, title, year), whose passages
//!   hybrid mode lifts.
//! - `pages.rs`: the best passage of each page, so that results are distinct pages.
//! - `merge.rs`: the one order of passages, and the top `k` with their text and context read.
//! - `statements.rs`: in hybrid mode, the pages under a financial statement the question names
//!   ("the balance sheet") first.
//! - `second_stage.rs`: the best pages scored again by a stronger model, when asked for.
//! - `run.rs`: the stages in order.
//!
//! `eval.rs` measures retrieval quality on a set of questions with known answers.

mod documents;
pub mod eval;
mod fusion;
mod libraries;
mod merge;
mod named_pages;
mod pages;
mod question;
mod run;
mod scope;
mod second_stage;
mod statements;

use serde::{Deserialize, Serialize};

use crate::catalog::{DocumentId, FolderId, Scope};

pub use crate::tuning::Tuning;
pub use documents::name_scores;
pub use libraries::fuse_libraries;
pub use named_pages::asked as pages_asked;
pub(crate) use run::{embed, embed_question, open_indexes, run, run_with_vector};

/// How passages are retrieved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// Cosine and BM25 of the passages of both rankings, scaled and weighed.
    #[default]
    Hybrid,
    /// Cosine similarity of embeddings.
    Vector,
    /// BM25 over words.
    Keyword,
}

impl SearchMode {
    /// Every mode, in the order reports list them.
    pub const ALL: [SearchMode; 3] = [SearchMode::Vector, SearchMode::Keyword, SearchMode::Hybrid];

    pub fn as_str(self) -> &'static str {
        match self {
            SearchMode::Hybrid => "hybrid",
            SearchMode::Vector => "vector",
            SearchMode::Keyword => "keyword",
        }
    }
}

/// A question over a scope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchRequest {
    pub query: String,
    pub scope: Scope,
    /// How many passages to return.
    pub k: usize,
    pub mode: SearchMode,
    /// Whether the best pages are scored again by the second stage's model, when it is
    /// installed (`second_stage.rs`): the right page first a little more often, about three
    /// seconds more.
    #[serde(default)]
    pub second_stage: bool,
}

/// The parts of a hit's score.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ScoreComponents {
    /// Cosine similarity to the question, when computed.
    pub vector: Option<f32>,
    /// BM25 with the scope's statistics, when the passage was among the keyword hits.
    pub keyword: Option<f32>,
    /// `keyword` as a share (0 to 1) of the most the question's words could score in the scope:
    /// how much of the question's rarer words the passage has.
    pub keyword_share: Option<f32>,
    /// 1-based rank in the vector list, if it made the list.
    pub vector_rank: Option<u32>,
    /// 1-based rank in the keyword list, if it made the list.
    pub keyword_rank: Option<u32>,
    /// Cosine similarity to the question by the second stage's model, when it scored the page.
    pub second_stage: Option<f32>,
    /// Whether the question named the passage's page ("page 14", "the cover page"): it bears
    /// on the question by where it is, whatever its words (`named_pages.rs`).
    #[serde(default)]
    pub named_page: bool,
}

/// One retrieved passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Hit {
    pub document: DocumentId,
    pub document_name: String,
    pub folder: FolderId,
    pub folder_path: String,
    pub chunk_id: String,
    /// 1-based page number.
    pub page: u32,
    /// Character range of the passage in the page's text.
    pub char_start: u32,
    pub char_end: u32,
    pub text: String,
    /// The score the ranking used (cosine, BM25 or fused, by mode).
    pub score: f32,
    pub components: ScoreComponents,
    /// The remote library it comes from (its name here); `None` for this library's own. A remote
    /// hit's document, folder and chunk are the remote library's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub remote: Option<String>,
    /// What the passage sits under, as indexed (its section's heading, a table's title and the
    /// line naming its columns), one per line after the document's label: for the prompt of an
    /// answer, never sent.
    #[serde(skip)]
    #[cfg_attr(feature = "typescript", ts(skip))]
    pub context: String,
}

/// The hits of one document, for a "sources" view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Source {
    pub document: DocumentId,
    pub document_name: String,
    pub folder: FolderId,
    pub folder_path: String,
    /// The remote library the document is in (its name here); `None` for this library's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub remote: Option<String>,
    pub best_score: f32,
    /// Indexes into [`SearchResults::hits`], best first.
    pub hits: Vec<usize>,
    /// The pages of those hits, ascending, without repeats.
    pub pages: Vec<u32>,
}

/// A document in scope that could not be searched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Skipped {
    pub document: DocumentId,
    pub document_name: String,
    pub reason: String,
    /// Whether its index looked damaged and was queued to be verified (and rebuilt if it is).
    pub requeued: bool,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SearchResults {
    pub query: String,
    pub mode: SearchMode,
    /// Best first: score descending, then chunk id ascending; one hit per page, its best passage.
    pub hits: Vec<Hit>,
    /// The same hits grouped by document, documents ordered by their best hit.
    pub sources: Vec<Source>,
    pub skipped: Vec<Skipped>,
    /// How many documents were in scope.
    pub documents_searched: usize,
    /// How many of them were searched by keyword only: their vectors of the question's model
    /// are still being made (just added, or the embedding model changed).
    pub keyword_only: usize,
    /// Remote libraries of the scope that could not be searched, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<Unreachable>>", optional))]
    pub unreachable: Vec<Unreachable>,
}

impl SearchResults {
    /// Results of nothing found yet for `query`.
    pub fn empty(query: &str, mode: SearchMode) -> SearchResults {
        SearchResults {
            query: query.to_string(),
            mode,
            hits: Vec::new(),
            sources: Vec::new(),
            skipped: Vec::new(),
            documents_searched: 0,
            keyword_only: 0,
            unreachable: Vec::new(),
        }
    }
}

/// A remote library a search could not ask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Unreachable {
    pub remote: String,
    pub reason: String,
}

/// Groups `hits` (already in rank order) per document (of this library or of one remote),
/// keeping the order of each document's best hit.
pub fn sources_of(hits: &[Hit]) -> Vec<Source> {
    let mut sources: Vec<Source> = Vec::new();
    for (i, hit) in hits.iter().enumerate() {
        match sources
            .iter_mut()
            .find(|s| s.document == hit.document && s.remote == hit.remote)
        {
            Some(source) => {
                source.hits.push(i);
                if !source.pages.contains(&hit.page) {
                    source.pages.push(hit.page);
                }
            }
            None => sources.push(Source {
                document: hit.document,
                document_name: hit.document_name.clone(),
                folder: hit.folder,
                folder_path: hit.folder_path.clone(),
                remote: hit.remote.clone(),
                best_score: hit.score,
                hits: vec![i],
                pages: vec![hit.page],
            }),
        }
    }
    for source in &mut sources {
        source.pages.sort_unstable();
    }
    sources
}
