//! The app's own configuration file, beside the library rather than in it: which data directory
//! to open (`app.json` in the app's config directory). `LECTERN_HOME` still wins when set.

use std::path::{Path, PathBuf};

use lectern::{Error, LibraryConfig};
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct AppConfig {
    data_dir: Option<PathBuf>,
}

fn file(config_dir: &Path) -> PathBuf {
    config_dir.join("app.json")
}

/// The data directory the config file names, if any (an unreadable file names none).
pub fn data_dir(config_dir: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file(config_dir)).ok()?;
    serde_json::from_str::<AppConfig>(&text).ok()?.data_dir
}

/// Names `dir` as the data directory for the next start.
pub fn set_data_dir(config_dir: &Path, dir: &Path) -> Result<(), Error> {
    if !dir.is_absolute() {
        return Err(Error::Config {
            name: "data directory".into(),
            reason: format!("{} is not an absolute path", dir.display()),
        });
    }
    std::fs::create_dir_all(config_dir).map_err(Error::io(config_dir))?;
    let json = serde_json::to_string_pretty(&AppConfig {
        data_dir: Some(dir.to_path_buf()),
    })
    .map_err(Error::stopped("saving the app's configuration"))?;
    let path = file(config_dir);
    std::fs::write(&path, json).map_err(Error::io(&path))
}

/// The library configuration: the environment's, with the data directory of the config file
/// unless `LECTERN_HOME` is set ([`LibraryConfig::from_env`]).
pub fn library_config(config_dir: &Path) -> Result<LibraryConfig, Error> {
    LibraryConfig::from_env(None, data_dir(config_dir))
}
