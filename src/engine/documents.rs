//! The document operations that the facade, the watcher and the query path share: import one
//! file, delete a document with what it leaves behind, queue one for re-indexing, and cancel the
//! indexing of one.

use std::path::Path;
use std::sync::atomic::Ordering;

use super::{Engine, IndexEvent};
use crate::catalog::{Document, DocumentId, DocumentStatus, NewDocument};
use crate::error::Error;

impl Engine {
    /// Stores one file and records it in the folder at `folder_path`; `false` when the folder
    /// already holds this content.
    pub fn import_one(&self, path: &Path, folder_path: &str) -> Result<(Document, bool), Error> {
        let stored = self.files().store(path)?;
        let catalog = self.catalog();
        let folder = catalog.folder_by_path(folder_path)?;
        if let Some(existing) = catalog
            .documents_with_hash(&stored.content_hash)?
            .into_iter()
            .find(|d| d.folder == folder.id)
        {
            return Ok((existing, false));
        }
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_else(|| "document.pdf".to_string());
        let doc = catalog.insert_document(&NewDocument {
            folder: folder.id,
            file_name,
            byte_size: stored.byte_size,
            content_hash: stored.content_hash,
        })?;
        Ok((doc, true))
    }

    /// Deletes a document with its index, and its stored file unless another document shares it.
    pub fn delete_document(&self, id: DocumentId) -> Result<Document, Error> {
        self.cancel(id);
        let doc = self.catalog().delete_document(id)?;
        self.forget_index(id)?;
        self.remove_file_if_unreferenced(&doc.content_hash)?;
        Ok(doc)
    }

    /// Closes and removes the index of a document that is gone or is to be indexed again.
    pub fn forget_index(&self, id: DocumentId) -> Result<(), Error> {
        self.open_indexes().evict(id);
        Ok(self.dirs().remove(id)?)
    }

    /// Queues a document to be indexed again from its stored file; its old index is removed first.
    pub fn requeue(&self, id: DocumentId) -> Result<Document, Error> {
        self.cancel(id);
        self.open_indexes().evict(id);
        let catalog = self.catalog();
        catalog.document(id)?;
        catalog.set_status(id, DocumentStatus::Queued, None)?;
        self.dirs().remove(id)?;
        let doc = catalog.document(id)?;
        drop(catalog);
        self.queued(id);
        Ok(doc)
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
                flag.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    /// Removes the stored file of `content_hash` (and its password) once no document holds it.
    pub fn remove_file_if_unreferenced(&self, content_hash: &str) -> Result<(), Error> {
        let catalog = self.catalog();
        if catalog.documents_with_hash(content_hash)?.is_empty() {
            catalog.forget_orphan_passwords()?;
            self.files().remove(content_hash)?;
        }
        Ok(())
    }
}
