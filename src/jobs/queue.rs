//! The indexing queue: a tokio loop that runs up to `workers` steps at once on blocking threads
//! (`task.rs`): queued documents are read (and become searchable by keyword), ready documents
//! whose index lacks the vectors of the library's model are embedded. One embedding runs beside
//! the reading whenever there is both to do, so that the next document is read while the last
//! is embedded; never are two steps of the same content run at once, so that the second reuses
//! the first's work. It runs until there is nothing to do, or for ever.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::runtime::Handle;
use tokio::task::{self, JoinError, JoinSet};

use super::crash_mark::CrashMark;
use super::keeper;
use super::lock::IndexerLock;
use super::reconcile::{reconcile, Reconciled};
use super::space::{self, Room};
use super::task::{requeue, run_step, settle, Step};
use crate::catalog::{CatalogError, Document, DocumentId, DocumentStatus, LogLevel};
use crate::database;
use crate::engine::{Engine, IndexEvent};
use crate::error::Error;

/// How often a long-running indexer looks for documents queued by other processes, and for the
/// indexer role another process holds.
const POLL: Duration = Duration::from_secs(2);

/// How often an indexer with steps under way looks for a pause, or a cancel of one of them, that
/// another process asked for (`engine/control.rs`).
const FOLLOW: Duration = Duration::from_millis(250);

/// How long a long-running indexer waits after a failure before it starts again.
const RETRY: Duration = Duration::from_secs(3);

/// How long a run until idle waits for the library's database to answer again (it restarts, or
/// the network fails for a moment) before it ends with the database's error.
const DATABASE_PATIENCE: Duration = Duration::from_secs(120);

/// How long a document whose embedding failed waits before it is tried again (a server that
/// embeds may come back); a run until idle does not try it again.
const EMBED_RETRY: Duration = Duration::from_secs(60);

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
    /// Documents whose index was given the vectors of the library's model.
    pub embedded: usize,
    /// Why a run until idle left documents waiting (the library's disk is full, read-only or
    /// gone, and what to do), if it did.
    pub held: Option<String>,
}

/// Becomes this library's indexer, reconciles, and indexes queued documents as `mode` says. A
/// library's database that went away (restarted, or out of reach) is waited for: for ever by a
/// run that never stops, for [`DATABASE_PATIENCE`] by a run until idle.
pub(crate) async fn run(engine: &Arc<Engine>, mode: RunMode) -> Result<IndexRun, Error> {
    let mut waiting = false;
    let mut away_since: Option<Instant> = None;
    loop {
        let attempt = Instant::now();
        let outcome = run_once(engine, mode).await;
        // An attempt that lasted longer than the patience (a connection is given up on in
        // seconds) worked with the database meanwhile: an outage after it is a new one.
        if attempt.elapsed() > DATABASE_PATIENCE {
            away_since = None;
        }
        match outcome {
            Err(e)
                if database::away_in(&e)
                    && (mode == RunMode::Forever || away_since.is_none_or(|t| t.elapsed() < DATABASE_PATIENCE)) =>
            {
                if away_since.is_none() {
                    eprintln!("lectern: indexing waits for the library's database ({e})");
                }
                away_since.get_or_insert_with(Instant::now);
                tokio::time::sleep(RETRY).await;
            }
            outcome if mode == RunMode::UntilIdle => return outcome,
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
                away_since = None;
                tokio::time::sleep(RETRY).await;
            }
            Ok(run) => return Ok(run),
        }
    }
}

/// One run as the indexer, or [`Error::IndexerBusy`]. The role is held until every build the
/// run started has ended, whatever ends the run: no other indexer may sweep a temporary index
/// directory that a build of this one still writes. A run that ends because the library's disk
/// is full or away ends with that error (`space.rs`); a run until idle that leaves indexing
/// held says why in [`IndexRun::held`], and lifts the hold: no indexer is left to lift it.
async fn run_once(engine: &Arc<Engine>, mode: RunMode) -> Result<IndexRun, Error> {
    let home = &engine.config().home;
    // A library whose data directory is away is neither locked nor reconciled (its files would
    // look lost): the indexer waits for it, or a run until idle says why it cannot start.
    if let Some(away) = space::away(home) {
        engine.hold_indexing(Some(&away.to_string()));
        if mode == RunMode::UntilIdle {
            return Err(away);
        }
        eprintln!("lectern: {away}");
        while space::away(home).is_some() {
            tokio::time::sleep(POLL).await;
        }
    }
    let mut jobs = Jobs::default();
    let outcome = run_as_indexer(engine, mode, &mut jobs).await;
    let outcome = outcome.map_err(|e| jobs.disk_error(engine, e));
    if mode == RunMode::UntilIdle {
        if let Ok(Some(why)) = engine.indexing_held() {
            engine.hold_indexing(None);
            return outcome.map(|run| IndexRun { held: Some(why), ..run });
        }
    }
    outcome
}

