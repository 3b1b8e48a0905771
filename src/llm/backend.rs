//! Which language model answers, from settings or the environment; connecting to it, and checking
//! that it answers.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{BuiltinModel, Cancel, GenerateOptions, HttpChat, LanguageModel, LlmError, Message, Role};
use crate::model_server::ServerApi;
use crate::models::ModelStore;

/// The context window planned for a server's model that neither the server nor the user states
/// (`LECTERN_LLM_CONTEXT`), and the one Lectern asks Ollama for unless set.
pub const DEFAULT_SERVER_CONTEXT: usize = 4096;

/// Which kind of backend answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum BackendKind {
    #[default]
    Builtin,
    Ollama,
    Openai,
    Extractive,
}

impl BackendKind {
    /// Every kind.
    pub const ALL: [BackendKind; 4] = [
        BackendKind::Builtin,
        BackendKind::Ollama,
        BackendKind::Openai,
        BackendKind::Extractive,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Builtin => "builtin",
            BackendKind::Ollama => "ollama",
            BackendKind::Openai => "openai",
            BackendKind::Extractive => "extractive",
        }
    }
}

/// The language model's defaults under what a question's flags and the saved settings say, as
/// the configuration reads them from `LECTERN_LLM_BACKEND`, `LECTERN_LLM_MODEL`, `LECTERN_LLM_URL`,
/// `LECTERN_LLM_API_KEY`, `OPENAI_API_KEY`, `LECTERN_LLM_CONTEXT` and `LECTERN_LLM_THREADS`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackendDefaults {
    pub backend: Option<BackendKind>,
    /// The built-in backend's model (an id or a GGUF path), or a server's model name.
    pub model: Option<String>,
    /// A server's base URL.
    pub url: Option<String>,
    /// The key for the server the user set (`LECTERN_LLM_API_KEY`).
    pub api_key: Option<String>,
    /// The OpenAI platform's key (`OPENAI_API_KEY`), which is sent to OpenAI's own API only.
    pub openai_api_key: Option<String>,
    /// A server model's context window in tokens, at least 512.
    pub context: Option<usize>,
    /// Threads for the built-in model.
    pub threads: Option<usize>,
}

impl BackendDefaults {
    /// The threads the built-in model runs on unless a question says: the environment's, else
    /// every core.
    pub fn threads(&self) -> usize {
        self.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

/// The backend answers come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// A GGUF file run in-process.
    Builtin { model: PathBuf },
    /// `context` is the window set by the user, if any; the server is asked for the model's.
    Ollama {
        url: String,
        model: String,
        context: Option<usize>,
    },
    OpenAi {
        url: String,
        model: String,
        api_key: Option<String>,
        context: Option<usize>,
    },
    /// No model: answers quote the best passages.
    Extractive,
}

impl Backend {
    /// The backend named `name` (`builtin`, `ollama`, `openai`, `extractive`), with its model, URL
    /// and key taken from the arguments, else from the environment (`env`), and the context
    /// window from the environment. The built-in model is a model id or a GGUF path (see
    /// [`ModelStore::chat_model_path`]).
    pub fn from_settings(
        name: &str,
        model: Option<String>,
        url: Option<String>,
        api_key: Option<String>,
        env: &BackendDefaults,
        models_dir: &Path,
    ) -> Result<Backend, LlmError> {
        let model = model.or_else(|| env.model.clone());
        let url = url.or_else(|| env.url.clone());
        let api_key = api_key.or_else(|| env.api_key.clone());
        // OPENAI_API_KEY belongs to OpenAI: another server configured here never gets it.
        let openai_key = |url: &str| env.openai_api_key.clone().filter(|_| is_openai(url));
        let context = env.context;
        let required = |model: Option<String>, backend: &'static str| {
            model.ok_or(LlmError::Setting {
                name: "LECTERN_LLM_MODEL",
                reason: format!("{backend} needs a model name (in Settings, --model or LECTERN_LLM_MODEL)"),
            })
        };
        match name {
            "builtin" => Ok(Backend::Builtin {
                model: ModelStore::new(models_dir).chat_model_path(model.as_deref())?,
            }),
            "ollama" => Ok(Backend::Ollama {
                url: url.unwrap_or_else(|| ServerApi::Ollama.default_url().into()),
                model: required(model, "Ollama")?,
                context,
            }),
            "openai" => {
                let url = url.unwrap_or_else(|| ServerApi::OpenAi.default_url().into());
                Ok(Backend::OpenAi {
                    model: required(model, "an OpenAI-compatible server")?,
                    api_key: api_key.or_else(|| openai_key(&url)),
                    url,
                    context,
                })
            }
            "extractive" => Ok(Backend::Extractive),
            other => Err(LlmError::Setting {
                name: "backend",
                reason: format!("{other:?} is not one of builtin, ollama, openai, extractive"),
            }),
        }
    }

