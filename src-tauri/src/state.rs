//! What the app holds while it runs: the library (which keeps the language model once loaded and
//! the cancel flag of every answer being generated) and where the app's own configuration lives.

use std::path::PathBuf;

use lectern::{Error, Library};

use crate::app_config;

pub struct AppState {
    pub library: Library,
    /// Where the app's own configuration file lives.
    pub config_dir: PathBuf,
}

impl AppState {
    /// Opens the library configured by the environment (`LECTERN_HOME` and the rest) and the
    /// app's configuration file in `config_dir`.
    pub fn open(config_dir: PathBuf) -> Result<AppState, Error> {
        Ok(AppState {
            library: Library::open(app_config::library_config(&config_dir)?)?,
            config_dir,
        })
    }
}
