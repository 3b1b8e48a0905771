//! The indexing queue: a tokio loop that takes queued documents from the catalog and indexes up to
//! `workers` of them at once on blocking threads (never two with the same content at once, so
//! that the second reuses the first's index), until the queue is empty or for ever.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::runtime::Handle;
use tokio::task::{self, JoinError, JoinSet};

use super::lock::IndexerLock;
use super::reconcile::{reconcile, Reconciled};
use super::task::{index_document, settle};
use crate::catalog::{Document, DocumentId, DocumentStatus};
use crate::engine::{Engine, Models};
use crate::error::Error;

/// How often a long-running indexer looks for documents queued by other processes, and for the
/// indexer role another process holds.
const POLL: Duration = Duration::from_secs(2);

/// How long a long-running indexer waits after a failure before it starts again.
const RETRY: Duration = Duration::from_secs(3);

/// When the indexer stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// When nothing is queued or running (the CLI); another process's indexing is
    /// [`Error::IndexerBusy`].
    UntilIdle,
    /// Never (the desktop app, `lectern index --watch`): it waits for new documents, takes the
    /// indexer role over when another process gives it up, and starts again after a failure.
    Forever,
}

/// What one run of the indexer did.
#[derive(Debug, Default, Serialize)]
pub struct IndexRun {
    pub reconciled: Reconciled,
    /// Documents taken from the queue and brought to an end state.
    pub processed: usize,
}

/// Becomes this library's indexer, reconciles, and indexes queued documents as `mode` says.
pub(crate) async fn run(engine: &Arc<Engine>, mode: RunMode) -> Result<IndexRun, Error> {
    if mode == RunMode::UntilIdle {
        return run_once(engine, mode).await;
    }
    let mut waiting = false;
    loop {
        match run_once(engine, mode).await {
            Err(Error::IndexerBusy) => {
                if !waiting {
                    eprintln!(
                        "lectern: another Lectern process is indexing this library; this one takes over when it stops"
                    );
                    waiting = true;
                }
                tokio::time::sleep(POLL).await;
            }
            Err(e) => {
                eprintln!("lectern: indexing stopped ({e}); starting again");
                waiting = false;
                tokio::time::sleep(RETRY).await;
            }
            Ok(run) => return Ok(run),
        }
    }
}

/// One run as the indexer, or [`Error::IndexerBusy`]. The role is held until every build the
/// run started has ended, whatever ends the run: no other indexer may sweep a temporary index
/// directory that a build of this one still writes.
async fn run_once(engine: &Arc<Engine>, mode: RunMode) -> Result<IndexRun, Error> {
    let lock_path = engine.config().home.join("indexer.lock");
    let Some(_lock) = IndexerLock::try_acquire(&lock_path)? else {
        return Err(Error::IndexerBusy);
    };
    let mut run = IndexRun {
        reconciled: reconcile(engine)?,
        processed: 0,
    };
    let mut jobs = Jobs::default();
    let outcome = drive(engine, mode, &mut jobs, &mut run).await;
    if outcome.is_err() {
        // The builds under way are this run's to finish: they end as they would have.
        while let Some(joined) = jobs.running.join_next_with_id().await {
            jobs.finish(engine, joined);
            run.processed += 1;
        }
    }
    outcome.map(|()| run)
}

/// Takes queued documents and indexes them, `workers` at once, as `mode` says.
async fn drive(engine: &Arc<Engine>, mode: RunMode, jobs: &mut Jobs, run: &mut IndexRun) -> Result<(), Error> {
    let runtime = Handle::current();
    loop {
        while jobs.running.len() < engine.config().workers.max(1) {
            let next = engine
                .catalog()
                .documents_with_status(DocumentStatus::Queued)?
                .into_iter()
                .find(|d| !jobs.holds(d));
            let Some(doc) = next else { break };
            // Loading may block (file reads, an HTTP embedder's probe call).
            let loader = engine.clone();
            let models = tokio::task::spawn_blocking(move || loader.models())
                .await
                .map_err(Error::stopped("loading the embedding model"))??;
            engine.catalog().start_indexing(doc.id)?;
            jobs.start(engine, models, doc, runtime.clone());
        }
        if jobs.running.is_empty() && mode == RunMode::UntilIdle {
            return Ok(());
        }
        tokio::select! {
            Some(joined) = jobs.running.join_next_with_id() => {
                jobs.finish(engine, joined);
                run.processed += 1;
            }
            _ = tokio::time::timeout(POLL, engine.wake().notified()) => {}
        }
    }
}

