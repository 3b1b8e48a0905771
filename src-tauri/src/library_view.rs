//! What the sidebar shows, sent to the window as it changes: the whole library the first time,
//! then only the documents added, changed or gone since the view the window holds, and nothing
//! at all while the catalog's change stamp stands still. A window that looks every second while
//! 10,000 documents are indexed gets the few that moved, not 6 MB of JSON.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

use lectern::catalog::Link;
use lectern::{Document, DocumentId, Error, Folder, FolderStats, Library};
use serde::Serialize;

/// Everything the sidebar shows.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LibraryView {
    folders: Vec<Folder>,
    /// Each folder's totals, subfolders included, counted by the catalog.
    totals: Vec<FolderStats>,
    documents: Vec<Document>,
    /// Directories linked to folders, with their sync state.
    links: Vec<Link>,
    /// Whether indexing is paused (the queue waits until it is resumed).
    paused: bool,
    /// Why indexing waits until it goes on by itself (the library's disk is full, read-only or
    /// gone, and what to do), if it does.
    held: Option<String>,
    /// What to give `library_state` next: it answers with what changed since, or `null` if
    /// nothing has (`null` itself when that cannot be told, for a library in a database).
    stamp: Option<String>,
}

/// The library as it changed since the view the window holds.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LibraryUpdate {
    /// The library; with `partial`, its documents are only those added or changed.
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    view: LibraryView,
    /// Whether `documents` holds only the documents added or changed since the view stamped
    /// `known` (else every document).
    partial: bool,
    /// With `partial`, the documents gone since.
    removed: Vec<DocumentId>,
}

/// The documents last sent to the window, with the stamp of the view they were part of.
#[derive(Default)]
pub struct Sent(Mutex<Option<(String, HashMap<DocumentId, Document>)>>);

impl Sent {
    /// The library as it changed since the view stamped `known` (everything, without one or
    /// when that view is not the last one sent); `None` if nothing has changed.
    pub fn update(&self, library: &Library, known: Option<String>) -> Result<Option<LibraryUpdate>, Error> {
        // Taken first: a change made while the rest is read shows as a change next time.
        let stamp = library.change_stamp();
        if known.is_some() && known == stamp {
            return Ok(None);
        }
        let totals = library.folder_stats()?;
        let now = library.documents(None, true)?;
        let mut sent = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let before = sent
            .take()
            .filter(|(at, _)| known.as_ref() == Some(at))
            .map(|(_, docs)| docs);
        let (documents, removed) = match &before {
            Some(before) => {
                let ids: HashSet<DocumentId> = now.iter().map(|d| d.id).collect();
                let changed = now.iter().filter(|d| before.get(&d.id) != Some(*d)).cloned().collect();
                (changed, before.keys().filter(|id| !ids.contains(id)).copied().collect())
            }
            None => (now.clone(), Vec::new()),
        };
        if let Some(stamp) = &stamp {
            *sent = Some((stamp.clone(), now.into_iter().map(|d| (d.id, d)).collect()));
        }
        Ok(Some(LibraryUpdate {
            view: LibraryView {
                folders: totals.iter().map(|t| t.folder.clone()).collect(),
                totals,
                documents,
                links: library.links()?,
                paused: library.indexing_paused()?,
                held: library.indexing_held()?,
                stamp,
            },
            partial: before.is_some(),
            removed,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use lectern::LibraryConfig;

    use super::*;

    fn pdf(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/pdfs").join(name)
    }

    #[test]
    fn the_window_is_sent_the_library_then_what_changed_then_nothing() {
        let home = tempfile::tempdir().unwrap();
        let mut config = LibraryConfig::new(home.path().to_path_buf());
        config.keyring = false;
        let library = Library::open(config).unwrap();
        library
            .add(&[pdf("text-libreoffice-writer-1p.pdf")], "Personal Knowledge")
            .unwrap();
        let sent = Sent::default();

        let first = sent.update(&library, None).unwrap().unwrap();
        assert!(!first.partial);
        assert_eq!(first.view.documents.len(), 1);
        let stamp = first.view.stamp.clone();
        assert!(stamp.is_some());
        assert!(
            sent.update(&library, stamp.clone()).unwrap().is_none(),
            "nothing changed"
        );

        // A folder made: the folders are sent again, no document.
        library.create_folder("Work").unwrap();
        let second = sent.update(&library, stamp).unwrap().unwrap();
        assert!(second.partial);
        assert!(second.view.documents.is_empty() && second.removed.is_empty());
        assert!(second.view.folders.iter().any(|f| f.path == "Work"));

        // A document added and one moved: those two; then the moved one deleted: its id.
        let moved = first.view.documents[0].id;
        library.add(&[pdf("text-word-mac-lorem-ipsum-2p.pdf")], "Work").unwrap();
        library.move_document(moved, "Work").unwrap();
        let third = sent.update(&library, second.view.stamp.clone()).unwrap().unwrap();
        let mut names: Vec<&str> = third.view.documents.iter().map(|d| d.file_name.as_str()).collect();
        names.sort();
        assert_eq!(
            names,
            ["text-libreoffice-writer-1p.pdf", "text-word-mac-lorem-ipsum-2p.pdf"]
        );
        assert!(third.partial && third.removed.is_empty());
        library.delete_document(moved).unwrap();
        let fourth = sent.update(&library, third.view.stamp.clone()).unwrap().unwrap();
        assert_eq!(
            (fourth.partial, fourth.view.documents.len(), fourth.removed.clone()),
            (true, 0, vec![moved])
        );

        // A stamp that is not the last one sent: everything again.
        let again = sent.update(&library, first.view.stamp.clone()).unwrap().unwrap();
        assert_eq!((again.partial, again.view.documents.len()), (false, 1));
    }
}
