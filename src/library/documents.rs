//! Document operations: import files and directories, move, rename, delete, unlock, re-index.

use std::path::PathBuf;

use super::Library;
use crate::catalog::{CatalogError, Document, DocumentId, LogEntry};
use crate::chunk::Chunk;
pub use crate::engine::{ImportFailure, ImportReport};
use crate::error::Error;
use crate::index;
use crate::pdf::{PdfError, WordBox};

impl Library {
    /// Copies the PDFs at `paths` (files, or directories searched recursively) into the library
    /// and queues them in the folder at `folder`.
    pub fn add(&self, paths: &[PathBuf], folder: &str) -> Result<ImportReport, Error> {
        self.engine.import(paths, folder)
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
        self.find_document(id, |_| true)
    }

    /// The document whose id is `id`, or the only one whose id starts with it, among those
    /// `visible` lets through: one it does not is not found, as one that does not exist, and
    /// does not make a prefix ambiguous.
    pub(super) fn find_document(&self, id: &str, visible: impl Fn(&Document) -> bool) -> Result<Document, Error> {
        let catalog = self.engine.catalog();
        let not_found = || Error::from(CatalogError::DocumentNotFound(id.to_string()));
        let wanted = id.trim().to_lowercase();
        if let Ok(full) = wanted.parse::<DocumentId>() {
            return match catalog.document(full) {
                Ok(doc) if visible(&doc) => Ok(doc),
                Ok(_) | Err(CatalogError::DocumentNotFound(_)) => Err(not_found()),
                Err(e) => Err(e.into()),
            };
        }
        let matches: Vec<Document> = catalog
            .list_documents(None)?
            .into_iter()
            .filter(|d| !wanted.is_empty() && visible(d) && d.id.to_string().starts_with(&wanted))
            .collect();
        <[Document; 1]>::try_from(matches)
            .map(|[doc]| doc)
            .map_err(|_| not_found())
    }

    /// Where the library keeps the PDF with `content_hash`, whether or not it is there yet (the
    /// search benchmark stores its synthetic documents' PDFs there).
    pub fn stored_file_path(&self, content_hash: &str) -> Result<PathBuf, Error> {
        self.engine.files().path(content_hash)
    }

    /// The stored copy of a document's PDF (what a viewer opens).
    pub fn document_file(&self, id: DocumentId) -> Result<PathBuf, Error> {
        let doc = self.engine.catalog().document(id)?;
        let path = self.engine.stored_file(&doc.content_hash)?;
        if !path.is_file() {
            return Err(Error::NotFound(path));
        }
        Ok(path)
    }

    /// Where each word of page `page` of a document is, placed on the page's stored text: how a
    /// viewer highlights a passage from its stored offsets. A page read by OCR has its boxes in
    /// the index; a page with its own text is laid out again in a PDF worker. None for a page
    /// only the second reader (PDFium) could read: the viewer matches the passage's words there.
    pub fn page_words(&self, id: DocumentId, page: u32) -> Result<Vec<WordBox>, Error> {
        let doc = self.engine.catalog().document(id)?;
        if let Some(words) = index::page_words(&self.engine.dirs().dir(id), page) {
            return Ok(words);
        }
        let path = self.engine.stored_file(&doc.content_hash)?;
        let password = self.engine.password_for(&doc.content_hash)?;
        match self.engine.config().pdf_reader().page_words(&path, password, page) {
            Err(PdfError::Parse(_) | PdfError::NoPages) => Ok(Vec::new()),
            read => Ok(read?),
        }
    }

    /// The stored text of a document's page, as it was indexed: what a citation's character
    /// range points into.
    pub fn page_text(&self, id: DocumentId, page: u32) -> Result<String, Error> {
        let doc = self.engine.catalog().document(id)?;
        let pages = doc.page_count.unwrap_or(0);
        if page == 0 || u64::from(page) > pages {
            return Err(Error::PartNotFound {
                document: id.to_string(),
                part: format!("page {page} (it has {pages})"),
            });
        }
        Ok(index::keywords::page_text(&self.engine.stored_chunks(&doc)?, page))
    }

    /// A document's stored passage by its id (a search hit's or a citation's `chunk_id`).
    pub fn passage(&self, id: DocumentId, chunk: &str) -> Result<Chunk, Error> {
        let doc = self.engine.catalog().document(id)?;
        self.engine
            .stored_chunks(&doc)?
            .into_iter()
            .find(|c| c.id.0 == chunk)
            .ok_or_else(|| Error::PartNotFound {
                document: id.to_string(),
                part: format!("passage {chunk:?}"),
            })
    }

    /// Moves a document to the folder at `folder`: one catalog row changes, nothing on disk.
    pub fn move_document(&self, id: DocumentId, folder: &str) -> Result<Document, Error> {
        let catalog = self.engine.catalog();
        let folder = catalog.folder_by_path(folder)?;
        Ok(catalog.move_document(id, folder.id)?)
    }

    /// What happened to a document and when, oldest first.
    pub fn document_log(&self, id: DocumentId) -> Result<Vec<LogEntry>, Error> {
        Ok(self.engine.catalog().document_log(id)?)
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
        self.engine.unlock(id, password)
    }

    /// The password a protected document was unlocked with, if it was (for a viewer that opens
    /// the stored file).
    pub fn document_password(&self, id: DocumentId) -> Result<Option<String>, Error> {
        let doc = self.engine.catalog().document(id)?;
        self.engine.password_for(&doc.content_hash)
    }

    /// Queues a document to be indexed again from its stored file; its old index is removed first.
    pub fn reindex(&self, id: DocumentId) -> Result<Document, Error> {
        self.engine.requeue(id)
    }

    /// Stops indexing `id` between two pages if this process is indexing it; returns whether it was.
    pub fn cancel(&self, id: DocumentId) -> bool {
        self.engine.cancel(id)
    }

    /// Stops indexing `id`, whichever process indexes it, or takes it out of the queue if it
    /// waits there: either way it ends failed, to be indexed again by hand. Returns whether there
    /// was anything to stop.
    pub fn cancel_indexing(&self, id: DocumentId) -> Result<bool, Error> {
        self.engine.cancel_indexing(id)
    }

    /// Pauses the library's indexing, in every process, until it is resumed (see
    /// [`crate::engine::Engine::pause`]); nothing is lost.
    pub fn pause_indexing(&self) -> Result<(), Error> {
        self.engine.pause_indexing()
    }

    pub fn resume_indexing(&self) -> Result<(), Error> {
        self.engine.resume_indexing()
    }

    pub fn set_indexing_paused(&self, paused: bool) -> Result<(), Error> {
        if paused {
            self.pause_indexing()
        } else {
            self.resume_indexing()
        }
    }

    pub fn indexing_paused(&self) -> Result<bool, Error> {
        self.engine.indexing_paused()
    }

    /// Why indexing waits until it can go on by itself (the library's disk is full, read-only or
    /// gone, and what to do), if it does.
    pub fn indexing_held(&self) -> Result<Option<String>, Error> {
        self.engine.indexing_held()
    }

    /// Puts the documents this process is indexing back in the queue, for a program that quits
    /// on purpose: the next indexer does not count the interruption against them.
    pub fn requeue_unfinished(&self) -> Result<(), Error> {
        let ids: Vec<DocumentId> = self.engine.cancels().keys().copied().collect();
        Ok(self.engine.catalog().requeue_unfinished(&ids)?)
    }
}