/// [`run_once`] under the indexer's lock: reconciles, then indexes.
async fn run_as_indexer(engine: &Arc<Engine>, mode: RunMode, jobs: &mut Jobs) -> Result<IndexRun, Error> {
    let config = engine.config();
    let Some(lock) = IndexerLock::try_acquire(&config.home, config.database_url.as_deref())? else {
        return Err(Error::IndexerBusy);
    };
    let lock = Arc::new(lock);
    // Whether the last indexer crashed, then armed for this one's crash.
    let crashed = CrashMark::take(&config.home)?;
    let _mark = CrashMark::arm(&config.home);
    let mut run = IndexRun {
        reconciled: reconcile(engine, &lock, crashed)?,
        ..IndexRun::default()
    };
    // A hold an indexer that ended left said: this one looks at the disk again.
    if engine.indexing_held()?.is_some() {
        engine.hold_indexing(None);
    }
    settle_jobs(engine);
    let outcome = drive(engine, &lock, mode, jobs, &mut run).await;
    if outcome.is_err() {
        // The builds under way are this run's to finish: they end as they would have.
        while let Some(joined) = jobs.running.join_next_with_id().await {
            jobs.finish(engine, joined, &mut run);
        }
    }
    outcome.map(|()| run)
}

/// Reads queued documents and embeds ready ones, `workers` steps at once, as `mode` says.
async fn drive(
    engine: &Arc<Engine>,
    lock: &Arc<IndexerLock>,
    mode: RunMode,
    jobs: &mut Jobs,
    run: &mut IndexRun,
) -> Result<(), Error> {
    let runtime = Handle::current();
    let embedder = engine.embedder_id()?;
    // The chunker needs the embedding model's tokenizer, its last file to arrive: until every file
    // is in place no document is read (a read would fail it), and the run is tried again.
    engine.chunker()?;
    if mode == RunMode::Forever {
        keeper::keep_soon(engine);
    }
    loop {
        engine.follow_indexing_requests()?;
        jobs.requeue_unsettled(engine);
        while !engine.is_paused() && jobs.running.len() < engine.config().workers.max(1) {
            let Some((step, doc)) = next_step(engine, jobs, &embedder, mode)? else {
                break;
            };
            if !jobs.room.allows(engine, doc.byte_size) {
                break;
            }
            // Taken out of the queue since it was chosen: the next one.
            if step == Step::Read && !engine.catalog().start_indexing(doc.id)? {
                continue;
            }
            jobs.start(engine, lock, step, doc, runtime.clone());
        }
        if jobs.running.is_empty() && mode == RunMode::UntilIdle {
            let engine = engine.clone();
            return tokio::task::spawn_blocking(move || keeper::keep_now(&engine))
                .await
                .map_err(Error::stopped("keeping the library's search index"));
        }
        let look_again = if jobs.running.is_empty() { POLL } else { FOLLOW };
        tokio::select! {
            Some(joined) = jobs.running.join_next_with_id() => {
                jobs.finish(engine, joined, run);
                if mode == RunMode::Forever {
                    keeper::keep_soon(engine);
                }
            }
            _ = tokio::time::timeout(look_again, engine.wake().notified()) => {}
        }
        if let Some(ended) = jobs.ended.take() {
            return Err(ended);
        }
    }
}

