//! The `indexes/` directory: one complete index per document id, built under a temporary name and
//! renamed into place (or exchanged with the index it replaces), removed by renaming it away
//! first. Whatever instant a process dies at, a directory named after a document id is either
//! complete or absent. Beside them, `.embed-<id>` keeps the vectors of a document made so far,
//! and `.ocr-<id>` its pages read by OCR so far, so that a restart goes on from there.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::embedding::scratch_is_wanted;
use super::manifest::Manifest;
use super::wide::summaries;
use super::IndexError;
use crate::catalog::DocumentId;

const TEMP_PREFIX: &str = ".tmp-";
const TRASH_PREFIX: &str = ".trash-";
const SCRATCH_PREFIX: &str = ".embed-";
const OCR_PREFIX: &str = ".ocr-";

/// What a start-up sweep removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Sweep {
    pub temporary: usize,
    pub orphans: usize,
}

/// The `indexes/` directory of a library.
#[derive(Debug, Clone)]
pub struct IndexDirs {
    root: PathBuf,
}

impl IndexDirs {
    pub fn new(root: PathBuf) -> IndexDirs {
        IndexDirs { root }
    }

    /// The directory that holds every index.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the finished index of `id` lives.
    pub fn dir(&self, id: DocumentId) -> PathBuf {
        self.root.join(id.to_string())
    }

    /// The manifest of the complete index of `id`, if there is one.
    pub fn manifest(&self, id: DocumentId) -> Option<Manifest> {
        Manifest::read(&self.dir(id)).ok()
    }

    /// A fresh, empty temporary directory to build the index of `id` in.
    pub fn begin(&self, id: DocumentId) -> Result<PathBuf, IndexError> {
        let temp = self.root.join(format!("{TEMP_PREFIX}{id}"));
        if temp.exists() {
            fs::remove_dir_all(&temp).map_err(IndexError::io(&temp))?;
        }
        fs::create_dir_all(&temp).map_err(IndexError::io(&temp))?;
        Ok(temp)
    }

    /// Flushes the finished build in `temp` to disk and puts it in place as the index of `id`,
    /// replacing in one step any older index of that id.
    pub fn commit(&self, id: DocumentId, temp: &Path) -> Result<(), IndexError> {
        sync_tree(temp)?;
        let target = self.dir(id);
        if target.exists() {
            return self.swap_in(id, temp);
        }
        self.changing(id, || {
            fs::rename(temp, &target).map_err(IndexError::io(&target))?;
            sync_dir(&self.root)
        })
    }

    /// Runs `change` on the index directory of `id`, uncovering the document in the library's
    /// wide index before and after it (see `wide/summaries.rs`).
    fn changing<T>(&self, id: DocumentId, change: impl FnOnce() -> Result<T, IndexError>) -> Result<T, IndexError> {
        summaries::uncover(&self.root, id)?;
        let changed = change();
        summaries::uncover(&self.root, id)?;
        changed
    }

