//! Syncing a linked directory: bring a library folder in line with a directory on disk.
//!
//! A sync lists the directory (`scan.rs`) and compares it with the files the catalog last saw
//! there. Size and modification time unchanged: nothing to do. Otherwise the content hash decides:
//! the same hash is only a touch; a new hash re-indexes the file (its new content becomes a new
//! document and the old one goes); a file that appears with the hash of one that vanished is a
//! rename or a move inside the directory and keeps its document. Files still being written wait
//! (`pending`); a vanished directory changes nothing until it is back, and neither does an
//! empty one on another device than its files were seen on (an unmounted drive's mount point).
//! Only a file seen to be gone is gone: one under a directory the scan could not read is kept.
//! Identical files are each their own document (their content is indexed once).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde::Serialize;

use super::scan::{scan, Scan, ScannedFile};
use crate::catalog::{Catalog, CatalogError, Document, DocumentId, Link, LinkId, LinkedFile};
use crate::engine::Engine;
use crate::error::Error;
use crate::files::hash_file;

/// What one sync of a link did.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SyncReport {
    /// False when the directory was missing: nothing was changed.
    pub available: bool,
    pub added: usize,
    pub renamed: usize,
    /// Files whose content changed, re-indexed.
    pub changed: usize,
    /// Documents removed with their file.
    pub removed: usize,
    /// Files deleted from the directory whose documents were kept (the link's setting).
    pub kept: usize,
    /// Files still being written, to be indexed once they settle.
    pub pending: usize,
    pub failed: Vec<(String, String)>,
}

/// How far a sync has come: the directory's files read (hashed where they are new or changed),
/// then the new ones added, each of the listing's total.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SyncProgress {
    /// True once every file has been read and the new ones are being added.
    pub adding: bool,
    pub done: usize,
    pub total: usize,
}

/// Brings the folder of link `id` in line with its directory, telling `progress` before each
/// file and at the end of each step.
pub fn sync_link(engine: &Engine, id: LinkId, progress: &dyn Fn(SyncProgress)) -> Result<SyncReport, Error> {
    let link = engine.catalog().link(id)?;
    let mut report = SyncReport::default();
    let known_files = engine.catalog().linked_files(id)?;
    let root = Path::new(&link.path);
    let device = std::fs::metadata(root).map(|meta| meta.dev()).ok();
    // Empty where files were, and on another device than theirs: an unmounted drive's mount point.
    let unmounted = |listing: &Scan| listing.empty && !known_files.is_empty() && device != link.device;
    let Some(listing) = scan(root).filter(|listing| !unmounted(listing)) else {
        // Nothing is taken for deleted until the directory is back.
        engine.catalog().set_link_state(id, false, link.pending, &link.failed)?;
        return Ok(report);
    };
    if let Some(device) = device.filter(|d| !listing.empty && link.device != Some(*d)) {
        engine.catalog().set_link_device(id, device)?;
    }
    report.available = true;
    report.failed = listing.unreadable.clone();
    let folder = engine.catalog().folder(link.folder)?.path;
    let mut known: HashMap<String, LinkedFile> = known_files.into_iter().map(|f| (f.rel_path.clone(), f)).collect();

    let mut appeared = Vec::new();
    let tell = |adding, done, total| progress(SyncProgress { adding, done, total });
    let total = listing.files.len();
    for (done, file) in listing.files.iter().enumerate() {
        tell(false, done, total);
        let seen = known.remove(&file.rel_path);
        if let Some(old) = &seen {
            if old.size == file.size && old.mtime == file.mtime {
                continue;
            }
        }
        if !file.stable {
            // Being written: counted, and (if known) neither changed nor vanished yet.
            report.pending += 1;
            continue;
        }
        let hash = match hash_file(&file.path) {
            Ok(hash) => hash,
            Err(e) => {
                report.failed.push((file.rel_path.clone(), e.to_string()));
                continue;
            }
        };
        match seen {
            Some(old) if old.content_hash == hash => {
                engine
                    .catalog()
                    .put_linked_file(id, &as_seen(file, &old.content_hash, old.document))?;
            }
            Some(old) => {
                if import_linked(engine, id, &folder, file, &hash, Some(old.document), &mut report) {
                    report.changed += 1;
                }
            }
            None => appeared.push((file, hash)),
        }
    }

    tell(false, total, total);

    // What is left of `known` and not under a directory the scan could not read vanished; an
    // appeared file with a vanished one's content is it, renamed or moved. Copies with one
    // content are each their own file, so the map holds every vanished file of a content.
    let mut vanished: HashMap<String, Vec<LinkedFile>> = HashMap::new();
    for old in known.into_values().filter(|f| !listing.may_hold(&f.rel_path)) {
        vanished.entry(old.content_hash.clone()).or_default().push(old);
    }
    let adding = appeared.len();
    for (done, (file, hash)) in appeared.into_iter().enumerate() {
        tell(true, done, adding);
        if let Some(old) = vanished.get_mut(&hash).and_then(Vec::pop) {
            engine.catalog().locked(|catalog| {
                catalog.delete_linked_file(id, &old.rel_path)?;
                catalog.put_linked_file(id, &as_seen(file, &old.content_hash, old.document))?;
                let name = file.path.file_name().map(|n| n.to_string_lossy().to_string());
                match name.map(|name| catalog.rename_document(old.document, &name)) {
                    None | Some(Ok(_)) | Some(Err(CatalogError::DocumentNotFound(_))) => Ok(()),
                    Some(Err(e)) => Err(e),
                }
            })?;
            report.renamed += 1;
        } else if import_linked(engine, id, &folder, file, &hash, None, &mut report) {
            report.added += 1;
        }
    }
    if adding > 0 {
        tell(true, adding, adding);
    }
    for old in vanished.into_values().flatten() {
        if link.keep_deleted {
            engine.catalog().delete_linked_file(id, &old.rel_path)?;
            report.kept += 1;
        } else {
            let gone = engine.catalog().locked(|catalog| {
                catalog.delete_linked_file(id, &old.rel_path)?;
                unless_linked(catalog, old.document)
            })?;
            clear_after(engine, gone.as_ref(), &old.rel_path, &mut report);
            report.removed += 1;
        }
    }
    engine
        .catalog()
        .set_link_state(id, true, report.pending as u64, &report.failed)?;
    if report.added + report.changed > 0 {
        engine.wake().notify_one();
    }
    Ok(report)
}

