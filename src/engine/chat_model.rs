//! The one cache of the loaded language model, for the CLI and the desktop app alike.

use std::sync::Arc;

use super::{lock, Engine};
use crate::error::Error;
use crate::llm::{Backend, LanguageModel};

/// A loaded language model with what it was loaded for.
pub(super) struct LoadedModel {
    backend: Backend,
    threads: usize,
    model: Option<Arc<dyn LanguageModel>>,
}

impl Engine {
    /// The model of `backend` (`None` for extractive answers). A model run here is loaded on first
    /// use and kept while the backend and thread count stay the same, so that a chat's second
    /// question does not load a gigabyte again. Blocking: call it off the async threads.
    pub fn language_model(&self, backend: &Backend, threads: usize) -> Result<Option<Arc<dyn LanguageModel>>, Error> {
        let mut held = lock(&self.chat_model);
        if let Some(loaded) = held.as_ref() {
            if loaded.backend == *backend && loaded.threads == threads {
                return Ok(loaded.model.clone());
            }
        }
        // The old model's memory goes before the new one loads.
        *held = None;
        let model = backend.connect(threads)?;
        // A server is reached afresh each time: what it serves, and the window it reports, may
        // have changed (or it was down when first asked).
        if model.as_ref().is_some_and(|m| m.reads_prompt_here()) {
            *held = Some(LoadedModel {
                backend: backend.clone(),
                threads,
                model: model.clone(),
            });
        }
        Ok(model)
    }

    /// Drops the loaded language model (its file is about to go, or another will be used).
    pub fn forget_language_model(&self) {
        *lock(&self.chat_model) = None;
    }
}