    /// Loads or connects to the model; `None` for extractive answers. `threads` is what the
    /// built-in runtime may use.
    pub fn connect(&self, threads: usize) -> Result<Option<Arc<dyn LanguageModel>>, LlmError> {
        Ok(match self {
            Backend::Builtin { model } => Some(Arc::new(BuiltinModel::load(model, threads)?)),
            Backend::Ollama { url, model, context } => Some(Arc::new(HttpChat::connect(
                ServerApi::Ollama,
                url,
                model,
                None,
                *context,
            )?)),
            Backend::OpenAi {
                url,
                model,
                api_key,
                context,
            } => Some(Arc::new(HttpChat::connect(
                ServerApi::OpenAi,
                url,
                model,
                api_key.clone(),
                *context,
            )?)),
            Backend::Extractive => None,
        })
    }
}

/// Whether `url` is OpenAI's own API (`https://api.openai.com`).
fn is_openai(url: &str) -> bool {
    reqwest::Url::parse(url).is_ok_and(|u| u.scheme() == "https" && u.host_str() == Some("api.openai.com"))
}

/// What a connection check found: the model answered `reply` after `millis`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ConnectionCheck {
    pub description: String,
    pub reply: String,
    pub millis: u64,
}

/// The tokens a connection check lets the model write.
const CHECK_TOKENS: usize = 8;

impl Backend {
    /// Loads or reaches the model and has it write a few tokens, so that a wrong URL, key, model
    /// name or file shows up now rather than at the first question.
    pub fn check(&self, threads: usize) -> Result<ConnectionCheck, LlmError> {
        let started = Instant::now();
        let Some(model) = self.connect(threads)? else {
            return Ok(ConnectionCheck {
                description: "passages only: no language model is needed".into(),
                reply: String::new(),
                millis: 0,
            });
        };
        let mut reply = String::new();
        model.generate(
            &[Message::new(Role::User, "Reply with one word: ready")],
            &GenerateOptions {
                max_tokens: CHECK_TOKENS,
                ..GenerateOptions::default()
            },
            &Cancel::new(),
            &mut |text| reply.push_str(text),
        )?;
        Ok(ConnectionCheck {
            description: model.describe(),
            reply: reply.trim().to_string(),
            millis: started.elapsed().as_millis() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_openai_platform_key_goes_to_openai_only() {
        let env = BackendDefaults {
            model: Some("gpt-x".into()),
            openai_api_key: Some("sk-openai".into()),
            ..BackendDefaults::default()
        };
        let key = |url: Option<&str>, given: Option<&str>| match Backend::from_settings(
            "openai",
            None,
            url.map(Into::into),
            given.map(Into::into),
            &env,
            Path::new("."),
        )
        .unwrap()
        {
            Backend::OpenAi { api_key, .. } => api_key,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            key(None, None).as_deref(),
            Some("sk-openai"),
            "OpenAI's API is the default"
        );
        assert_eq!(
            key(Some("https://api.openai.com/v1"), None).as_deref(),
            Some("sk-openai")
        );
        assert_eq!(key(Some("http://127.0.0.1:8080/v1"), None), None);
        assert_eq!(key(Some("https://api.openai.com.example.net/v1"), None), None);
        assert_eq!(
            key(Some("http://127.0.0.1:8080/v1"), Some("sk-own")).as_deref(),
            Some("sk-own")
        );
    }
}
