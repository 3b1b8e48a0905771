//! One step of indexing one document, on a blocking thread. Reading makes the document ready and
//! searchable by keyword: an index already in place or a twin's (same content) is reused, else
//! the PDF is read into a keyword index. Embedding then adds the vectors of the library's model
//! to that index (a twin's, where one has them), and the document is searchable by meaning too.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tokio::runtime::Handle;

use crate::catalog::{Document, DocumentId, DocumentStatus};
use crate::engine::{Engine, IndexEvent, CANCELLED};
use crate::error::Error;
use crate::index::{self, BuildError, BuildInput, Built, EmbedInput, IndexError, Manifest};
use crate::pdf::PdfError;
use crate::throttle::Throttle;

use super::space;
use super::IndexerLock;

/// How often progress is written to the catalog (events go out on every page and batch).
const PROGRESS_WRITE_INTERVAL: Duration = Duration::from_millis(250);

/// The two steps of indexing a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// From the PDF to a keyword index: the document becomes ready.
    Read,
    /// From the keyword index's chunks to vectors of the library's model.
    Embed,
}

/// Runs `step` for `doc` as the indexer `lock` says this process is, registering a cancel flag
/// for the duration.
pub(super) fn run_step(
    engine: &Engine,
    lock: &IndexerLock,
    step: Step,
    doc: Document,
    runtime: &Handle,
) -> Result<(), Error> {
    let cancel = Arc::new(AtomicBool::new(false));
    engine.cancels().insert(doc.id, cancel.clone());
    let result = match step {
        Step::Read => read(engine, lock, &doc, runtime, &cancel),
        Step::Embed => embed(engine, lock, &doc, runtime, &cancel),
    };
    engine.cancels().remove(&doc.id);
    // A pause that stopped a step which ended anyway (an embedding, or the last page) is over.
    engine.stopped_by_pause(doc.id);
    result
}

fn read(
    engine: &Engine,
    lock: &IndexerLock,
    doc: &Document,
    runtime: &Handle,
    cancel: &AtomicBool,
) -> Result<(), Error> {
    engine.emit(IndexEvent::Started { document: doc.id });
    // The previous indexer may have died after publishing this index but before recording it.
    if let Some(manifest) = engine
        .dirs()
        .manifest(doc.id)
        .filter(|m| m.content_hash == doc.content_hash)
    {
        if runtime.block_on(index::verify(&engine.dirs().dir(doc.id))).is_ok() {
            return finish_ready(engine, lock, doc.id, &manifest, None);
        }
    }
    if let Some(twin) = twin_with_index(engine, doc)? {
        let manifest = engine.dirs().clone_index(twin, doc.id)?;
        return finish_ready(engine, lock, doc.id, &manifest, Some(twin));
    }
    let password = match engine.password_for(&doc.content_hash) {
        Ok(password) => password,
        // The keyring that holds it did not answer: the user can give the password again.
        Err(e @ Error::Keyring { .. }) => return settle(engine, doc.id, DocumentStatus::NeedsPassword, &e.to_string()),
        Err(e) => return Err(e),
    };
    let pdf = engine.stored_file(&doc.content_hash)?;
    let chunker = engine.chunker()?;
    let reader = engine.config().pdf_reader();
    let ocr = engine.ocr_settings()?;
    let writes = Throttle::every(PROGRESS_WRITE_INTERVAL);
    let mut on_progress = |p: index::BuildProgress| {
        engine.emit(IndexEvent::Progress {
            document: doc.id,
            pages_done: p.pages_done,
            pages_total: p.pages_total,
            ocr_page: p.ocr_page,
        });
        if writes.due() {
            // Progress is advisory; a failed write must not fail the document.
            let _ = engine
                .catalog()
                .set_progress(doc.id, p.pages_done, p.pages_total, p.ocr_page);
        }
    };
    let input = BuildInput {
        id: doc.id,
        pdf: &pdf,
        file_name: &doc.file_name,
        password,
        content_hash: &doc.content_hash,
        chunker: &chunker,
        reader: &reader,
        ocr: ocr.as_ref(),
        ocr_workers: engine.config().ocr_workers,
        cancel,
    };
    match index::build(engine.dirs(), input, &mut on_progress) {
        Ok(Built::Ready(manifest)) => finish_ready(engine, lock, doc.id, &manifest, None),
        Ok(Built::NoText { meta, reason }) => {
            engine.catalog().set_metadata(doc.id, &meta)?;
            settle(engine, doc.id, DocumentStatus::NeedsOcr, &reason)
        }
        // Paused, or its reader stopped along with the program: back to the queue, to be read
        // again when indexing resumes.
        Err(BuildError::Cancelled) if engine.stopped_by_pause(doc.id) => requeue(engine, doc.id),
        Err(BuildError::Pdf(PdfError::Stopped(_))) => requeue(engine, doc.id),
        Err(BuildError::Cancelled) => settle(engine, doc.id, DocumentStatus::Failed, CANCELLED),
        Err(BuildError::Pdf(e @ (PdfError::NeedsPassword | PdfError::WrongPassword))) => {
            settle(engine, doc.id, DocumentStatus::NeedsPassword, &e.to_string())
        }
        // Not the file's fault: the queue puts it back and waits for space (`space.rs`), or for
        // the drive that went or turned read-only part way.
        Err(e) if space::out_of_space(&e) => Err(Error::DiskFull { reason: e.to_string() }),
        Err(e) => match space::away(&engine.config().home) {
            Some(away) => Err(away),
            // The stored copy was not there part way, and is whole again: its drive went and came
            // back before the failure was looked at. It is read again. (Still gone, it fails.)
            None if matches!(e, BuildError::Pdf(PdfError::Gone(_)))
                && crate::files::hash_file(&pdf).is_ok_and(|hash| hash == doc.content_hash) =>
            {
                requeue(engine, doc.id)
            }
            None => settle(engine, doc.id, DocumentStatus::Failed, &e.to_string()),
        },
    }
}

