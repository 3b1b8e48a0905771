//! Indexing one document, start to end state, on a blocking thread: reuse an index already in
//! place or one of a document with the same content, else build one; then record the outcome.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::runtime::Handle;

use crate::catalog::{Document, DocumentId, DocumentStatus, PdfMetadata};
use crate::engine::{Engine, IndexEvent, Models};
use crate::error::Error;
use crate::index::{self, BuildError, BuildInput, Built, Manifest};
use crate::pdf::{ocr_note, PdfError};

/// How often progress is written to the catalog (events go out on every page).
const PROGRESS_WRITE_INTERVAL: Duration = Duration::from_millis(250);

/// Indexes `doc`, registering a cancel flag for the duration.
pub(super) fn index_document(engine: &Engine, models: &Models, doc: Document, runtime: &Handle) -> Result<(), Error> {
    let cancel = Arc::new(AtomicBool::new(false));
    engine.cancels().insert(doc.id, cancel.clone());
    let result = run(engine, models, &doc, runtime, &cancel);
    engine.cancels().remove(&doc.id);
    result
}

fn run(engine: &Engine, models: &Models, doc: &Document, runtime: &Handle, cancel: &AtomicBool) -> Result<(), Error> {
    engine.emit(IndexEvent::Started { document: doc.id });
    // The previous indexer may have died after publishing this index but before recording it.
    if let Some(manifest) = engine.dirs().manifest(doc.id).filter(|m| fits(m, doc, models)) {
        if runtime.block_on(index::verify(&engine.dirs().dir(doc.id))).is_ok() {
            return finish_ready(engine, doc.id, &manifest, None);
        }
    }
    if let Some(twin) = twin_with_index(engine, doc, models)? {
        let manifest = engine.dirs().clone_index(twin, doc.id)?;
        return finish_ready(engine, doc.id, &manifest, Some(twin));
    }
    let password = match engine.password_for(&doc.content_hash) {
        Ok(password) => password,
        // The keyring that holds it did not answer: the user can give the password again.
        Err(e @ Error::Keyring { .. }) => return settle(engine, doc.id, DocumentStatus::NeedsPassword, &e.to_string()),
        Err(e) => return Err(e),
    };
    let pdf = engine.files().path(&doc.content_hash)?;
    let mut last_write: Option<Instant> = None;
    let mut on_progress = |p: index::BuildProgress| {
        engine.emit(IndexEvent::Progress {
            document: doc.id,
            pages_done: p.pages_done,
            pages_total: p.pages_total,
            chunks_embedded: p.chunks_embedded,
        });
        if last_write.is_none_or(|t| t.elapsed() >= PROGRESS_WRITE_INTERVAL) {
            last_write = Some(Instant::now());
            // Progress is advisory; a failed write must not fail the document.
            let _ = engine.catalog().set_progress(doc.id, p.pages_done, p.pages_total);
        }
    };
    let input = BuildInput {
        id: doc.id,
        pdf: &pdf,
        file_name: &doc.file_name,
        password,
        content_hash: &doc.content_hash,
        embedder: models.embedder.as_ref(),
        chunker: &models.chunker,
        reader: &engine.config().reader,
        cancel,
    };
    match index::build(engine.dirs(), input, runtime, &mut on_progress) {
        Ok(Built::Ready(manifest)) => finish_ready(engine, doc.id, &manifest, None),
        Ok(Built::NoText { meta, reason }) => {
            engine.catalog().set_metadata(doc.id, &meta)?;
            settle(engine, doc.id, DocumentStatus::NeedsOcr, &reason)
        }
        Err(BuildError::Cancelled) => settle(
            engine,
            doc.id,
            DocumentStatus::Failed,
            "indexing was cancelled; re-index the document to start it again",
        ),
        Err(BuildError::Pdf(e @ (PdfError::NeedsPassword | PdfError::WrongPassword))) => {
            settle(engine, doc.id, DocumentStatus::NeedsPassword, &e.to_string())
        }
        Err(e) => settle(engine, doc.id, DocumentStatus::Failed, &e.to_string()),
    }
}

/// True when `manifest` indexes this document's content with the current model.
fn fits(manifest: &Manifest, doc: &Document, models: &Models) -> bool {
    manifest.content_hash == doc.content_hash
        && manifest.embedder == models.embedder.id()
        && manifest.dimension == models.embedder.dimension()
}

/// A ready document with the same content whose index was made by the current model.
fn twin_with_index(engine: &Engine, doc: &Document, models: &Models) -> Result<Option<DocumentId>, Error> {
    let twins = engine.catalog().documents_with_hash(&doc.content_hash)?;
    Ok(twins
        .into_iter()
        .filter(|d| d.id != doc.id && d.status == DocumentStatus::Ready)
        .find(|d| engine.dirs().manifest(d.id).is_some_and(|m| fits(&m, doc, models)))
        .map(|d| d.id))
}

/// Records a published index; if the document was deleted meanwhile, removes the index instead.
fn finish_ready(
    engine: &Engine,
    id: DocumentId,
    manifest: &Manifest,
    reused_from: Option<DocumentId>,
) -> Result<(), Error> {
    let meta: PdfMetadata = manifest.metadata();
    let note = ocr_note(&manifest.pages_needing_ocr);
    let recorded = engine
        .catalog()
        .set_ready(id, &meta, manifest.char_count, manifest.chunk_count, note.as_deref())?;
    if !recorded {
        engine.dirs().remove(id)?;
        return Ok(());
    }
    engine.emit(IndexEvent::Finished {
        document: id,
        status: DocumentStatus::Ready,
        reason: note,
        reused_from,
    });
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
