//! The crash mark: a file the indexer writes into the library's home from a handler of the
//! signals a crash raises (a fault, an illegal instruction, an abort), and of no other. A kill
//! (SIGKILL: the OOM killer, a dead battery, a killed process group) cannot be handled and a
//! request to stop (SIGTERM, SIGINT, SIGHUP) is not a crash, so neither leaves the mark. The next
//! indexer counts the documents its predecessor left half-read against those documents only when
//! it finds the mark (`Catalog::requeue_interrupted`): a file is set aside for crashing Lectern,
//! never for being in hand when Lectern was stopped.

use std::ffi::{c_char, c_int, c_void, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

use crate::error::Error;

/// The mark's name in the library's home.
const FILE: &str = "indexer.crashed";

/// The signals a crash of this process raises.
const CRASHES: [c_int; 5] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE, libc::SIGABRT];

/// What the mark says, for a person who finds it.
const WORDS: &[u8] = b"Lectern's indexer crashed while it was indexing; the next indexer counts the documents it was reading against them.\n";

/// Where a crash writes the mark: null while no indexer runs in this process.
static ARMED: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());

/// The actions the crash signals had before this module's handler: run after it, so that a
/// crash ends the program as it would have (and the standard library still reports a stack
/// overflow).
static PREVIOUS: OnceLock<Vec<(c_int, libc::sigaction)>> = OnceLock::new();

/// Held by a running indexer: a crash of this process meanwhile leaves the mark.
pub(super) struct CrashMark(());

impl CrashMark {
    /// Whether the last indexer of the library in `home` crashed; the mark is removed.
    pub(super) fn take(home: &Path) -> Result<bool, Error> {
        let path = home.join(FILE);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(Error::io(&path)(e)),
        }
    }

    /// From now until the returned value is dropped, a crash of this process marks the library
    /// in `home`.
    pub(super) fn arm(home: &Path) -> CrashMark {
        install_handler();
        let path: PathBuf = home.join(FILE);
        // A path with a NUL byte cannot be a home's: the mark is then not armed.
        if let Ok(path) = CString::new(path.as_os_str().as_bytes()) {
            disarm(ARMED.swap(path.into_raw(), Ordering::AcqRel));
        }
        CrashMark(())
    }
}

impl Drop for CrashMark {
    fn drop(&mut self) {
        disarm(ARMED.swap(std::ptr::null_mut(), Ordering::AcqRel));
    }
}

/// Frees a path [`ARMED`] held.
fn disarm(path: *mut c_char) {
    if !path.is_null() {
        // SAFETY: every non-null pointer ARMED held came from `CString::into_raw`, and it was
        // swapped out, so no one else frees it.
        drop(unsafe { CString::from_raw(path) });
    }
}

/// Installs the crash handler once per process.
fn install_handler() {
    PREVIOUS.get_or_init(|| {
        CRASHES
            .iter()
            .filter_map(|&signal| {
                // SAFETY: an all-zero sigaction is a valid value of this plain C struct; the
                // handler only makes async-signal-safe calls (open, write, close, sigaction,
                // raise) and reads statics that are set before it is installed.
                unsafe {
                    let mut action: libc::sigaction = std::mem::zeroed();
                    action.sa_sigaction = on_crash as *const () as libc::sighandler_t;
                    action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                    libc::sigemptyset(&mut action.sa_mask);
                    let mut previous: libc::sigaction = std::mem::zeroed();
                    (libc::sigaction(signal, &action, &mut previous) == 0).then_some((signal, previous))
                }
            })
            .collect()
    });
}

/// Writes the mark, then does what the signal's earlier action did (by default: ends the
/// program as the signal does).
extern "C" fn on_crash(signal: c_int, info: *mut libc::siginfo_t, context: *mut c_void) {
    let path = ARMED.load(Ordering::Acquire);
    // SAFETY: `path` is a NUL-terminated string owned by ARMED; only async-signal-safe calls.
    unsafe {
        if !path.is_null() {
            let fd = libc::open(
                path,
                libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
                0o644,
            );
            if fd >= 0 {
                libc::write(fd, WORDS.as_ptr().cast(), WORDS.len());
                libc::close(fd);
            }
        }
    }
    let previous = PREVIOUS
        .get()
        .and_then(|all| all.iter().find(|(s, _)| *s == signal))
        .map(|(_, action)| *action);
    match previous {
        Some(action) if action.sa_sigaction == libc::SIG_IGN => {}
        Some(action) if action.sa_sigaction != libc::SIG_DFL => {
            // SAFETY: the earlier handler, called as the kernel would have called it.
            unsafe {
                if action.sa_flags & libc::SA_SIGINFO != 0 {
                    let handler = std::mem::transmute::<
                        libc::sighandler_t,
                        extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void),
                    >(action.sa_sigaction);
                    handler(signal, info, context);
                } else {
                    let handler = std::mem::transmute::<libc::sighandler_t, extern "C" fn(c_int)>(action.sa_sigaction);
                    handler(signal);
                }
            }
        }
        _ => {
            // SAFETY: back to the default action, then the signal again: the program ends as
            // it would have without this handler.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
        }
    }
}
