//! Linked directories: link a directory to a folder, and sync the folder with it.
//!
//! A sync lists the directory (`watch::scan`) and compares it with the files the catalog last saw
//! there. Size and modification time unchanged: nothing to do. Otherwise the content hash decides:
//! the same hash is only a touch; a new hash re-indexes the file (its new content becomes a new
//! document and the old one goes); a file that appears with the hash of one that vanished is a
//! rename or a move inside the directory and keeps its document. Files still being written wait
//! (`pending`); a vanished directory changes nothing until it is back.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::Library;
use crate::catalog::{CatalogError, Link, LinkId, LinkedFile};
use crate::files::hash_file;
use crate::jobs::IndexEvent;
use crate::watch::{scan, ScannedFile};
use crate::Error;

/// What one sync of a link did.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
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

impl Library {
    /// Links the directory `dir` to the folder at `folder` and syncs it once.
    pub fn link_directory(&self, dir: &Path, folder: &str, keep_deleted: bool) -> Result<(Link, SyncReport), Error> {
        let dir = std::fs::canonicalize(dir).map_err(|_| Error::NotFound(dir.to_path_buf()))?;
        if !dir.is_dir() {
            return Err(Error::Config {
                name: "directory".into(),
                reason: format!("{} is a file; link a directory", dir.display()),
            });
        }
        let link = {
            let catalog = self.catalog();
            let folder = catalog.folder_by_path(folder)?;
            catalog.insert_link(folder.id, &dir.to_string_lossy(), keep_deleted)?
        };
        let report = self.sync_link(link.id)?;
        Ok((self.catalog().link(link.id)?, report))
    }

    /// Every linked directory with what its last sync found.
    pub fn links(&self) -> Result<Vec<Link>, Error> {
        Ok(self.catalog().links()?)
    }

    /// The link with id `key`, or of the directory `key`.
    pub fn find_link(&self, key: &str) -> Result<Link, Error> {
        let catalog = self.catalog();
        if let Ok(id) = key.parse::<LinkId>() {
            if let Ok(link) = catalog.link(id) {
                return Ok(link);
            }
        }
        let path = std::fs::canonicalize(key).map_or_else(|_| key.to_string(), |p| p.to_string_lossy().to_string());
        catalog
            .link_by_path(&path)?
            .ok_or_else(|| CatalogError::LinkNotFound(key.to_string()).into())
    }

    /// Removes a link; the folder keeps its documents.
    pub fn unlink(&self, id: LinkId) -> Result<Link, Error> {
        Ok(self.catalog().delete_link(id)?)
    }

    /// Brings the folder of link `id` in line with its directory.
    pub fn sync_link(&self, id: LinkId) -> Result<SyncReport, Error> {
        let link = self.catalog().link(id)?;
        let mut report = SyncReport::default();
        let Some(listing) = scan(Path::new(&link.path)) else {
            self.catalog().set_link_state(id, false, link.pending, &link.failed)?;
            return Ok(report);
        };
        report.available = true;
        report.failed = listing.unreadable;
        let folder = self.catalog().folder(link.folder)?.path;
        let mut known: HashMap<String, LinkedFile> = self
            .catalog()
            .linked_files(id)?
            .into_iter()
            .map(|f| (f.rel_path.clone(), f))
            .collect();

        let mut appeared = Vec::new();
        for file in &listing.files {
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
                    self.catalog().put_linked_file(
                        id,
                        &LinkedFile {
                            size: file.size,
                            mtime: file.mtime,
                            ..old
                        },
                    )?;
                }
                Some(old) => {
                    if self.import_linked(id, &folder, file, &hash, &mut report) {
                        report.changed += 1;
                        self.forget_document(&old)?;
                    }
                }
                None => appeared.push((file, hash)),
            }
        }

        // What is left of `known` vanished; an appeared file with a vanished one's content is it,
        // renamed or moved.
        let mut vanished: HashMap<String, LinkedFile> =
            known.into_values().map(|f| (f.content_hash.clone(), f)).collect();
        for (file, hash) in appeared {
            if let Some(old) = vanished.remove(&hash) {
                let catalog = self.catalog();
                catalog.delete_linked_file(id, &old.rel_path)?;
                catalog.put_linked_file(
                    id,
                    &LinkedFile {
                        rel_path: file.rel_path.clone(),
                        size: file.size,
                        mtime: file.mtime,
                        ..old.clone()
                    },
                )?;
                let name = file.path.file_name().map(|n| n.to_string_lossy().to_string());
                if let Some(name) = name {
                    match catalog.rename_document(old.document, &name) {
                        Ok(_) | Err(CatalogError::DocumentNotFound(_)) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                report.renamed += 1;
            } else if self.import_linked(id, &folder, file, &hash, &mut report) {
                report.added += 1;
            }
        }
        for old in vanished.into_values() {
            self.catalog().delete_linked_file(id, &old.rel_path)?;
            if link.keep_deleted {
                report.kept += 1;
            } else {
                self.forget_document(&old)?;
                report.removed += 1;
            }
        }
        self.catalog()
            .set_link_state(id, true, report.pending as u64, &report.failed)?;
        if report.added + report.changed > 0 {
            self.wake().notify_one();
        }
        Ok(report)
    }

    /// Syncs every link, carrying on past one that fails.
    pub fn sync_links(&self) -> Vec<(Link, Result<SyncReport, Error>)> {
        let links = self.links().unwrap_or_default();
        links
            .into_iter()
            .map(|link| {
                let report = self.sync_link(link.id);
                (link, report)
            })
            .collect()
    }

    /// Imports one file of link `id` into `folder` and records where it came from; false (with the
    /// failure in `report`) when it could not be imported.
    fn import_linked(&self, id: LinkId, folder: &str, file: &ScannedFile, hash: &str, report: &mut SyncReport) -> bool {
        let imported = crate::pdf::check_pdf(&file.path).map_err(Error::from).and_then(|()| {
            let (doc, added) = self.import_one(&file.path, folder)?;
            if added {
                self.emit(IndexEvent::Queued { document: doc.id });
            }
            self.catalog().put_linked_file(
                id,
                &LinkedFile {
                    rel_path: file.rel_path.clone(),
                    size: file.size,
                    mtime: file.mtime,
                    content_hash: hash.to_string(),
                    document: doc.id,
                },
            )?;
            Ok(())
        });
        match imported {
            Ok(()) => true,
            Err(e) => {
                report.failed.push((file.rel_path.clone(), e.to_string()));
                false
            }
        }
    }

    /// Deletes the document a vanished or replaced file had become, if it still exists.
    fn forget_document(&self, file: &LinkedFile) -> Result<(), Error> {
        match self.delete_document(file.document) {
            Ok(_) | Err(Error::Catalog(CatalogError::DocumentNotFound(_))) => Ok(()),
            Err(e) => Err(e),
        }
    }
}
