//! Document rows: insert on import, move/rename/delete, status and progress while indexing; each
//! change a person would want to trace is written to the document's log (`log.rs`).

use super::sql::{args, Row};

use std::collections::HashMap;

use super::log::LogLevel;
use super::{
    display_name, now_millis, validate_name, Catalog, CatalogError, Document, DocumentId, DocumentStatus, Folder,
    FolderId, FolderStats,
};

/// Crashes of the indexer in a row while it read one document that set the document aside.
const MAX_CRASHES: u32 = 2;

/// Why a document was set aside after the indexer crashed reading it.
const SET_ASIDE: &str = "reading this file crashed Lectern twice; it was set aside. Re-index it to try again";

/// Documents found `indexing` at start-up, left by an indexer that died.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Interrupted {
    /// Put back in the queue.
    pub requeued: usize,
    /// Failed: their indexer crashed for the second time in a row.
    pub set_aside: usize,
}

const COLUMNS: &str = "id, folder_id, file_name, title, author, pdf_created, page_count, byte_size, char_count, \
     chunk_count, content_hash, added_at, status, reason, progress_done, progress_total, \
     embedded_with, embed_done, embed_total, progress_ocr_page, pdf_modified, source_path, mime_type, file_modified";

/// What import knows about a document before it is indexed.
#[derive(Debug, Clone)]
pub struct NewDocument {
    pub folder: FolderId,
    pub file_name: String,
    pub byte_size: u64,
    pub content_hash: String,
    /// Where the file came from, when it came from a file.
    pub origin: Option<FileOrigin>,
}

/// The file a document was imported from.
#[derive(Debug, Clone)]
pub struct FileOrigin {
    /// Absolute.
    pub path: String,
    pub mime_type: String,
    /// Milliseconds since the Unix epoch.
    pub modified: Option<i64>,
}

/// A document made ready: what its index holds.
#[derive(Debug, Clone, Copy)]
pub struct Readied<'a> {
    pub meta: &'a PdfMetadata,
    pub chars: u64,
    pub chunks: u64,
    /// Pages that need OCR, in words.
    pub note: Option<&'a str>,
    /// The model whose vectors the index holds; `None`: keyword-searchable only, so far.
    pub embedded_with: Option<&'a str>,
}

/// What extraction learns about a document: the info dictionary and the counts.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PdfMetadata {
    pub title: Option<String>,
    pub author: Option<String>,
    pub created: Option<String>,
    pub modified: Option<String>,
    pub page_count: u64,
}

fn read_document(r: &Row<'_>) -> Result<Document, CatalogError> {
    let id = r
        .get::<String>(0)?
        .parse::<DocumentId>()
        .map_err(|e| CatalogError::Column {
            index: 0,
            reason: e.to_string(),
        })?;
    let file_name: String = r.get(2)?;
    let title: Option<String> = r.get(3)?;
    Ok(Document {
        id,
        folder: FolderId(r.get(1)?),
        display_name: display_name(&file_name, title.as_deref()),
        file_name,
        title,
        author: r.get(4)?,
        pdf_created: r.get(5)?,
        page_count: r.get(6)?,
        byte_size: r.get(7)?,
        char_count: r.get(8)?,
        chunk_count: r.get(9)?,
        content_hash: r.get(10)?,
        added_at: r.get(11)?,
        status: DocumentStatus::parse(&r.get::<String>(12)?),
        reason: r.get(13)?,
        progress_done: r.get(14)?,
        progress_total: r.get(15)?,
        embedded_with: r.get(16)?,
        embed_done: r.get(17)?,
        embed_total: r.get(18)?,
        progress_ocr_page: r.get(19)?,
        pdf_modified: r.get(20)?,
        source_path: r.get(21)?,
        mime_type: r.get(22)?,
        file_modified: r.get(23)?,
    })
}

/// A password of content no document holds.
const ORPHAN_PASSWORD: &str = "content_hash NOT IN (SELECT content_hash FROM documents)";

