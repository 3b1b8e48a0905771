//! What a question asks and what it gets: the request (scope, depth, strategy, how to answer),
//! a question asked once without a chat, and the answer with what retrieval found for it.

use serde::{Deserialize, Serialize};

use crate::answer::{Answer, AnswerSettings};
use crate::catalog::{ChatId, DocumentId, Scope, Strategy};
use crate::llm::Message;
use crate::search::{SearchMode, SearchResults};

/// A question to answer.
#[derive(Debug, Clone)]
pub struct AskRequest {
    pub question: String,
    /// The chat to continue; a new one is started without it.
    pub chat: Option<ChatId>,
    /// The scope to ask over: a new chat's scope, or a new scope for the chat from now on.
    /// Without it, the chat's scope (the whole library for a new chat).
    pub scope: Option<Scope>,
    /// How many passages to retrieve.
    pub k: usize,
    pub mode: SearchMode,
    /// When to search: given, it becomes the chat's strategy; without it, the chat's, else its
    /// folders' default ([`crate::catalog::Catalog::default_strategy`]).
    pub strategy: Option<Strategy>,
    /// Whether the best pages are scored again by the second stage's model (when installed):
    /// off unless asked for, as it did not make answers better (docs/figures.md).
    pub second_stage: bool,
    pub settings: AnswerSettings,
    /// The document the chat is about, which a question naming none ("page 14", "this paper")
    /// is asked of ([`crate::Library::ask`] takes the one the chat's last answer cited when
    /// none is given).
    pub about: Option<About>,
}

/// The document a chat is about, and how that is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct About {
    pub document: DocumentId,
    pub because: Because,
}

/// How Lectern knows which document a chat is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Because {
    /// It is open beside the chat (or the user chose it when asked which).
    Open,
    /// The chat's last answer cited it.
    Cited,
}

/// The document a question naming none was asked of, instead of the whole scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AskedOf {
    pub document: DocumentId,
    /// The name it is shown by.
    pub name: String,
    pub because: Because,
}

impl AskRequest {
    pub fn new(question: impl Into<String>) -> AskRequest {
        AskRequest {
            question: question.into(),
            chat: None,
            scope: None,
            k: 10,
            mode: SearchMode::Hybrid,
            strategy: None,
            second_stage: false,
            settings: AnswerSettings::default(),
            about: None,
        }
    }
}

/// What a strategy decided for one message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Retrieval {
    pub strategy: Strategy,
    /// What was searched for: the message itself, its chat's questions before it, the query the
    /// model chose, or the last question (for a request about the last answer); `None` when
    /// nothing was.
    pub query: Option<String>,
}

/// A question answered once, kept nowhere: the program asking keeps the conversation (the
/// server's chat completions and the MCP `ask` tool).
#[derive(Debug, Clone, Default)]
pub struct Question {
    pub text: String,
    /// The conversation before it, oldest first.
    pub history: Vec<Message>,
    pub scope: Scope,
}

/// An answer, and what retrieval found for it (the answer's citations point into it).
#[derive(Debug, Clone)]
pub struct Answered {
    pub answer: Answer,
    pub results: SearchResults,
    pub retrieval: Retrieval,
    /// The one document the question was asked of, where it named none ([`About`]).
    pub asked_of: Option<AskedOf>,
}