/// The next step to start: an embedding if there is one to do and none runs, else the reading
/// of a queued document, else another embedding.
fn next_step(engine: &Engine, jobs: &Jobs, embedder: &str, mode: RunMode) -> Result<Option<(Step, Document)>, Error> {
    let catalog = engine.catalog();
    // A document of a paused job (`catalog/jobs.rs`) waits for its job.
    let startable = |d: &Document| -> Result<bool, Error> { Ok(!jobs.holds(d) && !catalog.in_paused_job(d.id)?) };
    let to_embed = || -> Result<Option<Document>, Error> {
        for doc in catalog.documents_to_embed(embedder)? {
            if !jobs.embedding_failed(doc.id, mode) && startable(&doc)? {
                return Ok(Some(doc));
            }
        }
        Ok(None)
    };
    if !jobs.embedding() {
        if let Some(doc) = to_embed()? {
            return Ok(Some((Step::Embed, doc)));
        }
    }
    for doc in catalog.documents_with_status(DocumentStatus::Queued)? {
        if startable(&doc)? {
            return Ok(Some((Step::Read, doc)));
        }
    }
    Ok(to_embed()?.map(|doc| (Step::Embed, doc)))
}

/// What one job hands back: its document, and whether indexing it went wrong.
type Outcome = (DocumentId, Result<(), Error>);

/// The documents a run is working on: which task runs which step of which document, each one's
/// content (two documents with the same content are never worked on at once, so that the second
/// reuses the first's index), when embeddings failed, and whether the disk has room for more.
#[derive(Default)]
struct Jobs {
    running: JoinSet<Outcome>,
    tasks: HashMap<task::Id, (DocumentId, Step)>,
    contents: HashMap<DocumentId, String>,
    embed_failures: HashMap<DocumentId, Instant>,
    room: Room,
    /// Documents whose reading stopped for lack of a writable disk, and which could not be put
    /// back in the queue then (the catalog is on that disk): put back once it can be written.
    unsettled: Vec<DocumentId>,
    /// Why the run is to end, when a step found it could not go on: the library's database went
    /// away, or another process became the indexer.
    ended: Option<Error>,
}

impl Jobs {
    /// Puts back in the queue the documents that could not be put back when their reading
    /// stopped; a document deleted meanwhile is let go.
    fn requeue_unsettled(&mut self, engine: &Engine) {
        self.unsettled.retain(|&id| {
            requeue(engine, id).is_err()
                && !matches!(engine.catalog().document(id), Err(CatalogError::DocumentNotFound(_)))
        });
    }

    /// Whether `error`, which ended a step, is the fault of the library's disk (full, gone,
    /// read-only), not of the document; a full disk holds indexing until it has room (`Room`
    /// holds it for one that is away at its next look).
    fn disk_fault(&mut self, engine: &Engine, error: &Error) -> bool {
        if matches!(error, Error::DiskFull { .. }) || space::out_of_space(error) {
            self.room.ran_out(engine);
            return true;
        }
        matches!(error, Error::LibraryGone { .. } | Error::LibraryReadOnly { .. })
            || space::away(&engine.config().home).is_some()
    }

    /// The error a run ended with, as the fault of the library's disk where it is one (the
    /// catalog could not be written), holding indexing until the disk is back or has room.
    fn disk_error(&mut self, engine: &Engine, error: Error) -> Error {
        if space::out_of_space(&error) && !matches!(error, Error::DiskFull { .. }) {
            self.room.ran_out(engine);
            return Error::DiskFull {
                reason: error.to_string(),
            };
        }
        match space::away(&engine.config().home) {
            Some(away) => {
                engine.hold_indexing(Some(&away.to_string()));
                away
            }
            None => error,
        }
    }

    /// Whether `doc`, or another document with its content, is being worked on.
    fn holds(&self, doc: &Document) -> bool {
        self.contents.contains_key(&doc.id) || self.contents.values().any(|h| *h == doc.content_hash)
    }

    /// Whether an embedding runs.
    fn embedding(&self) -> bool {
        self.tasks.values().any(|(_, step)| *step == Step::Embed)
    }

    /// Whether embedding `id` failed in this run, and is not to be tried again yet.
    fn embedding_failed(&self, id: DocumentId, mode: RunMode) -> bool {
        self.embed_failures
            .get(&id)
            .is_some_and(|at| mode == RunMode::UntilIdle || at.elapsed() < EMBED_RETRY)
    }

