//! The document operations: import one file (`import.rs`'s step) or one linked copy (the watcher's), unlock one
//! with its password, delete a document with what it leaves behind (or a folder with its
//! documents), queue one for re-indexing, and cancel the indexing of one.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::{Engine, IndexEvent};
use crate::catalog::{
    Catalog, CatalogError, DeleteMode, Document, DocumentId, DocumentStatus, FileOrigin, JobId, NewDocument, Readied,
};
use crate::chunk::Chunk;
use crate::error::Error;
use crate::files::Staged;
use crate::index::keywords::StoredChunks;
use crate::index::{IndexStore, Manifest, Publication};
use crate::secrets::SecretPlace;

/// Where a file comes from: its absolute path, its type by its first bytes (a PDF's header may
/// sit anywhere in its first kilobyte), and when it was last modified.
fn file_origin(path: &Path) -> FileOrigin {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut head = [0u8; 1024];
    let read = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let is_pdf = head[..read].windows(5).any(|w| w == b"%PDF-");
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64);
    FileOrigin {
        path: absolute.to_string_lossy().into_owned(),
        mime_type: if is_pdf {
            "application/pdf"
        } else {
            "application/octet-stream"
        }
        .to_string(),
        modified,
    }
}

/// Why a document whose indexing was cancelled is not indexed.
pub const CANCELLED: &str = "indexing was cancelled; index it again to start over";

/// A library in a database keeps its PDFs there too, for every other process: `staged`'s is sent
/// unless the database has it.
fn send_to_database(catalog: &Catalog, staged: &Staged) -> Result<(), Error> {
    let hash = &staged.stored.content_hash;
    if catalog.keeps_files() && !catalog.has_file(hash)? {
        let bytes = std::fs::read(staged.path()).map_err(Error::io(staged.path()))?;
        catalog.put_file(hash, &bytes)?;
    }
    Ok(())
}

impl Engine {
    /// Stores one file and records it in the folder at `folder_path`; `false` when the folder
    /// already holds this content (adding a file twice adds it once).
    /// A new document is made one of `job`'s in the same transaction, before any indexer sees it.
    pub fn import_one(&self, path: &Path, folder_path: &str, job: Option<&JobId>) -> Result<(Document, bool), Error> {
        self.add_stored(path, folder_path, true, |catalog, doc| match job {
            Some(job) => {
                catalog.add_to_job(job, doc.id)?;
                catalog.copy_log_to_job(job, doc.id)
            }
            None => Ok(()),
        })
    }

    /// Stores one file of a linked directory as a document of its own, even when the folder holds
    /// the same content: each file on disk keeps its own place, so deleting one copy leaves the
    /// others. The content is still stored once and indexed once (`jobs/` reuses a twin's index).
    /// `record` notes where the document came from in the same transaction, so that a process
    /// killed half way leaves neither a document nobody links to nor a link to nothing.
    pub fn import_copy(
        &self,
        path: &Path,
        folder_path: &str,
        record: impl FnOnce(&Catalog, &Document) -> Result<(), CatalogError>,
    ) -> Result<Document, Error> {
        self.add_stored(path, folder_path, false, record).map(|(doc, _)| doc)
    }

