//! The library's disk, as indexing needs it: there, writable, and with room. Indexing writes the
//! library's copies, indexes and catalog in its data directory. When that directory goes away (its
//! drive unmounted or pulled), turns read-only, or its disk runs short, indexing waits rather than
//! fail documents or take their files for lost: before each step it checks that the directory is
//! there and writable and keeps [`crate::LibraryConfig::min_free`] free beyond room for the
//! document (three times its size: its index and the temporary files of its reading), and a step
//! that failed all the same (another program filled the disk, the drive went meanwhile) puts its
//! document back in the queue. Either way indexing is held, the library's status says why and
//! what to do, and it goes on by itself once the disk is back or has the room. What was indexed
//! before is never touched: an index is published whole or not at all (`index/dirs.rs`).

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::engine::Engine;
use crate::error::Error;

/// Why the library's data directory cannot be written, if it cannot: it is gone (the directories
/// every library holds are not there: its drive was unmounted or removed), or read-only.
pub(crate) fn away(home: &Path) -> Option<Error> {
    let there = ["files", "indexes"].iter().all(|dir| home.join(dir).is_dir());
    if !there {
        return Some(Error::LibraryGone {
            home: home.to_path_buf(),
        });
    }
    read_only(home).unwrap_or(false).then(|| Error::LibraryReadOnly {
        home: home.to_path_buf(),
    })
}

/// Whether the filesystem holding `dir` is mounted read-only.
fn read_only(dir: &Path) -> io::Result<bool> {
    Ok(statvfs(dir)?.f_flag & libc::ST_RDONLY != 0)
}

/// Free bytes on the filesystem holding `dir`, for a program that is not the superuser's.
pub(crate) fn free_space(dir: &Path) -> io::Result<u64> {
    let stat = statvfs(dir)?;
    Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
}

fn statvfs(dir: &Path) -> io::Result<libc::statvfs> {
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: a NUL-terminated path, and a buffer statvfs fills when it returns 0.
    if unsafe { libc::statvfs(path.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: filled, as statvfs returned 0.
    Ok(unsafe { stat.assume_init() })
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

/// How long a hold after a write found no space lasts at most: the space a write needed may be
/// on another disk (a database server's), whose free space Lectern cannot see, so the step is
/// tried again after it.
const FULL_RETRY: Duration = Duration::from_secs(60);

/// Whether indexing may take its next step: held while the library's disk is away or lacks the
/// room.
#[derive(Default)]
pub(super) struct Room {
    /// What holds indexing ("gone", "read-only", "full"), while something does: the status is
    /// written again only when that changes.
    held: Option<&'static str>,
    /// The free bytes the disk must have for indexing to go on, and since when, after a write
    /// found no space.
    needed: Option<(u64, Instant)>,
}

impl Room {
    /// Whether a step of a document of `size` bytes may start now. While the library's data
    /// directory is away, or its disk lacks room for the step, indexing is held and the
    /// library's status says why; once it is back and has the room, the hold is lifted.
    pub fn allows(&mut self, engine: &Engine, size: u64) -> bool {
        let home = &engine.config().home;
        if let Some(away) = away(home) {
            let kind = match away {
                Error::LibraryReadOnly { .. } => "read-only",
                _ => "gone",
            };
            self.hold(engine, kind, away.to_string());
            return false;
        }
        self.needed = self.needed.filter(|(_, since)| since.elapsed() < FULL_RETRY);
        let needed = (engine.config().min_free + 3 * size).max(self.needed.map_or(0, |(n, _)| n));
        // A disk whose free space cannot be told: a failed write will tell.
        match free_space(home) {
            Ok(free) if free < needed => {
                self.hold(engine, "full", shortage(home, free, needed));
                false
            }
            _ => {
                self.needed = None;
                if self.held.take().is_some() {
                    engine.hold_indexing(None);
                }
                true
            }
        }
    }

    /// A step failed for lack of space: indexing is held until the disk has the floor's room
    /// beyond what it has now, or for [`FULL_RETRY`].
    pub fn ran_out(&mut self, engine: &Engine) {
        let home = &engine.config().home;
        let free = free_space(home).unwrap_or(0);
        let needed = free + engine.config().min_free.max(16 << 20);
        self.needed = Some((needed, Instant::now()));
        self.hold(engine, "full", shortage(home, free, needed));
    }

    fn hold(&mut self, engine: &Engine, kind: &'static str, why: String) {
        if self.held != Some(kind) {
            eprintln!("lectern: {why}");
            engine.hold_indexing(Some(&why));
            self.held = Some(kind);
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
    fn a_data_directory_without_its_folders_is_gone() {
        let home = tempfile::tempdir().unwrap();
        assert!(matches!(away(home.path()), Some(Error::LibraryGone { .. })));
        for dir in ["files", "indexes"] {
            std::fs::create_dir(home.path().join(dir)).unwrap();
        }
        assert!(away(home.path()).is_none());
    }

    #[test]
    fn the_status_says_how_much_to_free() {
        let said = shortage(Path::new("/media/usb/lectern"), 10 << 20, 138 << 20);
        assert!(said.contains("(/media/usb/lectern) is full, 10 MB free where indexing needs 138 MB"));
        assert!(said.contains("Free 128 MB there"));
    }
}
