//! What the app holds while it runs: the library (which keeps the language model once loaded and
//! the cancel flag of every answer being generated and every model being installed), where the
//! app's own configuration lives, why the indexer stopped, if it did, the server for other
//! programs, while it runs, the documents the window was last sent, and the files the app was
//! started with until the window asks for them.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use lectern::{app_config, Error, ErrorPayload, Library};

use crate::library_view::Sent;
use crate::server::Running;

pub struct AppState {
    pub library: Library,
    /// Where the app's own configuration file lives.
    pub config_dir: PathBuf,
    /// Why the indexer stopped, if it did: documents then wait, and the window says why.
    pub indexer_stopped: Mutex<Option<ErrorPayload>>,
    /// The server for other programs, while it runs (held while it starts or stops), or why it
    /// could not start.
    pub server: tokio::sync::Mutex<Result<Option<Running>, String>>,
    /// The documents the window was last sent, to send it only what changes.
    pub sent: Arc<Sent>,
    /// The files the app was started with ("Open with Lectern"), until the window takes them.
    pub opened: Mutex<Vec<PathBuf>>,
}

impl AppState {
    /// Opens the library configured by the environment (`LECTERN_HOME` and the rest) and the
    /// app's configuration file in `config_dir`; `opened` are the files the app was started with.
    pub fn open(config_dir: PathBuf, opened: Vec<PathBuf>) -> Result<AppState, Error> {
        Ok(AppState {
            library: Library::open(app_config::library_config(&config_dir)?)?,
            config_dir,
            indexer_stopped: Mutex::new(None),
            server: tokio::sync::Mutex::new(Ok(None)),
            sent: Arc::default(),
            opened: Mutex::new(opened),
        })
    }
}

#[cfg(test)]
mod tests {
    /// The app keeps its configuration in Tauri's config directory, named by its identifier; the
    /// `lectern` command finds it there by the same name.
    #[test]
    fn the_command_looks_for_the_apps_configuration_where_the_app_keeps_it() {
        let conf: serde_json::Value = serde_json::from_str(include_str!("../tauri.conf.json")).unwrap();
        assert_eq!(conf["identifier"], lectern::app_config::APP_IDENTIFIER);
    }
}
