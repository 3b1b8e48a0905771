//! The watcher: one thread that syncs linked directories when they change.
//!
//! At start it syncs every link (catching up on what changed while Lectern was closed), then
//! watches each available directory recursively with `notify`. Changes are gathered until the
//! directory has been quiet for [`QUIET`] (a burst of 500 copied files is one sync, not 500), and
//! a link with files still being written, or whose directory is missing, is looked at again every
//! [`RECHECK`]. Links added or removed meanwhile (by the CLI, say) are noticed at the same pace.
//! Idle, the thread wakes four times a second to look at an empty channel.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

use super::sync::sync_link;
use crate::catalog::LinkId;
use crate::engine::Engine;
use crate::error::Error;

/// How long a directory must be quiet before its changes are synced.
pub const QUIET: Duration = Duration::from_millis(300);
/// How often links with pending files or a missing directory, and the list of links, are re-read.
pub const RECHECK: Duration = Duration::from_secs(1);

/// A running watcher; dropping it (or [`Watcher::stop`]) stops the thread.
pub struct Watcher {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Starts watching the library's linked directories on a thread of its own.
    pub(crate) fn start(engine: Arc<Engine>) -> Result<Watcher, Error> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("lectern-watch".into())
            .spawn(move || run(&engine, &flag))
            .map_err(Error::stopped("the directory watcher"))?;
        Ok(Watcher {
            stop,
            thread: Some(thread),
        })
    }

    /// Stops the thread and waits for it.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.halt();
    }
}

fn report_error(link: &str, error: &Error) {
    eprintln!("lectern: syncing {link}: {error}");
}

fn run(engine: &Engine, stop: &AtomicBool) {
    let (tx, rx) = channel::<PathBuf>();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // Reading a directory or a file is an access event: the sync's own reads must not wake it.
        let Ok(event) = event else { return };
        if !matches!(event.kind, notify::EventKind::Access(_)) {
            for path in event.paths {
                let _ = tx.send(path);
            }
        }
    });
    let mut watcher: Option<RecommendedWatcher> = match watcher {
        Ok(w) => Some(w),
        Err(e) => {
            eprintln!("lectern: cannot watch directories ({e}); linked folders sync every second instead");
            None
        }
    };
    // Link id -> its directory, for the links being watched now.
    let mut watched: HashMap<LinkId, PathBuf> = HashMap::new();
    let mut dirty: HashSet<LinkId> = engine
        .catalog()
        .links_here()
        .unwrap_or_default()
        .iter()
        .map(|l| l.id)
        .collect();
    let mut last_event = Instant::now() - QUIET;
    let mut last_check = Instant::now() - RECHECK;
    while !stop.load(Ordering::Relaxed) {
        match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(path) => {
                for (id, root) in &watched {
                    if path.starts_with(root) {
                        dirty.insert(*id);
                    }
                }
                last_event = Instant::now();
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(Duration::from_millis(250)),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if last_check.elapsed() >= RECHECK {
            last_check = Instant::now();
            let links = engine.catalog().links_here().unwrap_or_default();
            let ids: HashSet<LinkId> = links.iter().map(|l| l.id).collect();
            for (id, root) in watched.clone() {
                if !ids.contains(&id) {
                    if let Some(w) = watcher.as_mut() {
                        let _ = w.unwatch(&root);
                    }
                    watched.remove(&id);
                }
            }
            for link in &links {
                let unseen = !watched.contains_key(&link.id);
                if unseen || link.pending > 0 || !link.available || watcher.is_none() {
                    dirty.insert(link.id);
                }
            }
        }
        if dirty.is_empty() || last_event.elapsed() < QUIET {
            continue;
        }
        for id in std::mem::take(&mut dirty) {
            let Ok(link) = engine.catalog().link(id) else { continue };
            // A fault in one sync is reported; it never ends the watching of every link.
            let synced = catch_unwind(AssertUnwindSafe(|| sync_link(engine, id, &|_| {}))).unwrap_or_else(|panic| {
                Err(Error::Stopped {
                    what: "syncing a linked directory",
                    reason: crate::panic::message(panic.as_ref()),
                })
            });
            match synced {
                Ok(report) if report.available => {
                    if let (Entry::Vacant(slot), Some(w)) = (watched.entry(id), watcher.as_mut()) {
                        let root = PathBuf::from(&link.path);
                        if w.watch(&root, RecursiveMode::Recursive).is_ok() {
                            slot.insert(root);
                        }
                    }
                }
                Ok(_) => {
                    // The directory is gone: its watch went with it; watch it again once it is back.
                    if let Some(root) = watched.remove(&id) {
                        if let Some(w) = watcher.as_mut() {
                            let _ = w.unwatch(&root);
                        }
                    }
                }
                Err(e) => report_error(&link.path, &e),
            }
        }
    }
}
