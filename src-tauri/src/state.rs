//! What the app holds while it runs: the library (which keeps the language model once loaded), and
//! a cancel flag per answer being generated.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use lectern::llm::Cancel;
use lectern::{Error, Library};

use crate::app_config;

pub struct AppState {
    pub library: Library,
    /// Where the app's own configuration file lives.
    pub config_dir: PathBuf,
    answers: Mutex<HashMap<String, Cancel>>,
}

impl AppState {
    /// Opens the library configured by the environment (`LECTERN_HOME` and the rest) and the
    /// app's configuration file in `config_dir`.
    pub fn open(config_dir: PathBuf) -> Result<AppState, Error> {
        Ok(AppState {
            library: Library::open(app_config::library_config(&config_dir)?)?,
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
