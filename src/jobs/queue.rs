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

/// How often a long-running indexer looks for documents queued by other processes.
const POLL: Duration = Duration::from_secs(2);

/// When the indexer stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// When nothing is queued or running (the CLI).
    UntilIdle,
    /// Never; it waits for new documents (the desktop app).
    Forever,
}

/// What one run of the indexer did.
#[derive(Debug, Default, Serialize)]
pub struct IndexRun {
    pub reconciled: Reconciled,
    /// Documents taken from the queue and brought to an end state.
    pub processed: usize,
}

/// Becomes this library's indexer (or fails with [`Error::IndexerBusy`]), reconciles, and
/// indexes queued documents as `mode` says.
pub(crate) async fn run(engine: &Arc<Engine>, mode: RunMode) -> Result<IndexRun, Error> {
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
