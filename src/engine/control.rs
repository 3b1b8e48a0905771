//! Indexing control that reaches across processes. A pause, and the cancel of a document that
//! another process is reading, are written in the catalog; the indexer, whichever process runs
//! it, follows them each time it looks for work (`jobs/queue.rs`: every quarter of a second while
//! it has steps under way, else every two seconds).
//! The desktop app and `lectern index pause|resume|cancel` act through the same calls.

use std::sync::atomic::Ordering;

use super::Engine;
use crate::catalog::{DocumentId, DocumentStatus};
use crate::error::Error;

/// The catalog setting that pauses indexing: `true` while paused.
const PAUSED: &str = "indexing.paused";

/// The catalog setting saying why indexing is held until it goes on by itself (empty: it is not).
const HELD: &str = "indexing.held";

/// The catalog setting listing the documents whose reading is to stop (a JSON array of ids).
const CANCELS: &str = "indexing.cancel";

impl Engine {
    /// Pauses the library's indexing, in this process at once and in another within its next
    /// look; it stays paused, across restarts, until [`Engine::resume_indexing`].
    pub fn pause_indexing(&self) -> Result<(), Error> {
        self.catalog().set_setting(PAUSED, "true")?;
        self.pause();
        Ok(())
    }

    /// Lets indexing go on, in every process.
    pub fn resume_indexing(&self) -> Result<(), Error> {
        self.catalog().set_setting(PAUSED, "false")?;
        self.resume();
        Ok(())
    }

    /// Whether the library's indexing is paused (by any process).
    pub fn indexing_paused(&self) -> Result<bool, Error> {
        Ok(self.catalog().setting(PAUSED)?.as_deref() == Some("true"))
    }

    /// Says why the indexer holds indexing until it goes on by itself (the library's disk is
    /// full: `jobs/space.rs`), for every process's status; `None` when it goes on. The catalog
    /// may be on the full disk: where it cannot be written, this process still says it.
    pub fn hold_indexing(&self, why: Option<&str>) {
        *super::lock(&self.held) = why.map(str::to_string);
        if let Err(e) = self.catalog().set_setting(HELD, why.unwrap_or("")) {
            eprintln!("lectern: could not note in the catalog why indexing waits ({e})");
        }
    }

    /// Why indexing is held until it goes on by itself, if it is (by any process).
    pub fn indexing_held(&self) -> Result<Option<String>, Error> {
        if let Some(why) = self.held_here() {
            return Ok(Some(why));
        }
        Ok(self.catalog().setting(HELD)?.filter(|why| !why.is_empty()))
    }

    /// Why this process's indexer holds indexing, if it does: what a catalog on a disk that
    /// failed may not hold.
    pub fn held_here(&self) -> Option<String> {
        super::lock(&self.held).clone()
    }

    /// Stops indexing `id`: this process's step at once, a queued document by taking it out of
    /// the queue, a document another process reads by asking that process. Either way it ends
    /// failed, to be indexed again by hand. Returns whether there was anything to stop.
    pub fn cancel_indexing(&self, id: DocumentId) -> Result<bool, Error> {
        if self.cancel(id) || self.unqueue(id)? {
            return Ok(true);
        }
        self.catalog().locked(|catalog| {
            if catalog.document(id)?.status != DocumentStatus::Indexing {
                return Ok(false);
            }
            let mut asked = cancels(catalog.setting(CANCELS)?);
            if !asked.contains(&id) {
                asked.push(id);
            }
            catalog.set_setting(CANCELS, &serde_json::to_string(&asked).unwrap_or_default())?;
            Ok::<_, Error>(true)
        })
    }

    /// What the indexer does each time it looks for work: it pauses or goes on as the catalog
    /// says, and stops the steps other processes asked it to cancel. A cancel asked of a
    /// document this process is not indexing is dropped: no other process indexes at the same
    /// time, so the document's step has ended.
    pub fn follow_indexing_requests(&self) -> Result<(), Error> {
        let paused = self.indexing_paused()?;
        if paused != self.paused.load(Ordering::SeqCst) {
            if paused {
                self.pause();
            } else {
                self.resume();
            }
        }
        let asked = self.catalog().locked(|catalog| {
            let asked = cancels(catalog.setting(CANCELS)?);
            if !asked.is_empty() {
                catalog.set_setting(CANCELS, "[]")?;
            }
            Ok::<_, Error>(asked)
        })?;
        for id in asked {
            self.cancel(id);
        }
        Ok(())
    }
}

/// The ids of the [`CANCELS`] setting (none if it is absent or unreadable).
fn cancels(setting: Option<String>) -> Vec<DocumentId> {
    setting.and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default()
}
