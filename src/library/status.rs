//! The state of the library at a glance: per folder the documents, pages, chunks and latest
//! addition; the documents waiting or needing attention; a stamp that says whether any of it
//! may have changed since.

use serde::Serialize;

use super::Library;
use crate::catalog::{Document, DocumentStatus, FolderStats};
use crate::error::Error;

/// What `lectern status` shows.
#[derive(Debug, Serialize)]
pub struct LibraryStatus {
    pub folders: Vec<FolderStats>,
    /// Documents queued or being indexed, with their progress.
    pub in_progress: Vec<Document>,
    /// Documents that need OCR, a password, or failed, with the reason.
    pub needing_attention: Vec<Document>,
    /// Whether indexing is paused (`lectern index resume` lets it go on).
    pub paused: bool,
    /// Why indexing waits until it goes on by itself (the library's disk is full, read-only or
    /// gone, and what to do), if it does.
    pub held: Option<String>,
}

impl Library {
    /// The library's state now.
    pub fn status(&self) -> Result<LibraryStatus, Error> {
        let paused = self.engine.indexing_paused()?;
        let held = self.engine.indexing_held()?;
        let catalog = self.engine.catalog();
        let documents = catalog.list_documents(None)?;
        let (in_progress, rest): (Vec<Document>, Vec<Document>) =
            documents.into_iter().partition(|d| !d.status.is_settled());
        Ok(LibraryStatus {
            folders: catalog.folder_stats()?,
            in_progress,
            needing_attention: rest.into_iter().filter(|d| d.status != DocumentStatus::Ready).collect(),
            paused,
            held,
        })
    }

    /// A stamp of everything the catalog holds (folders, documents, links, settings) and of why
    /// indexing is held (which a catalog on a disk that failed may not hold): unchanged, nothing
    /// read from it before has changed. `None` where that cannot be told (a library in a
    /// database); then read again.
    pub fn change_stamp(&self) -> Option<String> {
        // A hold the catalog holds changes its stamp already.
        let held = self.engine.held_here();
        let stamp = self.engine.catalog().change_stamp()?;
        Some(match held {
            Some(why) => {
                use std::hash::{Hash, Hasher};
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                why.hash(&mut hasher);
                format!("{stamp}-held-{:x}", hasher.finish())
            }
            None => stamp,
        })
    }
}
