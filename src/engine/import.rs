//! Importing files and directories into a folder, file by file: a bad file never stops the others,
//! and each gets its reason.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Engine, IndexEvent};
use crate::catalog::{Document, JobId};
use crate::error::Error;
use crate::pdf::{check_pdf, PdfError};

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

impl Engine {
    /// Copies the PDFs at `paths` (files, or directories searched recursively) into the library
    /// and queues them in the folder at `folder`.
    pub fn import(&self, paths: &[PathBuf], folder: &str) -> Result<ImportReport, Error> {
        self.import_into(paths, folder, None)
    }

    /// [`Engine::import`], each new document one of `job`'s from the moment it is recorded.
    pub fn import_for_job(&self, paths: &[PathBuf], folder: &str, job: &JobId) -> Result<ImportReport, Error> {
        self.import_into(paths, folder, Some(job))
    }

    fn import_into(&self, paths: &[PathBuf], folder: &str, job: Option<&JobId>) -> Result<ImportReport, Error> {
        let folder = self.catalog().folder_by_path(folder)?;
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
                        Ok(()) => self.add_file(&file, &folder.path, job, &mut report),
                        Err(PdfError::NotAPdf { .. }) => report.ignored += 1,
                        Err(e) => report.failed.push(ImportFailure {
                            path: file,
                            reason: e.to_string(),
                        }),
                    }
                }
            } else {
                match check_pdf(path) {
                    Ok(()) => self.add_file(path, &folder.path, job, &mut report),
                    Err(e) => report.failed.push(ImportFailure {
                        path: path.clone(),
                        reason: e.to_string(),
                    }),
                }
            }
        }
        if !report.added.is_empty() {
            self.wake().notify_one();
        }
        Ok(report)
    }

    fn add_file(&self, path: &Path, folder_path: &str, job: Option<&JobId>, report: &mut ImportReport) {
        match self.import_one(path, folder_path, job) {
            Ok((doc, true)) => {
                self.emit(IndexEvent::Queued { document: doc.id });
                report.added.push(doc);
            }
            Ok((doc, false)) => report.already_present.push(doc),
            Err(e) => report.failed.push(ImportFailure {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }),
        }
    }
}

/// Files under `dir`, recursively, in name order; unreadable directories are reported and skipped.
/// Symbolic links to directories are followed, each directory once: a link back up the tree (or
/// two links to each other) is passed over rather than walked around until the kernel says
/// ELOOP, or forever.
fn walk(dir: &Path, failed: &mut Vec<ImportFailure>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    walk_into(dir, &mut HashSet::new(), &mut files, failed);
    files
}

fn walk_into(dir: &Path, seen: &mut HashSet<(u64, u64)>, files: &mut Vec<PathBuf>, failed: &mut Vec<ImportFailure>) {
    let read = std::fs::metadata(dir).and_then(|meta| {
        let entries = std::fs::read_dir(dir)?;
        Ok(((meta.dev(), meta.ino()), entries))
    });
    let mut entries: Vec<PathBuf> = match read {
        Ok((id, _)) if !seen.insert(id) => return,
        Ok((_, entries)) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => {
            failed.push(ImportFailure {
                path: dir.to_path_buf(),
                reason: format!("the directory could not be read: {e}"),
            });
            return;
        }
    };
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk_into(&path, seen, files, failed);
        } else if path.is_file() {
            files.push(path);
        }
    }
}
