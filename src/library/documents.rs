//! Document operations: import files and directories, move, rename, delete, unlock, re-index.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Library;
use crate::catalog::{CatalogError, Document, DocumentId, DocumentStatus};
use crate::engine::IndexEvent;
use crate::error::Error;
use crate::pdf::{check_pdf, Extracted, Extraction, PdfError};

/// What an import did, file by file: one bad file never stops the others.
#[derive(Debug, Default, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ImportReport {
    pub added: Vec<Document>,
    /// Files already in the target folder with the same content.
    pub already_present: Vec<Document>,
    pub failed: Vec<ImportFailure>,
    /// Files inside added directories that are not PDFs, passed over silently.
    pub ignored: usize,
}

/// A file that could not be imported, and why.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ImportFailure {
    pub path: PathBuf,
    pub reason: String,
}

impl Library {
    /// Copies the PDFs at `paths` (files, or directories searched recursively) into the library
    /// and queues them in the folder at `folder`.
    pub fn add(&self, paths: &[PathBuf], folder: &str) -> Result<ImportReport, Error> {
        let folder = self.folder(folder)?;
        let mut report = ImportReport::default();
        for path in paths {
            if !path.exists() {
                report.failed.push(ImportFailure {
                    path: path.clone(),
                    reason: Error::NotFound(path.clone()).to_string(),
                });
            } else if path.is_dir() {
                for file in walk(path, &mut report.failed) {
                    match check_pdf(&file) {
                        Ok(()) => self.add_file(&file, &folder.path, &mut report),
                        Err(PdfError::NotAPdf { .. }) => report.ignored += 1,
                        Err(e) => report.failed.push(ImportFailure {
                            path: file,
                            reason: e.to_string(),
                        }),
                    }
                }
            } else {
                match check_pdf(path) {
                    Ok(()) => self.add_file(path, &folder.path, &mut report),
                    Err(e) => report.failed.push(ImportFailure {
                        path: path.clone(),
                        reason: e.to_string(),
                    }),
                }
            }
        }
        if !report.added.is_empty() {
            self.engine.wake().notify_one();
        }
        Ok(report)
    }

    fn add_file(&self, path: &Path, folder_path: &str, report: &mut ImportReport) {
        match self.engine.import_one(path, folder_path) {
            Ok((doc, true)) => {
                self.engine.emit(IndexEvent::Queued { document: doc.id });
                report.added.push(doc);
            }
            Ok((doc, false)) => report.already_present.push(doc),
            Err(e) => report.failed.push(ImportFailure {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
        }
    }

    /// Documents directly in the folder at `folder` (with `recursive`, in its subfolders too), or in
    /// the whole library.
    pub fn documents(&self, folder: Option<&str>, recursive: bool) -> Result<Vec<Document>, Error> {
        let catalog = self.engine.catalog();
        let Some(path) = folder else {
            return Ok(catalog.list_documents(None)?);
        };
        let folder = catalog.folder_by_path(path)?;
        let scope = if recursive {
            catalog.subtree(folder.id)?
        } else {
            vec![folder.id]
        };
        Ok(catalog.list_documents(Some(&scope))?)
    }

    /// The document whose id is, or uniquely starts with, `id`.
    pub fn document(&self, id: &str) -> Result<Document, Error> {
        let catalog = self.engine.catalog();
        if let Ok(full) = id.parse::<DocumentId>() {
            return Ok(catalog.document(full)?);
        }
        let wanted = id.trim().to_lowercase();
        let matches: Vec<Document> = catalog
            .list_documents(None)?
            .into_iter()
            .filter(|d| !wanted.is_empty() && d.id.to_string().starts_with(&wanted))
            .collect();
        match <[Document; 1]>::try_from(matches) {
            Ok([doc]) => Ok(doc),
            Err(_) => Err(CatalogError::DocumentNotFound(id.to_string()).into()),
        }
    }

    /// Moves a document to the folder at `folder`: one catalog row changes, nothing on disk.
    /// The stored copy of a document's PDF (what a viewer opens).
    pub fn document_file(&self, id: DocumentId) -> Result<PathBuf, Error> {
        let doc = self.engine.catalog().document(id)?;
        let path = self.engine.files().path(&doc.content_hash);
        if !path.is_file() {
            return Err(Error::NotFound(path));
        }
        Ok(path)
    }

    pub fn move_document(&self, id: DocumentId, folder: &str) -> Result<Document, Error> {
        let catalog = self.engine.catalog();
        let folder = catalog.folder_by_path(folder)?;
        Ok(catalog.move_document(id, folder.id)?)
    }

    /// Renames a document.
    pub fn rename_document(&self, id: DocumentId, name: &str) -> Result<Document, Error> {
        Ok(self.engine.catalog().rename_document(id, name)?)
    }

    /// Deletes a document with its index, and its stored file unless another document shares it.
    pub fn delete_document(&self, id: DocumentId) -> Result<Document, Error> {
        self.engine.delete_document(id)
    }

    /// Retries a document that needs a password. A wrong password fails at once and changes nothing.
    pub fn unlock(&self, id: DocumentId, password: &str) -> Result<Document, Error> {
        let doc = self.engine.catalog().document(id)?;
        if doc.status != DocumentStatus::NeedsPassword {
            return Err(Error::NotLocked(id.to_string()));
        }
        let path = self.engine.files().path(&doc.content_hash);
        let mut probe = Extraction::start(&path, Some(password.to_string()), self.engine.config().limits);
        match probe.next_step() {
            Some(Ok(Extracted::Opened(_))) | Some(Ok(Extracted::Page { .. })) | None => {}
            Some(Err(e)) => return Err(e.into()),
        }
        let catalog = self.engine.catalog();
        catalog.store_password(&doc.content_hash, password)?;
        catalog.set_status(id, DocumentStatus::Queued, None)?;
        drop(catalog);
        self.engine.queued(id);
        Ok(self.engine.catalog().document(id)?)
    }

    /// Queues a document to be indexed again from its stored file; its old index is removed first.
    pub fn reindex(&self, id: DocumentId) -> Result<Document, Error> {
        self.engine.requeue(id)
    }

    /// Stops indexing `id` between two pages if this process is indexing it; returns whether it was.
    pub fn cancel(&self, id: DocumentId) -> bool {
        self.engine.cancel(id)
    }
}

/// Files under `dir`, recursively, in name order; unreadable directories are reported and skipped.
fn walk(dir: &Path, failed: &mut Vec<ImportFailure>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            failed.push(ImportFailure {
                path: dir.to_path_buf(),
                reason: format!("the directory could not be read: {e}"),
            });
            return files;
        }
    };
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(walk(&path, failed));
        } else if path.is_file() {
            files.push(path);
        }
    }
    files
}
