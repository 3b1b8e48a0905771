//! [`Settings`]: how questions are answered (the language model backend with its model, URL and
//! key), how passages are retrieved (mode and k) and whether pages without text are read by OCR,
//! kept in the library's catalog.

use serde::{Deserialize, Serialize};

use super::Library;
use crate::config::LibraryConfig;
use crate::error::Error;
use crate::llm::{Backend, BackendKind, ConnectionCheck, LlmError};
use crate::models::ModelError;
use crate::search::SearchMode;
use crate::secrets::SecretPlace;

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
    /// Pages without text are read by OCR (switched off, they are left out of the index).
    pub ocr: bool,
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
            ocr: true,
        }
    }
}

const KEY: &str = "answers";
/// "true" when the API key of [`KEY`]'s settings is in the keyring, under [`KEYRING_NAME`].
const KEY_IN_KEYRING: &str = crate::catalog::API_KEY_IN_KEYRING;
const KEYRING_NAME: &str = "api-key";

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

    /// These settings without their API key, and whether one is set: what a window is shown, so
    /// that a stored key never reaches a web view.
    pub fn without_key(mut self) -> (Settings, bool) {
        let set = self.api_key.take().is_some_and(|key| !key.trim().is_empty());
        (self, set)
    }

    /// Settings from a client that is never shown the key ([`Settings::without_key`]), with the
    /// key they mean: none means the one `stored` holds, an empty one means no key.
    pub fn with_key_of(mut self, stored: &Settings) -> Settings {
        self.api_key = match self.api_key {
            None => stored.api_key.clone(),
            Some(key) if key.trim().is_empty() => None,
            Some(key) => Some(key),
        };
        self
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
        let mut settings = self.saved_settings()?.unwrap_or_default();
        settings.ocr = self.engine.ocr_on()?;
        Ok(settings)
    }

    /// The stored settings, if the user saved any that this build can read, with the API key from
    /// the keyring if it is kept there. A keyring that holds the key and does not answer is an
    /// error, not a missing key: saving what the window shows would then forget the key.
    pub(super) fn saved_settings(&self) -> Result<Option<Settings>, Error> {
        let (saved, in_keyring) = {
            let catalog = self.engine.catalog();
            (
                catalog.setting(KEY)?,
                catalog.setting(KEY_IN_KEYRING)?.as_deref() == Some("true"),
            )
        };
        let Some((json, mut settings)) = saved.and_then(|json| {
            let settings = serde_json::from_str::<Settings>(&json).ok()?;
            Some((json, settings))
        }) else {
            return Ok(None);
        };
        if in_keyring {
            settings.api_key = self.engine.secrets().get(KEYRING_NAME)?;
        } else if let Some(stored) = settings.api_key.take() {
            let key = self.engine.catalog().unseal(stored)?;
            self.move_key_to_keyring(&json, &settings, &key)?;
            settings.api_key = Some(key);
        }
        Ok(Some(settings))
    }

    /// Moves a key saved before a keyring answered (or by a version of Lectern without one) to the
    /// keyring, if one answers now and the settings read as `json` are still the saved ones.
    fn move_key_to_keyring(&self, json: &str, settings: &Settings, key: &str) -> Result<(), Error> {
        let secrets = self.engine.secrets();
        if secrets.place() == SecretPlace::Library || !secrets.put(KEYRING_NAME, key)? {
            return Ok(());
        }
        let without_key = Settings {
            api_key: None,
            ..settings.clone()
        };
        let stored = serde_json::to_string(&without_key).map_err(Error::stopped("saving the settings"))?;
        self.engine.catalog().locked(|catalog| {
            if catalog.setting(KEY)?.as_deref() != Some(json) {
                return Ok(());
            }
            catalog.set_setting(KEY, &stored)?;
            catalog.set_setting(KEY_IN_KEYRING, "true")
        })?;
        Ok(())
    }

    /// Checks and stores `settings`; the API key goes to the keyring where one answers. OCR
    /// switched on queues the documents with pages that need it.
    pub fn save_settings(&self, settings: &Settings) -> Result<(), Error> {
        settings.validate(self.engine.config())?;
        let mut stored = settings.clone();
        let key = stored.api_key.take().filter(|key| !key.trim().is_empty());
        let secrets = self.engine.secrets();
        let in_keyring = match &key {
            Some(key) => secrets.put(KEYRING_NAME, key)?,
            None => {
                secrets.delete(KEYRING_NAME)?;
                false
            }
        };
        let catalog = self.engine.catalog();
        if !in_keyring {
            stored.api_key = key
                .map(|key| catalog.seal(&key, "the model server's API key"))
                .transpose()?;
        }
        let json = serde_json::to_string(&stored).map_err(Error::stopped("saving the settings"))?;
        catalog.locked(|catalog| {
            catalog.set_setting(KEY, &json)?;
            catalog.set_setting(KEY_IN_KEYRING, if in_keyring { "true" } else { "false" })
        })?;
        drop(catalog);
        self.engine.switch_ocr(settings.ocr)
    }

    /// Where this library keeps its secrets: the system's keyring, or (none answered) its catalog.
    pub fn secret_place(&self) -> SecretPlace {
        self.engine.secrets().place()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_never_sees_the_key_and_keeps_replaces_or_forgets_it() {
        let stored = Settings {
            backend: BackendKind::Openai,
            api_key: Some("sk-stored".into()),
            ..Settings::default()
        };
        let (shown, set) = stored.clone().without_key();
        assert_eq!((shown.api_key.as_deref(), set), (None, true));
        assert!(!Settings::default().without_key().1);
        assert_eq!(shown.clone().with_key_of(&stored), stored);
        let replaced = Settings {
            api_key: Some("sk-new".into()),
            ..shown.clone()
        };
        assert_eq!(replaced.with_key_of(&stored).api_key.as_deref(), Some("sk-new"));
        let forgotten = Settings {
            api_key: Some(String::new()),
            ..shown
        };
        assert_eq!(forgotten.with_key_of(&stored).api_key, None);
    }
}
