//! `files/`: the imported PDFs, copied in and named by the SHA-256 of their content, so the same
//! content is stored once however often it is added. The user's original is only ever read.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::catalog::CatalogError;
use crate::error::Error;

const TEMP_PREFIX: &str = ".tmp-";

/// The content-addressed file store.
#[derive(Debug, Clone)]
pub struct FileStore {
    root: PathBuf,
}

/// A file copied into the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub content_hash: String,
    pub byte_size: u64,
}

impl FileStore {
    pub fn new(root: PathBuf) -> FileStore {
        FileStore { root }
    }

    /// Where the file with this content hash is stored. A hash comes from the catalog, so it is
    /// checked (64 hex digits) before it becomes part of a path.
    pub fn path(&self, content_hash: &str) -> Result<PathBuf, Error> {
        let is_hash = content_hash.len() == 64 && content_hash.bytes().all(|b| b.is_ascii_hexdigit());
        if !is_hash {
            return Err(CatalogError::BadContentHash(content_hash.to_string()).into());
        }
        Ok(self.root.join(format!("{content_hash}.pdf")))
    }

    /// Copies `source` in under a temporary name while hashing it. The copy becomes the stored
    /// file with [`Staged::keep`]; dropped, it is removed.
    pub fn stage(&self, source: &Path) -> Result<Staged, Error> {
        let temp = self
            .root
            .join(format!("{TEMP_PREFIX}{}-{}", std::process::id(), uuid::Uuid::new_v4()));
        match copy_hashing(source, &temp) {
            Ok(stored) => Ok(Staged {
                target: self.path(&stored.content_hash)?,
                temp,
                stored,
            }),
            Err(e) => {
                let _ = fs::remove_file(&temp);
                Err(e)
            }
        }
    }

    /// Puts `bytes`, the content of `content_hash` (from the library's database), in place;
    /// returns where. A reader never sees part of it.
    pub fn put(&self, content_hash: &str, bytes: &[u8]) -> Result<PathBuf, Error> {
        let target = self.path(content_hash)?;
        let temp = self
            .root
            .join(format!("{TEMP_PREFIX}{}-{}", std::process::id(), uuid::Uuid::new_v4()));
        let written = fs::write(&temp, bytes).and_then(|()| fs::rename(&temp, &target));
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(Error::io(&target)(e));
        }
        Ok(target)
    }

    /// Removes the stored file of this content.
    pub fn remove(&self, content_hash: &str) -> Result<(), Error> {
        let path = self.path(content_hash)?;
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path)(e)),
            _ => Ok(()),
        }
    }

    /// Removes stored files no document refers to, and partial copies whose process is gone or
    /// that are older than `grace` (a copy is staged outside any lock, so a younger one of a
    /// living process may be its import under way). Called under the catalog's write lock, when
    /// no stored file can be on its way to being recorded.
    pub fn sweep(&self, referenced: &std::collections::HashSet<String>, grace: Duration) -> Result<usize, Error> {
        let mut removed = 0;
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(Error::io(&self.root)(e)),
        };
        for entry in entries {
            let entry = entry.map_err(Error::io(&self.root))?;
            let name = entry.file_name().to_string_lossy().to_string();
            let remove = if let Some(temp) = name.strip_prefix(TEMP_PREFIX) {
                let old = entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| SystemTime::now().duration_since(t).ok())
                    .is_some_and(|age| age >= grace);
                old || !copier_alive(temp)
            } else {
                !name.strip_suffix(".pdf").is_some_and(|hash| referenced.contains(hash))
            };
            if remove {
                fs::remove_file(entry.path()).map_err(Error::io(entry.path()))?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

/// Whether the process that named the partial copy `.tmp-<pid>-<uuid>` may still be copying.
fn copier_alive(temp: &str) -> bool {
    let Some(pid) = temp.split('-').next().and_then(|pid| pid.parse::<libc::pid_t>().ok()) else {
        return true;
    };
    // SAFETY: signal 0 only asks whether the process exists.
    let found = unsafe { libc::kill(pid, 0) } == 0;
    found || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// A file copied into the store under a temporary name, hashed, not yet in place.
#[derive(Debug)]
pub struct Staged {
    temp: PathBuf,
    target: PathBuf,
    pub stored: Stored,
}

impl Staged {
    /// Where the copy is until it is kept.
    pub fn path(&self) -> &Path {
        &self.temp
    }
    /// Puts the copy in place (or drops it if that content is already stored). Done under the
    /// catalog's write lock together with recording the document, so that a removal of the same
    /// content in another process cannot come between the two.
    pub fn keep(self) -> Result<Stored, Error> {
        if self.target.exists() {
            fs::remove_file(&self.temp).map_err(Error::io(&self.temp))?;
        } else {
            fs::rename(&self.temp, &self.target).map_err(Error::io(&self.target))?;
        }
        Ok(self.stored.clone())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.temp);
    }
}

/// The SHA-256 (hex) of the file at `path`, as [`FileStore::stage`] would name it.
pub fn hash_file(path: &Path) -> Result<String, Error> {
    let mut input = File::open(path).map_err(Error::io(path))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = input.read(&mut buffer).map_err(Error::io(path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Copies `source` to `target`, flushing it to disk, and returns its SHA-256 and size.
fn copy_hashing(source: &Path, target: &Path) -> Result<Stored, Error> {
    let mut input = File::open(source).map_err(Error::io(source))?;
    let mut output = File::create(target).map_err(Error::io(target))?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut size = 0u64;
    loop {
        let n = input.read(&mut buffer).map_err(Error::io(source))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        output.write_all(&buffer[..n]).map_err(Error::io(target))?;
        size += n as u64;
    }
    output.sync_all().map_err(Error::io(target))?;
    Ok(Stored {
        content_hash: hex::encode(hasher.finalize()),
        byte_size: size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_content_hash_names_a_stored_file() {
        let store = FileStore::new(PathBuf::from("/library/files"));
        let hash = "a".repeat(64);
        assert_eq!(
            store.path(&hash).unwrap(),
            Path::new("/library/files").join(format!("{hash}.pdf"))
        );
        for bad in [
            "../../../etc/passwd",
            "",
            &"a".repeat(63),
            &format!("{}/x", "a".repeat(62)),
            &"g".repeat(64),
        ] {
            let e = store.path(bad).unwrap_err();
            assert!(e.to_string().contains("not a content hash"), "{bad}: {e}");
            assert!(store.remove(bad).is_err());
        }
    }
}
