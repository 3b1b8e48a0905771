//! The indexer lock: one process at a time builds indexes for a library (an advisory `flock` on
//! `indexer.lock`, released by the kernel when the process dies, however it dies).

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::Path;

use crate::error::Error;

/// Held while this process is the library's indexer.
pub struct IndexerLock {
    _file: File,
}

impl IndexerLock {
    /// Takes the lock, or `None` if another process holds it.
    pub fn try_acquire(path: &Path) -> Result<Option<IndexerLock>, Error> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(Error::io(path))?;
        // SAFETY: flock on a file descriptor we own; no memory is shared with the kernel.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(Some(IndexerLock { _file: file }));
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
            Ok(None)
        } else {
            Err(Error::io(path)(err))
        }
    }
}
