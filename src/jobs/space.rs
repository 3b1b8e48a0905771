//! Room to index. Indexing writes the library's copies, indexes and catalog on the disk of its
//! data directory. When that disk runs short, indexing waits rather than fail documents: before
//! each step it checks that the disk keeps [`crate::LibraryConfig::min_free`] free beyond room
//! for the document (three times its size: its index and the temporary files of its reading), and
//! a step that failed for lack of space all the same (another program filled the disk) puts its
//! document back in the queue. Either way indexing is held, what to free is said in the library's
//! status, and it goes on by itself once the disk has the room. What was indexed before is never
//! touched: an index is published whole or not at all (`index/dirs.rs`).

use std::io;
use std::path::Path;

use crate::engine::Engine;

/// Free bytes on the filesystem holding `dir`, for a program that is not the superuser's.
pub(crate) fn free_space(dir: &Path) -> io::Result<u64> {
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: a NUL-terminated path, and a buffer statvfs fills when it returns 0.
    if unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: filled, as statvfs returned 0.
    let stat = unsafe { stat.assume_init() };
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// Whether `error` says a write failed for lack of space: ENOSPC or EDQUOT from the system, or
/// the words of one passed on as text (by the PDF worker, LanceDB, or SQLite's "database or disk
/// is full").
pub(crate) fn out_of_space(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(e) = next {
        let kind = e.downcast_ref::<io::Error>().map(io::Error::kind);
        if matches!(kind, Some(io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded)) {
            return true;
        }
        next = e.source();
    }
    let text = error.to_string().to_lowercase();
    [
        "no space left on device",
        "disk quota exceeded",
        "database or disk is full",
        "os error 28)",
        "os error 122)",
    ]
    .iter()
    .any(|words| text.contains(words))
}

/// Whether indexing may take its next step: held while the library's disk lacks the room.
#[derive(Default)]
pub(super) struct Room {
    /// The free bytes the disk must have for indexing to go on, while it is held.
    held: Option<u64>,
}

impl Room {
    /// Whether a step of a document of `size` bytes may start now. While the disk lacks room
    /// for it, indexing is held, and the library's status says what to free; once the disk has
    /// the room, the hold is lifted.
    pub fn allows(&mut self, engine: &Engine, size: u64) -> bool {
        // A disk whose free space cannot be told: a failed write will tell.
        let Ok(free) = free_space(&engine.config().home) else {
            return true;
        };
        let needed = (engine.config().min_free + 3 * size).max(self.held.unwrap_or(0));
        if free >= needed {
            if self.held.take().is_some() {
                engine.hold_indexing(None);
            }
            return true;
        }
        self.hold(engine, free, needed);
        false
    }

    /// A step failed for lack of space: indexing is held until the disk has the floor's room
    /// beyond what it has now.
    pub fn ran_out(&mut self, engine: &Engine) {
        let free = free_space(&engine.config().home).unwrap_or(0);
        self.hold(engine, free, free + engine.config().min_free.max(16 << 20));
    }

    fn hold(&mut self, engine: &Engine, free: u64, needed: u64) {
        if self.held.replace(needed).is_none() {
            engine.hold_indexing(Some(&shortage(&engine.config().home, free, needed)));
        }
    }
}

/// What the library's status says while indexing is held for lack of space.
fn shortage(home: &Path, free: u64, needed: u64) -> String {
    let mb = |bytes: u64| format!("{} MB", bytes.div_ceil(1 << 20));
    format!(
        "indexing waits: the disk holding the library ({}) is full, {} free where indexing needs {}. \
         Free {} there, or move the library to a larger disk; indexing goes on by itself",
        home.display(),
        mb(free),
        mb(needed),
        mb(needed.saturating_sub(free)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_found_no_space_is_told_from_other_failures() {
        let full = io::Error::from_raw_os_error(libc::ENOSPC);
        assert!(out_of_space(&full));
        assert!(out_of_space(&io::Error::from_raw_os_error(libc::EDQUOT)));
        assert!(!out_of_space(&io::Error::from_raw_os_error(libc::EACCES)));
        // As text, from a worker or a library that kept only the words.
        let said = io::Error::other(format!("writing the index failed: {full}"));
        assert!(out_of_space(&said));
        assert!(out_of_space(&io::Error::other("database or disk is full")));
        assert!(!out_of_space(&io::Error::other("a page of 28 characters")));
    }

    #[test]
    fn the_free_space_of_a_directory_is_its_filesystems() {
        let dir = tempfile::tempdir().unwrap();
        assert!(free_space(dir.path()).unwrap() > 0);
        assert!(free_space(&dir.path().join("gone")).is_err());
    }

    #[test]
    fn the_status_says_how_much_to_free() {
        let said = shortage(Path::new("/media/usb/lectern"), 10 << 20, 138 << 20);
        assert!(said.contains("(/media/usb/lectern) is full, 10 MB free where indexing needs 138 MB"));
        assert!(said.contains("Free 128 MB there"));
    }
}