/// Gives the index of the ready document `doc` the vectors of the library's model. A failure
/// leaves the document as it was: ready, searchable by keyword.
fn embed(
    engine: &Engine,
    lock: &IndexerLock,
    doc: &Document,
    runtime: &Handle,
    cancel: &AtomicBool,
) -> Result<(), Error> {
    // In a library in a database, another process may have read it.
    engine.fetch_index(doc.id)?;
    let embedder = engine.embedder()?;
    let id = embedder.id();
    let twin = twin_with_vectors(engine, doc, &id)?;
    let published = match twin {
        Some(twin) => engine.dirs().clone_index(twin, doc.id)?,
        None => {
            let writes = Throttle::every(PROGRESS_WRITE_INTERVAL);
            let mut on_progress = |p: index::EmbedProgress| {
                engine.emit(IndexEvent::Embedding {
                    document: doc.id,
                    chunks_done: p.chunks_done,
                    chunks_total: p.chunks_total,
                    resumed_from: p.resumed_from,
                });
                if writes.due() {
                    let _ = engine
                        .catalog()
                        .set_embed_progress(doc.id, p.chunks_done, p.chunks_total);
                }
            };
            let input = EmbedInput {
                id: doc.id,
                embedder: embedder.as_ref(),
                cancel,
            };
            match index::embed(engine.dirs(), input, runtime, &mut on_progress) {
                Ok(manifest) => manifest,
                // Deleted or queued again meanwhile: nothing to record.
                Err(BuildError::Cancelled) => return Ok(()),
                Err(BuildError::Embed(e)) => return Err(e.into()),
                Err(BuildError::Index(e)) => return Err(e.into()),
                Err(BuildError::Pdf(e)) => return Err(e.into()),
            }
        }
    };
    publish(engine, lock, doc.id)?;
    if published.embedder.as_deref() == Some(id.as_str()) && engine.catalog().set_embedded(doc.id, &id)? {
        engine.emit(IndexEvent::Embedded { document: doc.id });
    }
    Ok(())
}

