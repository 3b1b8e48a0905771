//! What the app holds while it runs: the library, the language model once loaded, and a cancel
//! flag per answer being generated.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use lectern::llm::{Backend, Cancel, LanguageModel};
use lectern::{Error, Library};

use crate::app_config;

/// The loaded model with the backend it was loaded for, shared with the thread that loads it.
pub type ModelSlot = Arc<Mutex<Option<(Backend, Option<Arc<dyn LanguageModel>>)>>>;

pub struct AppState {
    pub library: Library,
    pub model: ModelSlot,
    /// Where the app's own configuration file lives.
    pub config_dir: PathBuf,
    answers: Mutex<HashMap<String, Cancel>>,
}

impl AppState {
    /// Opens the library configured by the environment (`LECTERN_HOME` and the rest) and the
    /// app's configuration file in `config_dir`.
    pub fn open(config_dir: PathBuf) -> Result<AppState, Error> {
        if std::env::var_os("RAYON_NUM_THREADS").is_none() {
            std::env::set_var("RAYON_NUM_THREADS", "1");
        }
        Ok(AppState {
            library: Library::open(app_config::library_config(&config_dir)?)?,
            model: Arc::default(),
            config_dir,
            answers: Mutex::new(HashMap::new()),
        })
    }

    /// Registers an answer being generated and returns its cancel flag.
    pub fn start_answer(&self, id: &str) -> Cancel {
        let cancel = Cancel::new();
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_string(), cancel.clone());
        cancel
    }

    pub fn finish_answer(&self, id: &str) {
        self.answers.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
    }

    /// Stops the answer `id`, if it is still being generated.
    pub fn cancel_answer(&self, id: &str) {
        if let Some(cancel) = self.answers.lock().unwrap_or_else(PoisonError::into_inner).get(id) {
            cancel.cancel();
        }
    }
}

/// The model of `backend`, loading it on first use or when the backend changed (blocking: run it
/// off the async threads).
pub fn load_model(slot: &ModelSlot, backend: Backend) -> Result<Option<Arc<dyn LanguageModel>>, Error> {
    let mut held = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((loaded, model)) = held.as_ref() {
        if *loaded == backend {
            return Ok(model.clone());
        }
    }
    let model = backend.connect(model_threads())?;
    *held = Some((backend, model.clone()));
    Ok(model)
}

/// The threads the built-in model runs on: `LECTERN_LLM_THREADS`, else every core.
pub fn model_threads() -> usize {
    std::env::var("LECTERN_LLM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
