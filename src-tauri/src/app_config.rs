//! The app's own configuration file, beside the library rather than in it: which data directory
//! to open (`LECTERN_HOME` still wins when set) and whether to serve the library to other
//! programs while the app runs (`app.json` in the app's config directory).

use std::path::{Path, PathBuf};

use lectern::{Error, LibraryConfig};
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct AppConfig {
    data_dir: Option<PathBuf>,
    serve: bool,
}

fn file(config_dir: &Path) -> PathBuf {
    config_dir.join("app.json")
}

/// The config file's settings (an unreadable file has none).
fn read(config_dir: &Path) -> AppConfig {
    std::fs::read_to_string(file(config_dir))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

fn write(config_dir: &Path, config: &AppConfig) -> Result<(), Error> {
    std::fs::create_dir_all(config_dir).map_err(Error::io(config_dir))?;
    let json = serde_json::to_string_pretty(config).map_err(Error::stopped("saving the app's configuration"))?;
    let path = file(config_dir);
    std::fs::write(&path, json).map_err(Error::io(&path))
}

/// The data directory the config file names, if any.
pub fn data_dir(config_dir: &Path) -> Option<PathBuf> {
    read(config_dir).data_dir
}

/// Names `dir` as the data directory for the next start.
pub fn set_data_dir(config_dir: &Path, dir: &Path) -> Result<(), Error> {
    if !dir.is_absolute() {
        return Err(Error::Config {
            name: "data directory".into(),
            reason: format!("{} is not an absolute path", dir.display()),
        });
    }
    write(
        config_dir,
        &AppConfig {
            data_dir: Some(dir.to_path_buf()),
            ..read(config_dir)
        },
    )
}

/// Whether the app serves the library to other programs while it runs.
pub fn serves(config_dir: &Path) -> bool {
    read(config_dir).serve
}

/// Says whether the app serves the library from now on, at each start too.
pub fn set_serves(config_dir: &Path, serve: bool) -> Result<(), Error> {
    write(
        config_dir,
        &AppConfig {
            serve,
            ..read(config_dir)
        },
    )
}

/// The library configuration: the environment's, with the data directory of the config file
/// unless `LECTERN_HOME` is set ([`LibraryConfig::from_env`]).
pub fn library_config(config_dir: &Path) -> Result<LibraryConfig, Error> {
    LibraryConfig::from_env(None, data_dir(config_dir))
}