/// The ready documents with the same content as `doc` whose index is in place, with its manifest.
fn indexed_twins(engine: &Engine, doc: &Document) -> Result<Vec<(DocumentId, Manifest)>, Error> {
    Ok(engine
        .catalog()
        .documents_with_hash(&doc.content_hash)?
        .into_iter()
        .filter(|d| d.id != doc.id && d.status == DocumentStatus::Ready)
        .filter_map(|d| Some((d.id, engine.dirs().manifest(d.id)?)))
        .filter(|(_, m)| m.content_hash == doc.content_hash)
        .collect())
}

/// A ready document with the same content whose index is in place; one with the vectors of the
/// library's model is best: nothing is left to do.
fn twin_with_index(engine: &Engine, doc: &Document) -> Result<Option<DocumentId>, Error> {
    let embedder = engine.embedder_id().ok();
    let mut twins = indexed_twins(engine, doc)?;
    twins.sort_by_key(|(_, m)| m.embedder.is_none() || m.embedder != embedder);
    Ok(twins.first().map(|(id, _)| *id))
}

/// A ready document with the same content whose index holds the vectors of `embedder`.
fn twin_with_vectors(engine: &Engine, doc: &Document, embedder: &str) -> Result<Option<DocumentId>, Error> {
    Ok(indexed_twins(engine, doc)?
        .into_iter()
        .find(|(_, m)| m.embedder.as_deref() == Some(embedder))
        .map(|(id, _)| id))
}

/// Records a published index; if the document was deleted meanwhile, removes the index instead.
fn finish_ready(
    engine: &Engine,
    lock: &IndexerLock,
    id: DocumentId,
    manifest: &Manifest,
    reused_from: Option<DocumentId>,
) -> Result<(), Error> {
    publish(engine, lock, id)?;
    if !engine.record_ready(id, manifest)? {
        engine.forget_index(id)?;
        return Ok(());
    }
    engine.emit(IndexEvent::Finished {
        document: id,
        status: DocumentStatus::Ready,
        reason: manifest.ocr_note(),
        reused_from,
    });
    Ok(())
}

/// Publishes the index of `id` in the library's database, if the library is in one, once `lock`
/// confirms that this process is still its indexer, in its term: [`Error::IndexerBusy`] if
/// another process became the indexer, even between the confirmation and the publication.
pub(super) fn publish(engine: &Engine, lock: &IndexerLock, id: DocumentId) -> Result<(), Error> {
    if engine.shared_store().is_none() {
        return Ok(());
    }
    let superseded = |e: &Error| matches!(e, Error::Index(IndexError::Superseded { .. }));
    let term = lock.confirm()?;
    match engine.share_index(id, term) {
        // Another step of this process may have taken the lock again, in a newer term, after
        // this one's confirmation: it publishes in that term. A newer term of another process
        // ends the run.
        Err(e) if superseded(&e) => match lock.confirm()? {
            newer if newer != term => {
                engine
                    .share_index(id, newer)
                    .map_err(|e| if superseded(&e) { Error::IndexerBusy } else { e })
            }
            _ => Err(Error::IndexerBusy),
        },
        other => other,
    }
}

/// Puts a document whose reading stopped part way back in the queue.
pub(super) fn requeue(engine: &Engine, id: DocumentId) -> Result<(), Error> {
    engine.catalog().requeue_unfinished(&[id])?;
    engine.emit(IndexEvent::Queued { document: id });
    Ok(())
}

pub(super) fn settle(engine: &Engine, id: DocumentId, status: DocumentStatus, reason: &str) -> Result<(), Error> {
    engine.catalog().set_status(id, status, Some(reason))?;
    engine.emit(IndexEvent::Finished {
        document: id,
        status,
        reason: Some(reason.to_string()),
        reused_from: None,
    });
    Ok(())
}