    fn add_stored(
        &self,
        path: &Path,
        folder_path: &str,
        once_per_folder: bool,
        record: impl FnOnce(&Catalog, &Document) -> Result<(), CatalogError>,
    ) -> Result<(Document, bool), Error> {
        let staged = self.files().stage(path)?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "document.pdf".to_string());
        let origin = file_origin(path);
        // Sent before the catalog's write lock is taken, which every process waits for (kept once
        // whatever happens next; a PDF no document holds is removed at the indexer's start).
        send_to_database(&self.catalog(), &staged)?;
        self.catalog().locked(|catalog| {
            let folder = catalog.folder_by_path(folder_path)?;
            let hash = &staged.stored.content_hash;
            if once_per_folder {
                let existing = catalog
                    .documents_with_hash(hash)?
                    .into_iter()
                    .find(|d| d.folder == folder.id);
                if let Some(existing) = existing {
                    return Ok((existing, false));
                }
            }
            let doc = catalog.insert_document(&NewDocument {
                folder: folder.id,
                file_name,
                byte_size: staged.stored.byte_size,
                content_hash: hash.clone(),
                origin: Some(origin),
            })?;
            record(catalog, &doc)?;
            // Removed meanwhile by another process (its last document deleted): sent again.
            send_to_database(catalog, &staged)?;
            staged.keep()?;
            Ok((doc, true))
        })
    }

    /// Retries a document that needs a password. A wrong password fails at once and changes nothing.
    pub fn unlock(&self, id: DocumentId, password: &str) -> Result<Document, Error> {
        let doc = self.catalog().document(id)?;
        if doc.status != DocumentStatus::NeedsPassword {
            return Err(Error::NotLocked(id.to_string()));
        }
        let path = self.stored_file(&doc.content_hash)?;
        let mut probe = self.config().pdf_reader().extract(&path, Some(password.to_string()));
        match probe.next_step() {
            Some(Ok(_)) | None => {}
            Some(Err(e)) => return Err(e.into()),
        }
        self.keep_password(&doc.content_hash, password)?;
        let catalog = self.catalog();
        catalog.set_status(id, DocumentStatus::Queued, None)?;
        drop(catalog);
        self.queued(id);
        Ok(self.catalog().document(id)?)
    }

    /// Deletes the folder at `path` as `mode` says, with the files and indexes of any documents
    /// deleted along with it. Returns how many documents were deleted.
    pub fn delete_folder(&self, path: &str, mode: DeleteMode) -> Result<usize, Error> {
        let (deleted, hashes) = {
            let catalog = self.catalog();
            let folder = catalog.folder_by_path(path)?;
            // Only a delete that takes documents with it can leave stored files unreferenced.
            let hashes: Vec<String> = if mode == DeleteMode::DeleteDocuments {
                let subtree = catalog.subtree(folder.id)?;
                catalog
                    .list_documents(Some(&subtree))?
                    .into_iter()
                    .map(|d| d.content_hash)
                    .collect()
            } else {
                Vec::new()
            };
            (catalog.delete_folder(folder.id, mode)?, hashes)
        };
        for id in &deleted {
            self.cancel(*id);
            self.forget_index(*id)?;
        }
        for hash in &hashes {
            self.remove_file_if_unreferenced(hash)?;
        }
        Ok(deleted.len())
    }

    /// Deletes a document with its index, and its stored file unless another document shares it.
    pub fn delete_document(&self, id: DocumentId) -> Result<Document, Error> {
        self.cancel(id);
        let doc = self.catalog().delete_document(id)?;
        self.clear_after(&doc)?;
        Ok(doc)
    }

    /// Removes what a document deleted from the catalog leaves: its index and pages read by OCR,
    /// its stored file unless another document shares it, and its password. (A process killed
    /// before this leaves them to the next indexer's start, which sweeps them all.)
    pub fn clear_after(&self, doc: &Document) -> Result<(), Error> {
        self.cancel(doc.id);
        self.forget_index(doc.id)?;
        self.dirs().remove_ocr_pages(doc.id)?;
        self.remove_file_if_unreferenced(&doc.content_hash)
    }

    /// Closes and removes the index of a document that is gone or is to be indexed again, on
    /// disk and in the database the library shares its indexes in.
    pub fn forget_index(&self, id: DocumentId) -> Result<(), Error> {
        self.local_store().forget(id);
        self.dirs().remove(id)?;
        if let Some(shared) = self.shared_store() {
            shared.run(shared.delete(id))?;
        }
        Ok(())
    }

    /// Records document `id` as ready with what `manifest`, its index's, holds (pages, passages,
    /// the pages read or left by OCR, the model of its vectors); `false` if it is not in the
    /// catalog (deleted meanwhile).
    pub fn record_ready(&self, id: DocumentId, manifest: &Manifest) -> Result<bool, Error> {
        let meta = manifest.metadata();
        let note = manifest.ocr_note();
        Ok(self.catalog().set_ready(
            id,
            &Readied {
                meta: &meta,
                chars: manifest.char_count,
                chunks: manifest.chunk_count,
                note: note.as_deref(),
                embedded_with: manifest.embedder.as_deref(),
            },
        )?)
    }

    /// Publishes the index on disk of `id`, as it is now, in the database the library lives in
    /// (nothing without one): its passages, and its vectors once it has them. An index this
    /// machine does not hold is left as the database has it: another process made it. `term`
    /// is the publishing indexer's (`Publication::term`).
    pub fn share_index(&self, id: DocumentId, term: Option<i64>) -> Result<(), Error> {
        let Some(shared) = self.shared_store() else {
            return Ok(());
        };
        let local = self.local_store();
        shared.run(async {
            match local.read_back(id).await? {
                Some(index) => {
                    let publication = Publication {
                        term,
                        ..index.publication(id)
                    };
                    shared.publish(publication).await
                }
                None => Ok(()),
            }
        })?;
        Ok(())
    }

    /// Brings the index of `id` from the library's database onto this machine when another
    /// process made it and this one is to work on it (to embed it); whether it is here now.
    pub fn fetch_index(&self, id: DocumentId) -> Result<bool, Error> {
        if self.dirs().manifest(id).is_some() {
            return Ok(true);
        }
        let Some(shared) = self.shared_store() else {
            return Ok(false);
        };
        let local = self.local_store();
        shared
            .run(async {
                match shared.read_back(id).await? {
                    Some(index) => local.publish(index.publication(id)).await.map(|()| true),
                    None => Ok(false),
                }
            })
            .map_err(Error::from)
    }

    /// Every passage of a ready document, as indexed (brought from the library's database first
    /// where another machine indexed it).
    pub fn stored_chunks(&self, doc: &Document) -> Result<Vec<Chunk>, Error> {
        if doc.status != DocumentStatus::Ready {
            return Err(Error::PartNotFound {
                document: doc.id.to_string(),
                part: format!("indexed text yet (it is {})", doc.status.as_str()),
            });
        }
        self.fetch_index(doc.id)?;
        let dir = self.dirs().dir(doc.id).join("keywords");
        Ok(StoredChunks::open(&dir)?.all()?)
    }

    /// Queues a document to be indexed again from its stored file; its old index is removed first.
    pub fn requeue(&self, id: DocumentId) -> Result<Document, Error> {
        self.cancel(id);
        self.local_store().forget(id);
        let catalog = self.catalog();
        catalog.document(id)?;
        catalog.set_status(id, DocumentStatus::Queued, None)?;
        self.forget_index(id)?;
        let doc = catalog.document(id)?;
        drop(catalog);
        self.queued(id);
        Ok(doc)
    }

    /// Queues a document whose index looked damaged to a query. Its index stays: the indexer
    /// keeps it if it verifies, and otherwise replaces it with a new one once that is published.
    pub fn recheck(&self, id: DocumentId) -> Result<(), Error> {
        self.local_store().forget(id);
        self.catalog().set_status(id, DocumentStatus::Queued, None)?;
        self.queued(id);
        Ok(())
    }

    /// Tells subscribers and the indexer that `id` waits in the queue.
    pub fn queued(&self, id: DocumentId) {
        self.emit(IndexEvent::Queued { document: id });
        self.wake().notify_one();
    }

    /// Stops indexing `id` between two pages if this process is indexing it; returns whether it was.
    pub fn cancel(&self, id: DocumentId) -> bool {
        match self.cancels().get(&id) {
            Some(flag) => {
                self.not_by_pause(id);
                flag.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    /// Takes `id` out of the queue if it waits there: it ends failed, cancelled. Whether it did.
    pub fn unqueue(&self, id: DocumentId) -> Result<bool, Error> {
        let catalog = self.catalog();
        if catalog.document(id)?.status != DocumentStatus::Queued {
            return Ok(false);
        }
        catalog.set_status(id, DocumentStatus::Failed, Some(CANCELLED))?;
        drop(catalog);
        self.emit(IndexEvent::Finished {
            document: id,
            status: DocumentStatus::Failed,
            reason: Some(CANCELLED.to_string()),
            reused_from: None,
        });
        Ok(true)
    }

    /// Keeps the password of the PDF of `content_hash`: in the keyring (the catalog keeps a
    /// mark), or in the catalog.
    pub fn keep_password(&self, content_hash: &str, password: &str) -> Result<(), Error> {
        let in_keyring = self.secrets().put(&password_name(content_hash), password)?;
        self.catalog()
            .store_password(content_hash, (!in_keyring).then_some(password))?;
        Ok(())
    }

    /// The stored PDF of `content_hash` on this machine: in `files/`, where a library in a
    /// database also copies it from the database the first time it is wanted here.
    pub fn stored_file(&self, content_hash: &str) -> Result<PathBuf, Error> {
        let path = self.files().path(content_hash)?;
        if path.is_file() {
            return Ok(path);
        }
        let catalog = self.catalog();
        if !catalog.keeps_files() {
            return Ok(path);
        }
        match catalog.file(content_hash)? {
            Some(bytes) => {
                drop(catalog);
                self.files().put(content_hash, &bytes)
            }
            None => Ok(path),
        }
    }

    /// Removes the stored file of `content_hash` (and its password) once no document holds it.
    pub fn remove_file_if_unreferenced(&self, content_hash: &str) -> Result<(), Error> {
        self.catalog().locked(|catalog| {
            if catalog.documents_with_hash(content_hash)?.is_empty() {
                self.files().remove(content_hash)?;
                if catalog.keeps_files() {
                    catalog.remove_file(content_hash)?;
                }
            }
            Ok::<_, Error>(())
        })?;
        self.forget_orphan_passwords()
    }

    /// Forgets the passwords of content no document holds: from the keyring first, then their
    /// marks, so that a process stopped in between leaves marks the next start clears again.
    pub fn forget_orphan_passwords(&self) -> Result<(), Error> {
        let in_keyring = self.catalog().orphan_passwords_in_keyring()?;
        for hash in in_keyring {
            self.secrets().delete(&password_name(&hash))?;
        }
        Ok(self.catalog().forget_orphan_passwords()?)
    }

    /// Moves the passwords kept in the library into the keyring once one answers (given before
    /// it did, or by a version of Lectern without it): into the keyring first, then the mark, so
    /// that a process stopped in between leaves each password where it can still be read.
    pub fn move_passwords_to_keyring(&self) -> Result<(), Error> {
        let kept = self.catalog().passwords_in_library()?;
        if kept.is_empty() || self.secrets().place() == SecretPlace::Library {
            return Ok(());
        }
        for (hash, password) in kept {
            if self.secrets().put(&password_name(&hash), &password)? {
                self.catalog().store_password(&hash, None)?;
            }
        }
        Ok(())
    }

    /// The password given for this content: from the catalog, or the keyring it names.
    pub fn password_for(&self, content_hash: &str) -> Result<Option<String>, Error> {
        let stored = self.catalog().password_for(content_hash)?;
        match stored {
            None => Ok(None),
            Some(Some(password)) => Ok(Some(password)),
            Some(None) => self.secrets().get(&password_name(content_hash)),
        }
    }
}

/// The keyring's name for the password of this content.
fn password_name(content_hash: &str) -> String {
    format!("pdf-password {content_hash}")
}