/// Syncs every link of this machine, carrying on past one that fails.
pub fn sync_links(engine: &Engine) -> Vec<(Link, Result<SyncReport, Error>)> {
    let links = engine.catalog().links_here().unwrap_or_default();
    links
        .into_iter()
        .map(|link| {
            let report = sync_link(engine, link.id, &|_| {});
            (link, report)
        })
        .collect()
}

/// Imports one file of link `id` into `folder` and records where it came from, in place of the
/// document `replacing` (the file's content before it changed) if given, in one transaction;
/// false (with the failure in `report`) when it could not be imported.
fn import_linked(
    engine: &Engine,
    id: LinkId,
    folder: &str,
    file: &ScannedFile,
    hash: &str,
    replacing: Option<DocumentId>,
    report: &mut SyncReport,
) -> bool {
    let mut replaced = None;
    let imported = crate::pdf::check_pdf(&file.path).map_err(Error::from).and_then(|()| {
        engine.import_copy(&file.path, folder, |catalog, doc| {
            catalog.put_linked_file(id, &as_seen(file, hash, doc.id))?;
            if let Some(old) = replacing {
                replaced = unless_linked(catalog, old)?;
            }
            Ok(())
        })
    });
    match imported {
        Ok(doc) => {
            engine.queued(doc.id);
            clear_after(engine, replaced.as_ref(), &file.rel_path, report);
            true
        }
        Err(e) => {
            report.failed.push((file.rel_path.clone(), e.to_string()));
            false
        }
    }
}

/// Deletes document `id` from the catalog unless a file of a link still has it (a library from
/// before each linked copy was a document of its own shares one); the document deleted.
fn unless_linked(catalog: &Catalog, id: DocumentId) -> Result<Option<Document>, CatalogError> {
    if catalog.document_is_linked(id)? {
        return Ok(None);
    }
    match catalog.delete_document(id) {
        Ok(doc) => Ok(Some(doc)),
        Err(CatalogError::DocumentNotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Removes what a deleted document left (index, unshared file, password). A failure leaves them
/// to the next start's sweep, and is reported against the file that caused it.
fn clear_after(engine: &Engine, gone: Option<&Document>, rel_path: &str, report: &mut SyncReport) {
    if let Some(Err(e)) = gone.map(|doc| engine.clear_after(doc)) {
        report.failed.push((
            rel_path.to_string(),
            format!("its old document was not all cleared away: {e}"),
        ));
    }
}

/// What the catalog keeps of `file`, seen with this content as this document.
fn as_seen(file: &ScannedFile, content_hash: &str, document: DocumentId) -> LinkedFile {
    LinkedFile {
        rel_path: file.rel_path.clone(),
        size: file.size,
        mtime: file.mtime,
        content_hash: content_hash.to_string(),
        document,
    }
}