/// What one job hands back: its document, and whether indexing it went wrong.
type Outcome = (DocumentId, Result<(), Error>);

/// The documents a run is indexing: which task indexes which document, and each one's content
/// (two documents with the same content are never indexed at once, so that the second reuses
/// the first's index).
#[derive(Default)]
struct Jobs {
    running: JoinSet<Outcome>,
    tasks: HashMap<task::Id, DocumentId>,
    contents: HashMap<DocumentId, String>,
}

impl Jobs {
    /// Whether `doc`, or another document with its content, is being indexed.
    fn holds(&self, doc: &Document) -> bool {
        self.contents.contains_key(&doc.id) || self.contents.values().any(|h| *h == doc.content_hash)
    }

    fn start(&mut self, engine: &Arc<Engine>, models: Arc<Models>, doc: Document, runtime: Handle) {
        let id = doc.id;
        self.contents.insert(id, doc.content_hash.clone());
        let engine = engine.clone();
        let task = self
            .running
            .spawn_blocking(move || (id, index_document(&engine, &models, doc, &runtime)));
        self.tasks.insert(task.id(), id);
    }

    /// Records how a job ended. A job that failed or panicked fails its own document, with why,
    /// and nothing else: the other jobs and the run go on.
    fn finish(&mut self, engine: &Engine, joined: Result<(task::Id, Outcome), JoinError>) {
        let (task, failure) = match joined {
            Ok((task, (_, result))) => (task, result.err()),
            Err(e) => {
                let task = e.id();
                let reason = if e.is_panic() {
                    crate::panic::message(e.into_panic().as_ref())
                } else {
                    e.to_string()
                };
                (
                    task,
                    Some(Error::Stopped {
                        what: "indexing this document",
                        reason,
                    }),
                )
            }
        };
        let Some(id) = self.tasks.remove(&task) else {
            return;
        };
        self.contents.remove(&id);
        if let Some(e) = failure {
            // The document may be gone meanwhile (deleted while it was indexed): nothing to record.
            let _ = settle(engine, id, DocumentStatus::Failed, &e.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{NewDocument, DEFAULT_FOLDER};
    use crate::config::LibraryConfig;

    #[tokio::test]
    async fn a_job_that_fails_or_panics_fails_its_own_document_and_nothing_else() {
        let home = tempfile::tempdir().unwrap();
        let engine = Engine::open(LibraryConfig::new(home.path().to_path_buf())).unwrap();
        let folder = engine.catalog().folder_by_path(DEFAULT_FOLDER).unwrap().id;
        let add = |name: &str| {
            let new = NewDocument {
                folder,
                file_name: name.into(),
                byte_size: 1,
                content_hash: name.into(),
            };
            engine.catalog().insert_document(&new).unwrap().id
        };
        let (panicked, failed) = (add("panics.pdf"), add("fails.pdf"));

        let mut jobs = Jobs::default();
        let task = jobs
            .running
            .spawn_blocking(|| -> Outcome { panic!("a fault in the parser") });
        jobs.tasks.insert(task.id(), panicked);
        let task = jobs.running.spawn_blocking(move || {
            let e = Error::stopped("writing the index")("disk full");
            (failed, Err(e))
        });
        jobs.tasks.insert(task.id(), failed);
        jobs.contents
            .extend([(panicked, String::new()), (failed, String::new())]);
        while let Some(joined) = jobs.running.join_next_with_id().await {
            jobs.finish(&engine, joined);
        }

        assert!(jobs.tasks.is_empty() && jobs.contents.is_empty());
        for (id, says) in [(panicked, "a fault in the parser"), (failed, "disk full")] {
            let doc = engine.catalog().document(id).unwrap();
            assert_eq!(doc.status, DocumentStatus::Failed);
            assert!(doc.reason.as_deref().unwrap_or_default().contains(says), "{doc:?}");
        }
    }
}
