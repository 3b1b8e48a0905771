//! The directory a keyword index is searched through: small, dense structures (the term
//! dictionary, fast fields, field norms) are memory-mapped, while postings and the document
//! store are read with `pread` into short-lived buffers.
//!
//! A query touches a few postings lists and a few stored passages in each of hundreds of
//! documents. Mapped, every page it touches stays in the process's resident memory for as long as
//! the index is open; read, the same bytes live in the kernel's page cache, shared and reclaimable,
//! and the process keeps only what it is using. Postings are read once per term and document, so
//! their file stays open (one descriptor per document); the store is read only for the hits a
//! question returns, so it is opened per read and holds no descriptor.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Advice, Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, WatchCallback, WatchHandle, WritePtr,
};
use tantivy::HasLen;

/// Raises this process's soft limit on open files to its hard limit (at most 65,536), since a
/// search holds one descriptor per document searched; the usual soft default of 1,024 would cap
/// a library at about a thousand documents. Returns the limit now in force.
pub fn raise_open_file_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed to them.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 0;
        }
        let wanted = limit.rlim_max.min(65_536);
        if limit.rlim_cur < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                return wanted;
            }
        }
    }
    limit.rlim_cur
}

/// How a file of the index is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Mapped,
    /// `pread` through a descriptor kept open.
    Held,
    /// `pread` through a descriptor opened for each read.
    Reopened,
}

fn access(path: &Path) -> Access {
    match path.extension().and_then(|e| e.to_str()) {
        Some("idx") => Access::Held,
        Some("store") => Access::Reopened,
        _ => Access::Mapped,
    }
}

/// A read-only view of an index directory; see the module documentation.
#[derive(Debug, Clone)]
pub struct SearchDirectory {
    root: PathBuf,
    mapped: MmapDirectory,
}

impl SearchDirectory {
    pub fn open(root: &Path) -> Result<SearchDirectory, tantivy::TantivyError> {
        // Random access for what is mapped: no readahead, no fault-around of pages a query
        // never reads.
        let mapped = MmapDirectory::open_with_madvice(root, Advice::Random).map_err(tantivy::TantivyError::from)?;
        Ok(SearchDirectory {
            root: root.to_path_buf(),
            mapped,
        })
    }

    fn open_file(&self, path: &Path) -> Result<(File, usize), OpenReadError> {
        let full = self.root.join(path);
        let io_error = |e: io::Error| {
            if e.kind() == io::ErrorKind::NotFound {
                OpenReadError::FileDoesNotExist(full.clone())
            } else {
                OpenReadError::wrap_io_error(e, full.clone())
            }
        };
        let file = File::open(&full).map_err(io_error)?;
        let len = file.metadata().map_err(io_error)?.len() as usize;
        Ok((file, len))
    }
}

impl Directory for SearchDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        match access(path) {
            Access::Mapped => self.mapped.get_file_handle(path),
            Access::Held => {
                let (file, len) = self.open_file(path)?;
                Ok(Arc::new(HeldFile { file, len }))
            }
            Access::Reopened => {
                let (_, len) = self.open_file(path)?;
                Ok(Arc::new(ReopenedFile {
                    path: self.root.join(path),
                    len,
                }))
            }
        }
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.mapped.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.mapped.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.mapped.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.mapped.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.mapped.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.mapped.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.mapped.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.mapped.watch(watch_callback)
    }
}

/// Reads `range` of `file`, a file of `len` bytes, into a new buffer.
fn read_range(file: &File, len: usize, range: Range<usize>) -> io::Result<OwnedBytes> {
    if range.start > range.end || range.end > len {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("byte range {range:?} is outside a file of {len} bytes"),
        ));
    }
    let mut buffer = vec![0; range.len()];
    file.read_exact_at(&mut buffer, range.start as u64)?;
    Ok(OwnedBytes::new(buffer))
}

#[derive(Debug)]
struct HeldFile {
    file: File,
    len: usize,
}

impl FileHandle for HeldFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        read_range(&self.file, self.len, range)
    }
}

impl HasLen for HeldFile {
    fn len(&self) -> usize {
        self.len
    }
}

#[derive(Debug)]
struct ReopenedFile {
    path: PathBuf,
    len: usize,
}

impl FileHandle for ReopenedFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        read_range(&File::open(&self.path)?, self.len, range)
    }
}

impl HasLen for ReopenedFile {
    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_exact_ranges_and_rejects_ranges_past_the_end() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.idx"), b"0123456789").unwrap();
        std::fs::write(dir.path().join("a.store"), b"abcdef").unwrap();
        let directory = SearchDirectory::open(dir.path()).unwrap();
        let held = directory.get_file_handle(Path::new("a.idx")).unwrap();
        assert_eq!(held.len(), 10);
        assert_eq!(held.read_bytes(2..5).unwrap().as_slice(), b"234");
        assert!(held.read_bytes(8..11).is_err());
        let reopened = directory.get_file_handle(Path::new("a.store")).unwrap();
        assert_eq!(reopened.read_bytes(0..6).unwrap().as_slice(), b"abcdef");
        assert!(matches!(
            directory.get_file_handle(Path::new("missing.idx")),
            Err(OpenReadError::FileDoesNotExist(_))
        ));
    }
}
