//! [`Library::context_window`]: the best passages for a query that fit a number of tokens, found
//! and packed as an answer's prompt finds and packs them (`answer::context::pack`), for a
//! program that writes its own prompt (`POST /v1/context`).

use serde::Serialize;

use super::Library;
use crate::answer::context::pack;
use crate::catalog::{DocumentId, FolderId, Scope};
use crate::error::Error;
use crate::llm::GgufTokenizer;
use crate::search::{SearchMode, SearchRequest};

/// How many passages a context window is packed from: as many as an answer reads.
const PASSAGES: usize = 10;

/// What the estimate counts when no model's tokenizer is named: a token per this many
/// characters (English text in the chat models Lectern knows runs at 3.5 to 4.5).
const CHARACTERS_PER_TOKEN: usize = 4;

/// A request for a context window.
#[derive(Debug, Clone)]
pub struct ContextRequest {
    pub query: String,
    pub scope: Scope,
    /// The most tokens the passages may take, as the prompt shows them.
    pub max_tokens: usize,
    /// An installed chat model whose tokenizer counts the tokens (else they are estimated).
    pub tokenizer: Option<String>,
}

/// The passages packed, what they take and whether any was left out.
#[derive(Debug, Clone, Serialize)]
pub struct ContextWindow {
    pub passages: Vec<ContextPassage>,
    /// The prompt text of the passages, labelled `[1]`, `[2]`, … as an answer's prompt shows
    /// them.
    pub text: String,
    /// The tokens `text` takes.
    pub tokens: usize,
    pub max_tokens: usize,
    /// Whether a passage the search found was left out for want of room.
    pub truncated: bool,
    /// What counted the tokens: a model's tokenizer, or the estimate.
    pub counted_with: String,
}

/// One packed passage: where it is, and its text.
#[derive(Debug, Clone, Serialize)]
pub struct ContextPassage {
    /// Its label in `text`.
    pub label: usize,
    pub document: DocumentId,
    pub document_name: String,
    pub folder: FolderId,
    pub folder_path: String,
    pub page: u32,
    pub char_start: u32,
    pub char_end: u32,
    pub text: String,
}

/// What counts a context window's tokens.
enum Counter {
    /// An installed chat model's tokenizer, by the model's id.
    Model(String, GgufTokenizer),
    /// [`CHARACTERS_PER_TOKEN`].
    Estimate,
}

impl Counter {
    fn count(&self, text: &str) -> usize {
        match self {
            Counter::Model(_, tokenizer) => tokenizer.count(text),
            Counter::Estimate => text.chars().count().div_ceil(CHARACTERS_PER_TOKEN),
        }
    }

    fn describe(&self) -> String {
        match self {
            Counter::Model(id, _) => format!("{id}'s tokenizer"),
            Counter::Estimate => format!("an estimate: a token per {CHARACTERS_PER_TOKEN} characters"),
        }
    }
}

impl Library {
    /// The best passages for `request.query` in its scope that fit `request.max_tokens`, found
    /// and packed as an answer's prompt finds and packs them.
    pub async fn context_window(&self, request: &ContextRequest) -> Result<ContextWindow, Error> {
        let results = self
            .search(&SearchRequest {
                query: request.query.clone(),
                scope: request.scope.clone(),
                k: PASSAGES,
                mode: SearchMode::Hybrid,
                second_stage: false,
            })
            .await?;
        let library = self.clone();
        let request = request.clone();
        tokio::task::spawn_blocking(move || {
            let hits = results.hits;
            let counter = match &request.tokenizer {
                Some(model) => {
                    let path = library.model_store().chat_model_path(Some(model))?;
                    Counter::Model(model.trim().to_string(), GgufTokenizer::load(&path)?)
                }
                None => Counter::Estimate,
            };
            let packed = pack(&hits, request.max_tokens, &|text| counter.count(text));
            let truncated = hits
                .iter()
                .any(|h| !packed.passages.iter().any(|p| crate::answer::context::overlaps(h, p)));
            let passages = packed
                .passages
                .iter()
                .enumerate()
                .map(|(i, p)| ContextPassage {
                    label: i + 1,
                    document: p.document,
                    document_name: p.document_name.clone(),
                    folder: p.folder,
                    folder_path: p.folder_path.clone(),
                    page: p.page,
                    char_start: p.char_start,
                    char_end: p.char_end,
                    text: p.text.clone(),
                })
                .collect();
            Ok(ContextWindow {
                passages,
                text: packed.body,
                tokens: packed.tokens,
                max_tokens: request.max_tokens,
                truncated,
                counted_with: counter.describe(),
            })
        })
        .await
        .map_err(Error::stopped("packing the context"))?
    }
}
