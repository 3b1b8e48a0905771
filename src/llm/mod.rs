//! Language models behind one trait: the built-in GGUF runtime (llama.cpp, in-process), Ollama,
//! and OpenAI-compatible servers. Each streams its answer piece by piece to a callback and stops
//! when its [`Cancel`] is set.

mod backend;
mod builtin;
mod error;
mod http;
#[cfg(feature = "every-cpu")]
mod kernels;
pub(crate) mod runtime;
mod tools;
mod window;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use backend::{Backend, BackendDefaults, BackendKind, ConnectionCheck, DEFAULT_SERVER_CONTEXT};
pub use builtin::{BuiltinModel, GgufTokenizer};
pub use error::LlmError;
pub use http::HttpChat;
pub use tools::{Tool, ToolCall, Turn};

/// Who says a message of a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Message {
        Message {
            role,
            content: content.into(),
        }
    }
}

/// How to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenerateOptions {
    /// The most tokens the answer may have.
    pub max_tokens: usize,
    /// 0 for greedy decoding.
    pub temperature: f32,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            max_tokens: 512,
            temperature: 0.0,
        }
    }
}

/// Why generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    /// The model ended its answer.
    Stop,
    /// The answer reached `max_tokens` or the context window.
    Length,
    /// [`Cancel::cancel`] was called.
    Cancelled,
}

/// A flag that stops a generation; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A chat model.
pub trait LanguageModel: Send + Sync {
    /// What it is, for the user: backend and model.
    fn describe(&self) -> String;

    /// How many tokens of prompt and answer together it can attend to.
    fn context_window(&self) -> usize;

    /// How many tokens `text` is to this model: counted by its own tokenizer where there is one,
    /// else estimated.
    fn count_tokens(&self, text: &str) -> usize;

    /// Whether this machine reads the prompt (the built-in model), so that every token of it is
    /// waited for before the first word of the answer; a server's prompt is bounded by its window
    /// alone.
    fn reads_prompt_here(&self) -> bool {
        false
    }

    /// Answers `messages`, calling `on_text` with each piece of the answer as it is generated.
    fn generate(
        &self,
        messages: &[Message],
        options: &GenerateOptions,
        cancel: &Cancel,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Finish, LlmError>;

    /// Answers `messages` with `tool` on offer: the model calls it (nothing streamed) or answers,
    /// streamed to `on_text` as [`LanguageModel::generate`] streams. By default the tool is
    /// described in the prompt and the call read from the reply.
    fn generate_or_call(
        &self,
        messages: &[Message],
        tool: &Tool,
        options: &GenerateOptions,
        cancel: &Cancel,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Turn, LlmError> {
        tools::in_prompt(self, messages, tool, options, cancel, on_text)
    }
}

/// A token count for a model without a tokenizer at hand, meant not to fall short: a token a
/// digit (Qwen's and Llama 2's tokenizers split numbers digit by digit, so a table of figures
/// costs far more than its length in words suggests), about four characters a token for the
/// rest, and never fewer than the words.
pub fn estimate_tokens(text: &str) -> usize {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    let others = text.chars().count() - digits;
    let words = text.split_whitespace().count();
    (digits + others.div_ceil(4)).max(words)
}