impl Catalog {
    /// Records a newly imported document as `queued`.
    pub fn insert_document(&self, new: &NewDocument) -> Result<Document, CatalogError> {
        self.insert_queued(DocumentId::new_random(), new, None)
    }

    /// Records a document found again after the catalog was restored, under the id its index
    /// is kept by, as `queued`: the indexer finds its index in place and reuses it.
    pub fn insert_recovered(&self, id: DocumentId, new: &NewDocument) -> Result<Document, CatalogError> {
        self.insert_queued(
            id,
            new,
            Some("Found again from its index when the catalog was restored"),
        )
    }

    /// Records document `id` as `queued`, logging `note` (else where it was added from).
    fn insert_queued(&self, id: DocumentId, new: &NewDocument, note: Option<&str>) -> Result<Document, CatalogError> {
        self.folder(new.folder)?;
        let origin = new.origin.as_ref();
        self.db.execute(
            "INSERT INTO documents (id, folder_id, file_name, byte_size, content_hash, added_at, status,
                 source_path, mime_type, file_modified)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', ?7, ?8, ?9)",
            args![
                id.to_string(),
                new.folder.0,
                new.file_name,
                new.byte_size,
                new.content_hash,
                now_millis(),
                origin.map(|o| &o.path),
                origin.map(|o| &o.mime_type),
                origin.and_then(|o| o.modified),
            ],
        )?;
        let added = match (note, origin) {
            (Some(note), _) => note.to_string(),
            (None, Some(o)) => format!("Added from {}", o.path),
            (None, None) => "Added".to_string(),
        };
        self.log(id, LogLevel::Info, &added)?;
        self.document(id)
    }

    /// The document with this id.
    pub fn document(&self, id: DocumentId) -> Result<Document, CatalogError> {
        self.db
            .query_opt(
                &format!("SELECT {COLUMNS} FROM documents WHERE id = ?1"),
                args![id.to_string()],
                read_document,
            )?
            .ok_or_else(|| CatalogError::DocumentNotFound(id.to_string()))
    }

    /// The documents directly in the given folders, or in every folder when `folders` is `None`,
    /// oldest first.
    pub fn list_documents(&self, folders: Option<&[FolderId]>) -> Result<Vec<Document>, CatalogError> {
        let all = self.db.query(
            &format!("SELECT {COLUMNS} FROM documents ORDER BY added_at, id"),
            &[],
            read_document,
        )?;
        Ok(match folders {
            None => all,
            Some(folders) => all.into_iter().filter(|d| folders.contains(&d.folder)).collect(),
        })
    }

    /// The documents with this status, oldest first.
    pub fn documents_with_status(&self, status: DocumentStatus) -> Result<Vec<Document>, CatalogError> {
        self.db.query(
            &format!("SELECT {COLUMNS} FROM documents WHERE status = ?1 ORDER BY added_at, id"),
            args![status.as_str()],
            read_document,
        )
    }

    /// The documents with this content, in any folder.
    pub fn documents_with_hash(&self, content_hash: &str) -> Result<Vec<Document>, CatalogError> {
        self.db.query(
            &format!("SELECT {COLUMNS} FROM documents WHERE content_hash = ?1 ORDER BY added_at, id"),
            args![content_hash],
            read_document,
        )
    }

    /// Moves a document to another folder: one row changes, the index stays where it is.
    pub fn move_document(&self, id: DocumentId, folder: FolderId) -> Result<Document, CatalogError> {
        self.folder(folder)?;
        let changed = self.db.execute(
            "UPDATE documents SET folder_id = ?1 WHERE id = ?2",
            args![folder.0, id.to_string()],
        )?;
        if changed == 0 {
            return Err(CatalogError::DocumentNotFound(id.to_string()));
        }
        let path = self.folder(folder)?.path;
        self.log(id, LogLevel::Info, &format!("Moved to {path}"))?;
        self.document(id)
    }

    /// Renames a document (its display file name); the stored file keeps its content address.
    pub fn rename_document(&self, id: DocumentId, name: &str) -> Result<Document, CatalogError> {
        let name = validate_name(name)?;
        let changed = self.db.execute(
            "UPDATE documents SET file_name = ?1 WHERE id = ?2",
            args![name, id.to_string()],
        )?;
        if changed == 0 {
            return Err(CatalogError::DocumentNotFound(id.to_string()));
        }
        self.log(id, LogLevel::Info, &format!("Renamed to {name}"))?;
        self.document(id)
    }

    /// Deletes a document's row; returns it so the caller can remove its file and index.
    pub fn delete_document(&self, id: DocumentId) -> Result<Document, CatalogError> {
        let doc = self.document(id)?;
        self.db
            .execute("DELETE FROM documents WHERE id = ?1", args![id.to_string()])?;
        Ok(doc)
    }

    /// Sets the status and its reason; progress is reset when the document goes back to the queue.
    /// The count of interrupted indexers starts again: this is an outcome, or the user's choice.
    pub fn set_status(&self, id: DocumentId, status: DocumentStatus, reason: Option<&str>) -> Result<(), CatalogError> {
        let reset = matches!(status, DocumentStatus::Queued);
        self.db.execute(
            "UPDATE documents SET status = ?1, reason = ?2, interrupted = 0,
                 progress_done = CASE WHEN ?3 THEN 0 ELSE progress_done END,
                 progress_ocr_page = NULL
             WHERE id = ?4",
            args![status.as_str(), reason, reset, id.to_string()],
        )?;
        let (level, what) = match status {
            DocumentStatus::Queued => (LogLevel::Info, "Queued to be indexed"),
            DocumentStatus::Indexing => (LogLevel::Info, "Indexing"),
            DocumentStatus::Ready => (LogLevel::Info, "Ready"),
            DocumentStatus::NeedsOcr => (LogLevel::Warning, "Needs OCR"),
            DocumentStatus::NeedsPassword => (LogLevel::Warning, "Needs a password"),
            DocumentStatus::Failed => (LogLevel::Error, "Failed"),
        };
        match reason {
            Some(reason) => self.log(id, level, &format!("{what}: {reason}")),
            None => self.log(id, level, what),
        }
    }

    /// Marks a queued document as being indexed, keeping the count of indexers that died
    /// indexing it; `false` if it no longer waits in the queue (cancelled or deleted meanwhile).
    pub fn start_indexing(&self, id: DocumentId) -> Result<bool, CatalogError> {
        let changed = self.db.execute(
            "UPDATE documents SET status = 'indexing', reason = NULL WHERE id = ?1 AND status = 'queued'",
            args![id.to_string()],
        )?;
        if changed == 1 {
            self.log(id, LogLevel::Info, "Reading started")?;
        }
        Ok(changed == 1)
    }

    /// Records indexing progress in pages.
    pub fn set_progress(
        &self,
        id: DocumentId,
        done: u64,
        total: u64,
        ocr_page: Option<u32>,
    ) -> Result<(), CatalogError> {
        self.db.execute(
            "UPDATE documents SET progress_done = ?1, progress_total = ?2, progress_ocr_page = ?3 WHERE id = ?4",
            args![done, total, ocr_page, id.to_string()],
        )?;
        Ok(())
    }

    /// Records what extraction found out about the document.
    pub fn set_metadata(&self, id: DocumentId, meta: &PdfMetadata) -> Result<(), CatalogError> {
        self.db.execute(
            "UPDATE documents SET title = ?1, author = ?2, pdf_created = ?3, page_count = ?4,
                 progress_total = ?4, pdf_modified = ?6 WHERE id = ?5",
            args![
                meta.title,
                meta.author,
                meta.created,
                meta.page_count,
                id.to_string(),
                meta.modified
            ],
        )?;
        Ok(())
    }

    /// Marks a document ready (searchable) with its final counts, a note (pages that need OCR)
    /// and the model whose vectors its index holds, if any; `false` if the document no longer
    /// exists.
    pub fn set_ready(&self, id: DocumentId, ready: &Readied<'_>) -> Result<bool, CatalogError> {
        let meta = ready.meta;
        let changed = self.db.execute(
            "UPDATE documents SET status = 'ready', reason = ?8, interrupted = 0, title = ?1, author = ?2, pdf_created = ?3,
                 page_count = ?4, progress_done = ?4, progress_total = ?4, char_count = ?5, chunk_count = ?6,
                 embedded_with = ?9, embed_done = 0, embed_total = 0, index_generation = index_generation + 1,
                 pdf_modified = ?10
             WHERE id = ?7",
            args![
                meta.title,
                meta.author,
                meta.created,
                meta.page_count,
                ready.chars,
                ready.chunks,
                id.to_string(),
                ready.note,
                ready.embedded_with,
                meta.modified
            ],
        )?;
        if changed == 1 {
            let mut ready_text = format!("Ready: {} pages, {} passages", meta.page_count, ready.chunks);
            if let Some(note) = ready.note {
                ready_text.push_str(&format!(" ({note})"));
            }
            self.log(id, LogLevel::Info, &ready_text)?;
        }
        Ok(changed == 1)
    }

    /// Records that the index of a ready document now holds the vectors of `embedder`; `false`
    /// if the document is no longer ready (deleted, or queued again meanwhile).
    pub fn set_embedded(&self, id: DocumentId, embedder: &str) -> Result<bool, CatalogError> {
        let changed = self.db.execute(
            "UPDATE documents SET embedded_with = ?1, embed_done = 0, embed_total = 0,
                 index_generation = index_generation + 1
             WHERE id = ?2 AND status = 'ready'",
            args![embedder, id.to_string()],
        )?;
        if changed == 1 {
            self.log(
                id,
                LogLevel::Info,
                &format!("Searchable by meaning: embedded with {embedder}"),
            )?;
        }
        Ok(changed == 1)
    }

    /// Corrects the record of which model's vectors a ready document's index holds (start-up
    /// reads it from the index itself).
    pub fn correct_embedded_with(&self, id: DocumentId, embedder: Option<&str>) -> Result<(), CatalogError> {
        self.db.execute(
            "UPDATE documents SET embedded_with = ?1 WHERE id = ?2 AND embedded_with IS DISTINCT FROM ?1",
            args![embedder, id.to_string()],
        )?;
        Ok(())
    }

    /// Ready documents whose index lacks the vectors of `embedder`, oldest first; each is
    /// marked as waiting for them (`embed_total` set to its chunk count).
    pub fn documents_to_embed(&self, embedder: &str) -> Result<Vec<Document>, CatalogError> {
        self.db.execute(
            "UPDATE documents SET embed_done = 0, embed_total = CASE WHEN chunk_count > 1 THEN chunk_count ELSE 1 END
             WHERE status = 'ready' AND embedded_with IS DISTINCT FROM ?1 AND embed_total = 0",
            args![embedder],
        )?;
        self.db.query(
            &format!(
                "SELECT {COLUMNS} FROM documents WHERE status = 'ready' AND embedded_with IS DISTINCT FROM ?1
                 ORDER BY added_at, id"
            ),
            args![embedder],
            read_document,
        )
    }

    /// Records embedding progress in chunks.
    pub fn set_embed_progress(&self, id: DocumentId, done: u64, total: u64) -> Result<(), CatalogError> {
        self.db.execute(
            "UPDATE documents SET embed_done = ?1, embed_total = ?2 WHERE id = ?3 AND status = 'ready'",
            args![done, total.max(1), id.to_string()],
        )?;
        Ok(())
    }

    /// The password a user gave for this content, if any: here, or (`None` inside) in the keyring.
    pub fn password_for(&self, content_hash: &str) -> Result<Option<Option<String>>, CatalogError> {
        let stored = self.db.query_opt(
            "SELECT password, in_keyring FROM document_passwords WHERE content_hash = ?1",
            args![content_hash],
            |r| Ok((!r.get::<bool>(1)?).then_some(r.get::<String>(0)?)),
        )?;
        stored.map(|kept| kept.map(|p| self.unseal(p)).transpose()).transpose()
    }

    /// Remembers the password for this content (`None`: it is in the keyring), so that a
    /// restart can index it again.
    pub fn store_password(&self, content_hash: &str, password: Option<&str>) -> Result<(), CatalogError> {
        self.db.execute(
            "INSERT INTO document_passwords (content_hash, password, in_keyring) VALUES (?1, ?2, ?3)
             ON CONFLICT (content_hash) DO UPDATE SET password = excluded.password, in_keyring = excluded.in_keyring",
            args![
                content_hash,
                password
                    .map(|p| self.seal(p, "a PDF's password"))
                    .transpose()?
                    .unwrap_or_default(),
                password.is_none()
            ],
        )?;
        Ok(())
    }

    /// The passwords kept here rather than in the keyring, with their content hashes.
    pub fn passwords_in_library(&self) -> Result<Vec<(String, String)>, CatalogError> {
        self.db.query(
            "SELECT content_hash, password FROM document_passwords WHERE NOT in_keyring",
            &[],
            |r| Ok((r.get(0)?, self.unseal(r.get(1)?)?)),
        )
    }

    /// The content hashes of passwords kept in the keyring for content no document holds.
    pub fn orphan_passwords_in_keyring(&self) -> Result<Vec<String>, CatalogError> {
        self.db.query(
            &format!("SELECT content_hash FROM document_passwords WHERE in_keyring AND {ORPHAN_PASSWORD}"),
            &[],
            |r| r.get(0),
        )
    }

    /// Forgets passwords (and keyring marks) for content no document holds any more.
    pub fn forget_orphan_passwords(&self) -> Result<(), CatalogError> {
        self.db
            .execute(&format!("DELETE FROM document_passwords WHERE {ORPHAN_PASSWORD}"), &[])?;
        Ok(())
    }

    /// Per-folder totals, subfolders included (as a folder's scope is): documents, pages and
    /// chunks, by status, and the latest addition.
    pub fn folder_stats(&self) -> Result<Vec<FolderStats>, CatalogError> {
        let own = self.own_folder_stats()?;
        Ok(own
            .iter()
            .map(|folder| {
                let inside = format!("{}/", folder.folder.path);
                let mut total = folder.clone();
                for sub in own.iter().filter(|s| s.folder.path.starts_with(&inside)) {
                    total.documents += sub.documents;
                    total.pages += sub.pages;
                    total.chunks += sub.chunks;
                    total.ready += sub.ready;
                    total.pending += sub.pending;
                    total.needing_attention += sub.needing_attention;
                    total.latest_added = total.latest_added.max(sub.latest_added);
                }
                total
            })
            .collect())
    }

    /// Per-folder totals of the documents directly in each folder.
    fn own_folder_stats(&self) -> Result<Vec<FolderStats>, CatalogError> {
        let counted = self.db.query(
            "SELECT folder_id, COUNT(*), CAST(COALESCE(SUM(page_count), 0) AS BIGINT),
                    CAST(COALESCE(SUM(chunk_count), 0) AS BIGINT),
                    CAST(SUM(CASE WHEN status = 'ready' THEN 1 ELSE 0 END) AS BIGINT),
                    CAST(SUM(CASE WHEN status IN ('queued', 'indexing') THEN 1 ELSE 0 END) AS BIGINT),
                    CAST(SUM(CASE WHEN status IN ('needs_ocr', 'needs_password', 'failed') THEN 1 ELSE 0 END) AS BIGINT),
                    MAX(added_at)
             FROM documents GROUP BY folder_id",
            &[],
            |r| {
                let counts: [u64; 6] = [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?];
                Ok((FolderId(r.get(0)?), (counts, r.get::<Option<i64>>(7)?)))
            },
        )?;
        let mut counted: HashMap<FolderId, ([u64; 6], Option<i64>)> = counted.into_iter().collect();
        Ok(self
            .list_folders()?
            .into_iter()
            .map(|folder: Folder| {
                let ([documents, pages, chunks, ready, pending, needing_attention], latest_added) =
                    counted.remove(&folder.id).unwrap_or_default();
                FolderStats {
                    folder,
                    documents,
                    pages,
                    chunks,
                    ready,
                    pending,
                    needing_attention,
                    latest_added,
                }
            })
            .collect())
    }

    /// At start-up: documents left `indexing` by an indexer that ended without finishing them go
    /// back to the queue. Only when that indexer `crashed` (`jobs/crash_mark.rs`) does it count
    /// against them: the second crash in a row while a document was being read sets it aside
    /// (failed) until the user tries it again. A kill or a request to stop never does: it is not
    /// the file's fault.
    pub fn requeue_interrupted(&self, crashed: bool) -> Result<Interrupted, CatalogError> {
        self.db.transaction(|| {
            if crashed {
                self.requeue_crashed()
            } else {
                self.requeue_stopped()
            }
        })
    }

    fn requeue_crashed(&self) -> Result<Interrupted, CatalogError> {
        // Logged first, while the rows still say which is which.
        self.db.execute(
            "INSERT INTO document_log (document_id, at, level, message)
             SELECT id, CAST(?1 AS BIGINT), CASE WHEN interrupted + 1 >= ?2 THEN 'error' ELSE 'warning' END,
                    CASE WHEN interrupted + 1 >= ?2 THEN CAST(?3 AS TEXT) ELSE CAST(?4 AS TEXT) END
             FROM documents WHERE status = 'indexing'",
            args![
                now_millis(),
                MAX_CRASHES,
                format!("Failed: {SET_ASIDE}"),
                "Lectern crashed while reading it; back in the queue"
            ],
        )?;
        let set_aside = self.db.execute(
            "UPDATE documents SET status = 'failed', reason = ?1, interrupted = 0, progress_done = 0
             WHERE status = 'indexing' AND interrupted + 1 >= ?2",
            args![SET_ASIDE, MAX_CRASHES],
        )?;
        let requeued = self.db.execute(
            "UPDATE documents SET status = 'queued', reason = NULL, interrupted = interrupted + 1, progress_done = 0
             WHERE status = 'indexing'",
            &[],
        )?;
        Ok(Interrupted { requeued, set_aside })
    }

    /// Documents left by an indexer that was killed or stopped: queued again, their count of
    /// crashes as it was.
    fn requeue_stopped(&self) -> Result<Interrupted, CatalogError> {
        self.db.execute(
            "INSERT INTO document_log (document_id, at, level, message)
             SELECT id, CAST(?1 AS BIGINT), 'info', CAST(?2 AS TEXT) FROM documents WHERE status = 'indexing'",
            args![
                now_millis(),
                "Lectern was stopped while reading it (not because of this file); back in the queue"
            ],
        )?;
        let requeued = self.db.execute(
            "UPDATE documents SET status = 'queued', reason = NULL, progress_done = 0 WHERE status = 'indexing'",
            &[],
        )?;
        Ok(Interrupted { requeued, set_aside: 0 })
    }

    /// Puts documents this process was indexing back in the queue because it is quitting on
    /// purpose: an interruption that does not count against them.
    pub fn requeue_unfinished(&self, ids: &[DocumentId]) -> Result<(), CatalogError> {
        for id in ids {
            let changed = self.db.execute(
                "UPDATE documents SET status = 'queued', progress_done = 0 WHERE id = ?1 AND status = 'indexing'",
                args![id.to_string()],
            )?;
            if changed == 1 {
                self.log(*id, LogLevel::Info, "Stopped part way; back in the queue")?;
            }
        }
        Ok(())
    }
}
