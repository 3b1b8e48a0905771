//! One question's choices, layered in one place for every program: what the program was told
//! (flags, a dialog), then the user's saved settings, then the environment, then the defaults.
//! The CLI and the app pass what they were told and nothing else.

use super::settings::{check_k, Settings};
use super::Library;
use crate::answer::AnswerSettings;
use crate::ask::{About, AskRequest};
use crate::catalog::{ChatId, Scope, Strategy};
use crate::error::Error;
use crate::llm::{Backend, BackendKind};
use crate::search::SearchMode;

/// What a program says about one question; `None` leaves it to the saved settings, then the
/// environment, then the defaults.
#[derive(Debug, Clone, Default)]
pub struct AskChoices {
    pub backend: Option<BackendKind>,
    /// The built-in backend's model (an id or a GGUF path), or a server's model name.
    pub model: Option<String>,
    /// A server's base URL.
    pub url: Option<String>,
    /// How many passages to retrieve, 1 to [`super::MAX_K`].
    pub k: Option<usize>,
    pub mode: Option<SearchMode>,
    /// The cosine the best passage must reach (`LECTERN_RELEVANCE_FLOOR`, else the embedder's).
    pub relevance_floor: Option<f32>,
    /// The most tokens the answer may have.
    pub max_tokens: Option<usize>,
    /// Threads for the built-in model (`LECTERN_LLM_THREADS`, else every core).
    pub threads: Option<usize>,
    /// When to search; without it, the chat's strategy, else its folders' default.
    pub strategy: Option<Strategy>,
}

/// A question's choices, every layer applied and checked.
#[derive(Debug, Clone)]
pub struct AskPlan {
    pub backend: Backend,
    pub threads: usize,
    pub k: usize,
    pub mode: SearchMode,
    pub strategy: Option<Strategy>,
    pub settings: AnswerSettings,
}

impl AskPlan {
    /// The request that asks `question` as planned, where `at` says.
    pub fn request(&self, question: String, at: AskAt) -> AskRequest {
        AskRequest {
            question,
            chat: at.chat,
            scope: at.scope,
            about: at.about,
            k: self.k,
            mode: self.mode,
            strategy: self.strategy,
            second_stage: false,
            settings: self.settings,
        }
    }
}

/// Where a question is asked: in which chat (a new one without it), over which scope (the
/// chat's without it), and which document the chat is about (the one open beside it), if any.
#[derive(Debug, Clone, Default)]
pub struct AskAt {
    pub chat: Option<ChatId>,
    pub scope: Option<Scope>,
    pub about: Option<About>,
}

impl Library {
    /// Layers `choices` over the saved settings (when the user saved any), the environment
    /// (`LECTERN_LLM_BACKEND`, `LECTERN_LLM_MODEL`, `LECTERN_LLM_URL`, `LECTERN_LLM_API_KEY`,
    /// `LECTERN_LLM_CONTEXT`, `LECTERN_RELEVANCE_FLOOR`, `LECTERN_LLM_THREADS`) and the defaults,
    /// and checks the result.
    pub fn plan_answer(&self, choices: &AskChoices) -> Result<AskPlan, Error> {
        let config = self.engine.config();
        let env = &config.backend_defaults;
        let saved = self.saved_settings()?;
        let kind = match (choices.backend, &saved) {
            (Some(kind), _) => kind,
            (None, Some(saved)) => saved.backend,
            (None, None) => env.backend.unwrap_or_default(),
        };
        // The saved model, URL and key belong to the saved backend.
        let same = saved.as_ref().filter(|s| s.backend == kind);
        let backend = Settings {
            backend: kind,
            model: choices.model.clone().or_else(|| same.and_then(|s| s.model.clone())),
            url: choices.url.clone().or_else(|| same.and_then(|s| s.url.clone())),
            api_key: same.and_then(|s| s.api_key.clone()),
            ..Settings::default()
        }
        .backend(config)?;
        let k = check_k(
            choices
                .k
                .or(saved.as_ref().map(|s| s.k))
                .unwrap_or(Settings::default().k),
        )?;
        let mut settings = AnswerSettings {
            relevance_floor: choices.relevance_floor.or(config.relevance_floor),
            ..AnswerSettings::default()
        };
        if let Some(max_tokens) = choices.max_tokens {
            settings.generate.max_tokens = max_tokens;
        }
        Ok(AskPlan {
            backend,
            threads: choices.threads.filter(|&n| n > 0).unwrap_or_else(|| env.threads()),
            k,
            mode: choices.mode.or(saved.map(|s| s.mode)).unwrap_or_default(),
            strategy: choices.strategy,
            settings,
        })
    }
}
