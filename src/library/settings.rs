//! [`Settings`]: how questions are answered (the language model backend with its model, URL and
//! key) and how passages are retrieved (mode and k), kept in the library's catalog.

use serde::{Deserialize, Serialize};

use super::Library;
use crate::config::LibraryConfig;
use crate::error::Error;
use crate::llm::{Backend, BackendKind, ConnectionCheck, LlmError};
use crate::models::ModelError;
use crate::search::SearchMode;

/// The most passages a question may retrieve.
pub const MAX_K: usize = 50;

/// The user's answer and retrieval settings. Empty fields fall back to the environment, then to
/// the defaults of [`Backend::from_settings`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(default)]
pub struct Settings {
    pub backend: BackendKind,
    /// The built-in backend's model (an id of `lectern model ls`, or a GGUF path; none: the
    /// default), or a server's model name.
    pub model: Option<String>,
    /// A server's base URL.
    pub url: Option<String>,
    /// The OpenAI-compatible server's API key.
    pub api_key: Option<String>,
    pub mode: SearchMode,
    /// How many passages a question retrieves.
    pub k: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            backend: BackendKind::default(),
            model: None,
            url: None,
            api_key: None,
            mode: SearchMode::default(),
            k: 10,
        }
    }
}

const KEY: &str = "answers";

/// Checks a number of passages to retrieve: 1 to [`MAX_K`].
pub(super) fn check_k(k: usize) -> Result<usize, Error> {
    if (1..=MAX_K).contains(&k) {
        return Ok(k);
    }
    Err(Error::Config {
        name: "k".into(),
        reason: format!("{k} passages: choose between 1 and {MAX_K}"),
    })
}

impl Settings {
    /// The backend these settings name over the environment of `config`, checked for what it
    /// needs (a server needs a model name).
    pub fn backend(&self, config: &LibraryConfig) -> Result<Backend, LlmError> {
        let text = |value: &Option<String>| value.as_ref().map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        Backend::from_settings(
            self.backend.as_str(),
            text(&self.model),
            text(&self.url),
            text(&self.api_key),
            &config.backend_defaults,
            &config.models_dir,
        )
    }

    fn validate(&self, config: &LibraryConfig) -> Result<(), Error> {
        check_k(self.k)?;
        match self.backend(config) {
            // A chosen model that is not installed yet is a valid choice: answering says how to
            // install it.
            Err(LlmError::Model(ModelError::NotInstalled(_))) | Ok(_) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

impl Library {
    /// Loads or reaches the model `settings` name and has it write a few words, on the threads
    /// the configuration gives the built-in model. Blocks: seconds for a model to load.
    pub fn check_connection(&self, settings: &Settings) -> Result<ConnectionCheck, Error> {
        let config = self.engine.config();
        Ok(settings.backend(config)?.check(config.backend_defaults.threads())?)
    }

    /// The stored settings; the defaults when none were saved, or when what was saved cannot be
    /// read (a newer build's format).
    pub fn settings(&self) -> Result<Settings, Error> {
        Ok(self.saved_settings()?.unwrap_or_default())
    }

    /// The stored settings, if the user saved any that this build can read.
    pub(super) fn saved_settings(&self) -> Result<Option<Settings>, Error> {
        Ok(self
            .engine
            .catalog()
            .setting(KEY)?
            .and_then(|json| serde_json::from_str(&json).ok()))
    }

    /// Checks and stores `settings`.
    pub fn save_settings(&self, settings: &Settings) -> Result<(), Error> {
        settings.validate(self.engine.config())?;
        let json = serde_json::to_string(settings).map_err(Error::stopped("saving the settings"))?;
        self.engine.catalog().set_setting(KEY, &json)?;
        Ok(())
    }
}