    /// Starts `step` of `doc`, under the indexer's `lock`, which the step confirms before it
    /// publishes.
    fn start(&mut self, engine: &Arc<Engine>, lock: &Arc<IndexerLock>, step: Step, doc: Document, runtime: Handle) {
        let lock = lock.clone();
        let id = doc.id;
        self.contents.insert(id, doc.content_hash.clone());
        let engine = engine.clone();
        let task = self
            .running
            .spawn_blocking(move || (id, run_step(&engine, &lock, step, doc, &runtime)));
        self.tasks.insert(task.id(), (id, step));
    }

    /// Records how a step ended. A reading that failed or panicked fails its own document, with
    /// why, and nothing else: the other jobs and the run go on. An embedding that failed leaves
    /// its document searchable by keyword, and is tried again later. A step that failed for lack
    /// of space, or while the library's data directory is away, is no document's fault: a reading
    /// goes back to the queue, and either waits until the disk is back and has room (`space.rs`).
    fn finish(&mut self, engine: &Engine, joined: Result<(task::Id, Outcome), JoinError>, run: &mut IndexRun) {
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
        let Some((id, step)) = self.tasks.remove(&task) else {
            return;
        };
        self.contents.remove(&id);
        match (step, failure) {
            (step, Some(e)) if self.disk_fault(engine, &e) => {
                if step == Step::Read && requeue(engine, id).is_err() {
                    self.unsettled.push(id);
                }
            }
            // Neither is the document's fault, and the run ends. Another indexer took the role:
            // its start-up found the document interrupted and queued it again; this one leaves it
            // alone (it may be that indexer's step now). The database went away: the document goes
            // back to the queue, or, with the catalog out of reach, is found interrupted when the
            // run starts again.
            (_, Some(Error::IndexerBusy)) => self.ended = Some(Error::IndexerBusy),
            (step, Some(e)) if database::away_in(&e) => {
                if step == Step::Read && requeue(engine, id).is_err() {
                    self.unsettled.push(id);
                }
                self.ended = Some(e);
            }
            (Step::Read, failure) => {
                run.processed += 1;
                if let Some(e) = failure {
                    // The document may be gone meanwhile (deleted while it was indexed).
                    let _ = settle(engine, id, DocumentStatus::Failed, &e.to_string());
                }
            }
            (Step::Embed, None) => run.embedded += 1,
            (Step::Embed, Some(e)) => {
                eprintln!("lectern: embedding a document failed ({e}); it stays searchable by keyword");
                let _ = engine.catalog().log(
                    id,
                    LogLevel::Error,
                    &format!("Embedding failed: {e}; it stays searchable by keyword and is tried again later"),
                );
                self.embed_failures.insert(id, Instant::now());
                engine.emit(IndexEvent::EmbeddingFailed {
                    document: id,
                    reason: e.to_string(),
                });
            }
        }
        settle_jobs(engine);
    }
}