    /// The documents with an index directory.
    pub fn document_ids(&self) -> Result<Vec<DocumentId>, IndexError> {
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(IndexError::io(&self.root)(e)),
        };
        let mut ids = Vec::new();
        for entry in entries {
            let entry = entry.map_err(IndexError::io(&self.root))?;
            if let Ok(id) = entry.file_name().to_string_lossy().parse::<DocumentId>() {
                ids.push(id);
            }
        }
        ids.sort();
        Ok(ids)
    }

    /// Publishes the finished build in `temp` in place of the index of `id`, as
    /// [`IndexDirs::commit`] does; fails, publishing nothing, if `id` has no index any more
    /// (deleted meanwhile).
    pub fn replace(&self, id: DocumentId, temp: &Path) -> Result<(), IndexError> {
        sync_tree(temp)?;
        self.swap_in(id, temp)
    }

    /// Exchanges the directories `temp` and the index of `id`, then removes the old index.
    fn swap_in(&self, id: DocumentId, temp: &Path) -> Result<(), IndexError> {
        self.changing(id, || self.exchange_in(id, temp))
    }

    fn exchange_in(&self, id: DocumentId, temp: &Path) -> Result<(), IndexError> {
        let target = self.dir(id);
        match exchange(temp, &target) {
            // `temp` now holds the old index: removed (or swept at the next start if we stop).
            Ok(()) => {
                sync_dir(&self.root)?;
                remove_any(temp)
            }
            // A file system that cannot exchange: the old index goes, then the new one comes,
            // and a query in between finds none for a moment.
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) && target.exists() => {
                self.remove_dir(id)?;
                fs::rename(temp, &target).map_err(IndexError::io(&target))?;
                sync_dir(&self.root)
            }
            Err(e) => Err(IndexError::io(&target)(e)),
        }
    }

    /// Where the vectors of `id` made so far are kept.
    pub fn scratch(&self, id: DocumentId) -> PathBuf {
        self.root.join(format!("{SCRATCH_PREFIX}{id}"))
    }

    /// Where the pages of `id` read by OCR so far are kept.
    pub fn ocr_pages(&self, id: DocumentId) -> PathBuf {
        self.root.join(format!("{OCR_PREFIX}{id}"))
    }

    /// Removes the pages of `id` read by OCR so far, if any: for a document that is gone.
    pub fn remove_ocr_pages(&self, id: DocumentId) -> Result<(), IndexError> {
        let dir = self.ocr_pages(id);
        if !dir.exists() {
            return Ok(());
        }
        remove_any(&dir)
    }

    /// Removes the index of `id`, if any: renamed away first, so it is never seen half-deleted.
    pub fn remove(&self, id: DocumentId) -> Result<(), IndexError> {
        self.changing(id, || self.remove_dir(id))
    }

    fn remove_dir(&self, id: DocumentId) -> Result<(), IndexError> {
        let dir = self.dir(id);
        if !dir.exists() {
            return Ok(());
        }
        let trash = self.root.join(format!("{TRASH_PREFIX}{id}-{}", uuid::Uuid::new_v4()));
        fs::rename(&dir, &trash).map_err(IndexError::io(&dir))?;
        fs::remove_dir_all(&trash).map_err(IndexError::io(&trash))
    }

    /// Builds the index of `to` from the complete index of `from` without extracting or embedding
    /// again: files are hard-linked (copied where links are impossible). Both stay independent:
    /// index files are never modified in place, only replaced.
    pub fn clone_index(&self, from: DocumentId, to: DocumentId) -> Result<Manifest, IndexError> {
        let source = self.dir(from);
        let manifest = Manifest::read(&source)?;
        let temp = self.begin(to)?;
        link_tree(&source, &temp)?;
        self.commit(to, &temp)?;
        Ok(manifest)
    }

    /// Removes temporary and trashed directories, and indexes of documents not in `known`.
    pub fn sweep(&self, known: &HashSet<DocumentId>) -> Result<Sweep, IndexError> {
        let mut sweep = Sweep::default();
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(sweep),
            Err(e) => return Err(IndexError::io(&self.root)(e)),
        };
        for entry in entries {
            let entry = entry.map_err(IndexError::io(&self.root))?;
            let name = entry.file_name().to_string_lossy().to_string();
            let path = entry.path();
            if name.starts_with(TEMP_PREFIX) || name.starts_with(TRASH_PREFIX) {
                remove_any(&path)?;
                sweep.temporary += 1;
            } else if let Some(id) = name.strip_prefix(SCRATCH_PREFIX) {
                let wanted = id
                    .parse::<DocumentId>()
                    .is_ok_and(|id| known.contains(&id) && scratch_is_wanted(&path, &self.dir(id)));
                if !wanted {
                    remove_any(&path)?;
                    sweep.temporary += 1;
                }
            } else if let Some(id) = name.strip_prefix(OCR_PREFIX) {
                if !id.parse::<DocumentId>().is_ok_and(|id| known.contains(&id)) {
                    remove_any(&path)?;
                    sweep.temporary += 1;
                }
            } else if name == summaries::DIR {
                // The library's wide index, kept by its own rules.
            } else if !name.parse::<DocumentId>().is_ok_and(|id| known.contains(&id)) {
                remove_any(&path)?;
                sweep.orphans += 1;
            }
        }
        Ok(sweep)
    }
}

fn remove_any(path: &Path) -> Result<(), IndexError> {
    let result = if path.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    result.map_err(IndexError::io(path))
}

/// Exchanges the directories `a` and `b` atomically (`renameat2` with `RENAME_EXCHANGE`).
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Hard-links (or copies) every file under `from` into the same place under `to`.
pub(super) fn link_tree(from: &Path, to: &Path) -> Result<(), IndexError> {
    for entry in fs::read_dir(from).map_err(IndexError::io(from))? {
        let entry = entry.map_err(IndexError::io(from))?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type().map_err(IndexError::io(entry.path()))?;
        if kind.is_dir() {
            fs::create_dir_all(&target).map_err(IndexError::io(&target))?;
            link_tree(&entry.path(), &target)?;
        } else if fs::hard_link(entry.path(), &target).is_err() {
            fs::copy(entry.path(), &target).map_err(IndexError::io(&target))?;
        }
    }
    Ok(())
}

/// fsyncs every file and directory under `dir`, so that a rename after it publishes durable data.
fn sync_tree(dir: &Path) -> Result<(), IndexError> {
    for entry in fs::read_dir(dir).map_err(IndexError::io(dir))? {
        let entry = entry.map_err(IndexError::io(dir))?;
        let path = entry.path();
        if entry.file_type().map_err(IndexError::io(&path))?.is_dir() {
            sync_tree(&path)?;
        } else {
            fs::File::open(&path)
                .and_then(|f| f.sync_all())
                .map_err(IndexError::io(&path))?;
        }
    }
    sync_dir(dir)
}

fn sync_dir(dir: &Path) -> Result<(), IndexError> {
    fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(IndexError::io(dir))
}
