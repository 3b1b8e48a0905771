//! The desktop app's configuration file, beside the library rather than in it: which data
//! directory to open (`LECTERN_HOME` still wins when set), which database the library lives in,
//! if any (`LECTERN_DATABASE_URL` still wins), and whether to serve the library to other programs
//! while the app runs (`app.json` in the app's config directory, which only the user may read: a
//! database URL may hold a password). The `lectern` command reads it too, so that it opens the
//! library chosen in the app.

use std::path::{Path, PathBuf};

use crate::config::LibraryConfig;
use crate::error::Error;
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct AppConfig {
    data_dir: Option<PathBuf>,
    database_url: Option<String>,
    serve: bool,
}

/// The app's identifier (`tauri.conf.json`), which names its config directory.
pub const APP_IDENTIFIER: &str = "app.lectern.desktop";

/// The app's config directory, as the app finds it (`$XDG_CONFIG_HOME/app.lectern.desktop`).
pub fn dir() -> Option<PathBuf> {
    dirs::config_dir().map(|config| config.join(APP_IDENTIFIER))
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
    std::fs::write(&path, json).map_err(Error::io(&path))?;
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).map_err(Error::io(&path))
}

/// The data directory the config file names, if any.
pub fn data_dir(config_dir: &Path) -> Option<PathBuf> {
    read(config_dir).data_dir
}

/// Names `dir` as the data directory for the next start, making it if it is not there: from then
/// on, a start that does not find it takes its drive for gone ([`library_config`]).
pub fn set_data_dir(config_dir: &Path, dir: &Path) -> Result<(), Error> {
    if !dir.is_absolute() {
        return Err(Error::Config {
            name: "data directory".into(),
            reason: format!("{} is not an absolute path", dir.display()),
        });
    }
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    write(
        config_dir,
        &AppConfig {
            data_dir: Some(dir.to_path_buf()),
            ..read(config_dir)
        },
    )
}

/// The database the config file names for the library, if any.
pub fn database_url(config_dir: &Path) -> Option<String> {
    read(config_dir).database_url
}

/// Names the database the library lives in from the next start (`None`: the data directory).
pub fn set_database_url(config_dir: &Path, url: Option<&str>) -> Result<(), Error> {
    let url = url.map(str::trim).filter(|url| !url.is_empty());
    if let Some(url) = url {
        crate::database::Server::parse(url).map_err(|reason| Error::Config {
            name: "library database".into(),
            reason,
        })?;
    }
    write(
        config_dir,
        &AppConfig {
            database_url: url.map(str::to_string),
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

/// The library configuration: the environment's, with the data directory and the database of
/// the config file unless `LECTERN_HOME` and `LECTERN_DATABASE_URL` are set
/// ([`LibraryConfig::from_env`]). The file's data directory was there when it was chosen: if it is
/// not there now, its drive is taken for gone, and [`Error::LibraryMissing`] says so rather than
/// a new, empty library being made at its mount point.
pub fn library_config(config_dir: &Path) -> Result<LibraryConfig, Error> {
    let saved = data_dir(config_dir);
    let mut config = LibraryConfig::from_env(None, saved.clone())?;
    let from_file = std::env::var_os("LECTERN_HOME").is_none_or(|home| home.is_empty());
    if from_file && saved.as_ref() == Some(&config.home) && !config.home.exists() {
        return Err(Error::LibraryMissing {
            home: config.home,
            config: file(config_dir),
        });
    }
    if config.database_url.is_none() {
        config.database_url = database_url(config_dir);
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_database_is_named_for_the_next_start_checked_and_kept_from_other_users() {
        let dir = tempfile::tempdir().unwrap();
        let refused = set_database_url(dir.path(), Some("postgres://me@db.example:5432/team?sslmode=sometimes"));
        assert!(refused.unwrap_err().to_string().contains("library database"));
        assert_eq!(database_url(dir.path()), None);

        let url = "postgres://me:secret@db.example:5432/team";
        set_database_url(dir.path(), Some(url)).unwrap();
        assert_eq!(database_url(dir.path()).as_deref(), Some(url));
        let mode = std::fs::metadata(file(dir.path())).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the URL may hold a password");
        if std::env::var_os("LECTERN_DATABASE_URL").is_none() {
            assert_eq!(library_config(dir.path()).unwrap().database_url.as_deref(), Some(url));
        }

        set_database_url(dir.path(), Some("  ")).unwrap();
        assert_eq!(database_url(dir.path()), None, "an empty URL: the data directory");
    }

    #[test]
    fn a_chosen_data_directory_is_made_and_once_gone_is_not_made_again_empty() {
        let config = tempfile::tempdir().unwrap();
        let drive = tempfile::tempdir().unwrap();
        let home = drive.path().join("library");
        assert!(
            set_data_dir(config.path(), Path::new("library")).is_err(),
            "a relative path"
        );
        set_data_dir(config.path(), &home).unwrap();
        assert!(home.is_dir(), "made when chosen");
        if std::env::var_os("LECTERN_HOME").is_some() {
            return;
        }
        assert_eq!(library_config(config.path()).unwrap().home, home);
        // Its drive unmounted: the mount point is empty.
        std::fs::remove_dir(&home).unwrap();
        let error = library_config(config.path()).unwrap_err();
        assert!(
            matches!(&error, Error::LibraryMissing { home: h, .. } if *h == home),
            "{error}"
        );
        assert!(error.to_string().contains("reconnect the drive"), "{error}");
        assert!(!home.exists(), "no library is made in its place");
    }
}
