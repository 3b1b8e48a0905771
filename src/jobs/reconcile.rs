//! Start-up reconciliation, run by the process that takes the indexer lock: whatever instant the
//! previous indexer died at, the library returns to a state where every document is either ready
//! with a complete index (with or without vectors, as its record says) or queued to get one, and
//! the database the library shares its indexes in (if any) holds the same version of each.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde::Serialize;

use crate::catalog::{DocumentId, DocumentStatus};
use crate::engine::Engine;
use crate::error::Error;

use super::task::publish;
use super::IndexerLock;

/// Partial copies younger than this are left alone: another process may be importing them.
const FILE_GRACE: Duration = Duration::from_secs(600);

/// What reconciliation repaired.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct Reconciled {
    /// Documents that were being indexed when the last indexer stopped, queued again.
    pub interrupted: usize,
    /// Documents set aside (failed) because the indexer crashed reading them twice in a row.
    pub set_aside: usize,
    /// Temporary (half-built or half-deleted) index directories removed.
    pub temporary_removed: usize,
    /// Index directories whose document no longer exists, removed.
    pub orphans_removed: usize,
    /// Ready documents whose index was missing, queued again.
    pub requeued_missing: usize,
    /// Documents whose stored file is gone.
    pub files_missing: usize,
    /// Indexes on this machine published in the library's database, which lacked them.
    pub shared: usize,
}

/// Brings catalog, `indexes/` and `files/` back in line with each other, as the indexer `lock`
/// says this process is; `crashed`: the last indexer crashed (`crash_mark.rs`), rather than being
/// stopped or killed.
pub fn reconcile(engine: &Engine, lock: &IndexerLock, crashed: bool) -> Result<Reconciled, Error> {
    let mut done = Reconciled::default();
    // Indexes on disk the library's database lacks.
    let mut to_share = Vec::new();
    // The catalog is held for its reads and writes only, not for the files looked at between: a
    // window asking for the library at start waits for a statement, not for 10,000 files.
    let (interrupted, documents) = {
        let catalog = engine.catalog();
        (catalog.requeue_interrupted(crashed)?, catalog.list_documents(None)?)
    };
    (done.interrupted, done.set_aside) = (interrupted.requeued, interrupted.set_aside);
    let known: HashSet<DocumentId> = documents.iter().map(|d| d.id).collect();
    let sweep = engine.dirs().sweep(&known)?;
    done.temporary_removed = sweep.temporary;
    done.orphans_removed = sweep.orphans;
    // In a library in a database, a document another machine indexed has neither its file nor
    // its index here: both are the database's.
    let published = match engine.shared_store() {
        Some(shared) => {
            let ready: Vec<DocumentId> = documents
                .iter()
                .filter(|d| d.status == DocumentStatus::Ready)
                .map(|d| d.id)
                .collect();
            shared.run(shared.published_of(&ready))?
        }
        None => HashMap::new(),
    };
    // A document deleted (by the window) since the list was read is left alone.
    let set_status = |id: DocumentId, status: DocumentStatus, reason: Option<&str>| -> Result<(), Error> {
        let catalog = engine.catalog();
        if catalog.document(id).is_ok() {
            catalog.set_status(id, status, reason)?;
        }
        Ok(())
    };
    for doc in &documents {
        let missing = match engine.files().path(&doc.content_hash) {
            Ok(path) if path.is_file() => None,
            Ok(_)
                if {
                    let catalog = engine.catalog();
                    catalog.keeps_files() && catalog.has_file(&doc.content_hash)?
                } =>
            {
                None
            }
            Ok(_) => {
                Some("the library's copy of this PDF is missing; delete the document and add the file again".into())
            }
            Err(e) => Some(e.to_string()),
        };
        if let Some(reason) = missing {
            set_status(doc.id, DocumentStatus::Failed, Some(&reason))?;
            done.files_missing += 1;
        } else if doc.status == DocumentStatus::Ready {
            // The index says which model's vectors it holds: the record follows it (an indexer
            // may have died between publishing the vectors and recording them). In a database
            // the database's index is the library's, whatever this machine's copy says; the
            // copy is published only where the database has none.
            let in_database = published.get(&doc.id).filter(|m| m.content_hash == doc.content_hash);
            match (in_database, engine.dirs().manifest(doc.id)) {
                (Some(manifest), _) => engine
                    .catalog()
                    .correct_embedded_with(doc.id, manifest.embedder.as_deref())?,
                (None, Some(manifest)) => {
                    engine
                        .catalog()
                        .correct_embedded_with(doc.id, manifest.embedder.as_deref())?;
                    if engine.shared_store().is_some() {
                        to_share.push(doc.id);
                    }
                }
                (None, None) => {
                    set_status(doc.id, DocumentStatus::Queued, None)?;
                    done.requeued_missing += 1;
                }
            }
        }
    }
    // Listed again under the write lock: a file another process imports meanwhile is either
    // referenced in this list or not yet in place.
    engine.catalog().locked(|catalog| {
        let referenced: HashSet<String> = catalog
            .list_documents(None)?
            .into_iter()
            .map(|d| d.content_hash)
            .collect();
        if catalog.keeps_files() {
            catalog.remove_unreferenced_files()?;
        }
        engine.files().sweep(&referenced, FILE_GRACE)
    })?;
    for id in to_share {
        publish(engine, lock, id)?;
        done.shared += 1;
    }
    engine.forget_orphan_passwords()?;
    // A keyring that fails here leaves the passwords in the library, where they still work.
    if let Err(e) = engine.move_passwords_to_keyring() {
        eprintln!("lectern: passwords stay in the library ({e})");
    }
    Ok(done)
}