/// Ends the indexing jobs with nothing left to do (`catalog/jobs.rs`); a failure to is said, and
/// tried again after the next step.
fn settle_jobs(engine: &Engine) {
    if let Err(e) = engine.catalog().settle_jobs() {
        eprintln!("lectern: the indexing jobs could not be brought up to date ({e})");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{NewDocument, DEFAULT_FOLDER};
    use crate::config::LibraryConfig;

    /// A document named `name` (its content too) added to the default folder, queued.
    fn add(engine: &Engine, name: &str) -> DocumentId {
        let folder = engine.catalog().folder_by_path(DEFAULT_FOLDER).unwrap().id;
        let new = NewDocument {
            folder,
            file_name: name.into(),
            byte_size: 1,
            content_hash: name.into(),
            origin: None,
        };
        engine.catalog().insert_document(&new).unwrap().id
    }

    #[tokio::test]
    async fn a_job_that_fails_or_panics_fails_its_own_document_and_nothing_else() {
        let home = tempfile::tempdir().unwrap();
        let engine = Engine::open(LibraryConfig::new(home.path().to_path_buf())).unwrap();
        let (panicked, failed) = (add(&engine, "panics.pdf"), add(&engine, "fails.pdf"));

        let mut jobs = Jobs::default();
        let task = jobs
            .running
            .spawn_blocking(|| -> Outcome { panic!("a fault in the parser") });
        jobs.tasks.insert(task.id(), (panicked, Step::Read));
        let task = jobs.running.spawn_blocking(move || {
            let e = Error::stopped("writing the index")("a broken stream");
            (failed, Err(e))
        });
        jobs.tasks.insert(task.id(), (failed, Step::Read));
        jobs.contents
            .extend([(panicked, String::new()), (failed, String::new())]);
        let mut run = IndexRun::default();
        while let Some(joined) = jobs.running.join_next_with_id().await {
            jobs.finish(&engine, joined, &mut run);
        }

        assert!(jobs.tasks.is_empty() && jobs.contents.is_empty());
        for (id, says) in [(panicked, "a fault in the parser"), (failed, "a broken stream")] {
            let doc = engine.catalog().document(id).unwrap();
            assert_eq!(doc.status, DocumentStatus::Failed);
            assert!(doc.reason.as_deref().unwrap_or_default().contains(says), "{doc:?}");
        }
    }

    #[tokio::test]
    async fn a_reading_that_found_no_space_goes_back_to_the_queue_and_holds_indexing() {
        let home = tempfile::tempdir().unwrap();
        let engine = Engine::open(LibraryConfig::new(home.path().to_path_buf())).unwrap();
        let id = add(&engine, "big.pdf");
        assert!(engine.catalog().start_indexing(id).unwrap());

        let mut jobs = Jobs::default();
        let task = jobs.running.spawn_blocking(move || -> Outcome {
            let full = std::io::Error::from_raw_os_error(libc::ENOSPC);
            (id, Err(Error::io("indexes/.tmp-1/keywords")(full)))
        });
        jobs.tasks.insert(task.id(), (id, Step::Read));
        let mut run = IndexRun::default();
        while let Some(joined) = jobs.running.join_next_with_id().await {
            jobs.finish(&engine, joined, &mut run);
        }

        let doc = engine.catalog().document(id).unwrap();
        assert_eq!((doc.status, doc.reason), (DocumentStatus::Queued, None));
        let held = engine.indexing_held().unwrap().expect("held");
        assert!(held.contains("is full") && held.contains("goes on by itself"), "{held}");
        // Until the disk has the floor's room beyond what it had, nothing starts.
        assert!(!jobs.room.allows(&engine, 1));
    }

    /// The error of a database that cannot be reached: a connection refused on loopback.
    async fn unreachable_database() -> Error {
        let refused = tokio_postgres::connect("host=127.0.0.1 port=1 user=lectern", tokio_postgres::NoTls)
            .await
            .map(|_| ())
            .unwrap_err();
        Error::Catalog(CatalogError::database("127.0.0.1:1/lectern".into(), refused))
    }

    #[tokio::test]
    async fn a_reading_stopped_by_another_indexer_or_a_database_gone_ends_the_run_and_fails_nothing() {
        let home = tempfile::tempdir().unwrap();
        let engine = Engine::open(LibraryConfig::new(home.path().to_path_buf())).unwrap();
        // Another indexer's start-up queues the document again; a database that answers again
        // finds it back in the queue.
        let busy = |e: &Error| matches!(e, Error::IndexerBusy);
        let away = |e: &Error| !matches!(e, Error::IndexerBusy) && database::away_in(e);
        for (name, error, left, ended) in [
            (
                "busy.pdf",
                Error::IndexerBusy,
                DocumentStatus::Indexing,
                &busy as &dyn Fn(&Error) -> bool,
            ),
            ("away.pdf", unreachable_database().await, DocumentStatus::Queued, &away),
        ] {
            let id = add(&engine, name);
            assert!(engine.catalog().start_indexing(id).unwrap());

            let mut jobs = Jobs::default();
            let task = jobs.running.spawn_blocking(move || -> Outcome { (id, Err(error)) });
            jobs.tasks.insert(task.id(), (id, Step::Read));
            let mut run = IndexRun::default();
            while let Some(joined) = jobs.running.join_next_with_id().await {
                jobs.finish(&engine, joined, &mut run);
            }

            let doc = engine.catalog().document(id).unwrap();
            assert_eq!((doc.status, doc.reason), (left, None), "{name}");
            let why = jobs.ended.expect("the run ends");
            assert!(ended(&why), "{name}: {why}");
            assert_eq!(run.processed, 0);
        }
    }
}
