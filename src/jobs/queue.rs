//! The indexing queue: a tokio loop that takes queued documents from the catalog and indexes up to
//! `workers` of them at once on blocking threads (never two with the same content at once, so
//! that the second reuses the first's index), until the queue is empty or for ever.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::runtime::Handle;
use tokio::task::JoinSet;

use super::lock::IndexerLock;
use super::reconcile::{reconcile, Reconciled};
use super::task::index_document;
use crate::catalog::{DocumentId, DocumentStatus};
use crate::engine::Engine;
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

/// One run as the indexer, or [`Error::IndexerBusy`].
async fn run_once(engine: &Arc<Engine>, mode: RunMode) -> Result<IndexRun, Error> {
    let lock_path = engine.config().home.join("indexer.lock");
    let Some(_lock) = IndexerLock::try_acquire(&lock_path)? else {
        return Err(Error::IndexerBusy);
    };
    let mut run = IndexRun {
        reconciled: reconcile(engine)?,
        processed: 0,
    };
    let runtime = Handle::current();
    let mut running: JoinSet<(DocumentId, Result<(), Error>)> = JoinSet::new();
    let mut in_flight: HashMap<DocumentId, String> = HashMap::new();
    loop {
        while running.len() < engine.config().workers.max(1) {
            let next = engine
                .catalog()
                .documents_with_status(DocumentStatus::Queued)?
                .into_iter()
                .find(|d| !in_flight.contains_key(&d.id) && !in_flight.values().any(|h| *h == d.content_hash));
            let Some(doc) = next else { break };
            // Loading may block (file reads, an HTTP embedder's probe call).
            let loader = engine.clone();
            let models = tokio::task::spawn_blocking(move || loader.models())
                .await
                .map_err(Error::stopped("loading the embedding model"))??;
            engine.catalog().set_status(doc.id, DocumentStatus::Indexing, None)?;
            in_flight.insert(doc.id, doc.content_hash.clone());
            let engine = engine.clone();
            let runtime = runtime.clone();
            running.spawn_blocking(move || {
                let id = doc.id;
                (id, index_document(&engine, &models, doc, &runtime))
            });
        }
        if running.is_empty() && mode == RunMode::UntilIdle {
            return Ok(run);
        }
        tokio::select! {
            Some(joined) = running.join_next() => {
                let (id, result) = joined.map_err(Error::stopped("indexing a document"))?;
                in_flight.remove(&id);
                result?;
                run.processed += 1;
            }
            _ = tokio::time::timeout(POLL, engine.wake().notified()) => {}
        }
    }
}
