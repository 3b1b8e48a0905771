//! Linked directories: a folder kept in sync with a directory on disk, and for each of the
//! directory's PDFs the document it became, with the size, modification time and content hash
//! last seen, so that a catch-up compares cheaply and tells a rename from a new file.

use super::sql::{args, Row};
use serde::{Deserialize, Serialize};

use super::{now_millis, Catalog, CatalogError, DocumentId, FolderId};

/// A link's id.
pub type LinkId = i64;

/// A directory linked to a folder, with what its last sync found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Link {
    pub id: LinkId,
    pub folder: FolderId,
    /// The directory, absolute.
    pub path: String,
    /// Keep the documents of files deleted from the directory.
    pub keep_deleted: bool,
    pub created_at: i64,
    /// When the last sync finished (milliseconds since the epoch).
    pub last_sync: Option<i64>,
    /// False while the directory is missing (an unplugged drive): its documents are kept.
    pub available: bool,
    /// Files seen but not yet indexed: still being written.
    pub pending: u64,
    /// Files the last sync could not import, each with its reason.
    pub failed: Vec<(String, String)>,
    /// The device (`st_dev`) the directory was last seen on with files in it.
    #[serde(skip)]
    #[cfg_attr(feature = "typescript", ts(skip))]
    pub device: Option<u64>,
}

/// One file of a linked directory and the document it became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedFile {
    /// Relative to the link's directory, with '/' separators.
    pub rel_path: String,
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i64,
    pub content_hash: String,
    pub document: DocumentId,
}

const LINK_COLUMNS: &str =
    "id, folder_id, path, keep_deleted, created_at, last_sync, available, pending, failed, device";

fn read_link(r: &Row<'_>) -> Result<Link, CatalogError> {
    let failed: String = r.get(8)?;
    Ok(Link {
        id: r.get(0)?,
        folder: FolderId(r.get(1)?),
        path: r.get(2)?,
        keep_deleted: r.get(3)?,
        created_at: r.get(4)?,
        last_sync: r.get(5)?,
        available: r.get(6)?,
        pending: r.get::<i64>(7)?.max(0) as u64,
        failed: serde_json::from_str(&failed).unwrap_or_default(),
        device: r.get::<Option<i64>>(9)?.map(|d| d as u64),
    })
}

fn read_file(r: &Row<'_>) -> Result<LinkedFile, CatalogError> {
    let document: String = r.get(4)?;
    Ok(LinkedFile {
        rel_path: r.get(0)?,
        size: r.get::<i64>(1)?.max(0) as u64,
        mtime: r.get(2)?,
        content_hash: r.get(3)?,
        document: document.parse().map_err(|e: uuid::Error| CatalogError::Column {
            index: 4,
            reason: e.to_string(),
        })?,
    })
}

impl Catalog {
    /// Links `path` to `folder`.
    pub fn insert_link(&self, folder: FolderId, path: &str, keep_deleted: bool) -> Result<Link, CatalogError> {
        if let Some(existing) = self.link_by_path(path)? {
            return Err(CatalogError::AlreadyLinked {
                path: path.to_string(),
                folder: self.folder(existing.folder)?.path,
            });
        }
        let id = self.db.query_one(
            "INSERT INTO links (folder_id, path, keep_deleted, created_at, machine) VALUES (?1, ?2, ?3, ?4, ?5)
             RETURNING id",
            args![folder.0, path, keep_deleted, now_millis(), this_machine()],
            |r| r.get(0),
        )?;
        self.link(id)
    }

    pub fn link(&self, id: LinkId) -> Result<Link, CatalogError> {
        self.db
            .query_opt(
                &format!("SELECT {LINK_COLUMNS} FROM links WHERE id = ?1"),
                args![id],
                read_link,
            )?
            .ok_or_else(|| CatalogError::LinkNotFound(format!("#{id}")))
    }

    pub fn link_by_path(&self, path: &str) -> Result<Option<Link>, CatalogError> {
        self.db.query_opt(
            &format!("SELECT {LINK_COLUMNS} FROM links WHERE path = ?1"),
            args![path],
            read_link,
        )
    }

    /// Every link, by path.
    pub fn links(&self) -> Result<Vec<Link>, CatalogError> {
        self.db.query(
            &format!("SELECT {LINK_COLUMNS} FROM links ORDER BY path"),
            &[],
            read_link,
        )
    }

    /// The links of directories on this machine (and those made before links knew theirs): the
    /// ones this process syncs. Another machine's path is another directory.
    pub fn links_here(&self) -> Result<Vec<Link>, CatalogError> {
        self.db.query(
            &format!("SELECT {LINK_COLUMNS} FROM links WHERE machine IS NULL OR machine = ?1 ORDER BY path"),
            args![this_machine()],
            read_link,
        )
    }

    /// Removes a link; its documents stay in the folder.
    pub fn delete_link(&self, id: LinkId) -> Result<Link, CatalogError> {
        let link = self.link(id)?;
        self.db.execute("DELETE FROM links WHERE id = ?1", args![id])?;
        Ok(link)
    }

    /// Records the device a link's directory holds files on.
    pub fn set_link_device(&self, id: LinkId, device: u64) -> Result<(), CatalogError> {
        self.db
            .execute("UPDATE links SET device = ?2 WHERE id = ?1", args![id, device as i64])?;
        Ok(())
    }

    /// Records what a sync found.
    pub fn set_link_state(
        &self,
        id: LinkId,
        available: bool,
        pending: u64,
        failed: &[(String, String)],
    ) -> Result<(), CatalogError> {
        let failed = serde_json::to_string(failed).unwrap_or_else(|_| "[]".into());
        self.db.execute(
            "UPDATE links SET last_sync = ?2, available = ?3, pending = ?4, failed = ?5 WHERE id = ?1",
            args![id, now_millis(), available, pending as i64, failed],
        )?;
        Ok(())
    }

    /// The files of a link whose documents still exist.
    pub fn linked_files(&self, link: LinkId) -> Result<Vec<LinkedFile>, CatalogError> {
        self.db.query(
            "SELECT rel_path, size, mtime, content_hash, document_id FROM linked_files WHERE link_id = ?1 ORDER BY rel_path",
            args![link],
            read_file,
        )
    }

    /// Records (or replaces) the file at `file.rel_path` of `link`.
    pub fn put_linked_file(&self, link: LinkId, file: &LinkedFile) -> Result<(), CatalogError> {
        self.db.execute(
            "INSERT INTO linked_files (link_id, rel_path, size, mtime, content_hash, document_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (link_id, rel_path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime,
               content_hash = excluded.content_hash, document_id = excluded.document_id",
            args![
                link,
                file.rel_path,
                file.size as i64,
                file.mtime,
                file.content_hash,
                file.document.to_string()
            ],
        )?;
        Ok(())
    }

    /// Whether a file of any link has become document `id`.
    pub fn document_is_linked(&self, id: DocumentId) -> Result<bool, CatalogError> {
        self.db.query_one(
            "SELECT EXISTS (SELECT 1 FROM linked_files WHERE document_id = ?1)",
            args![id.to_string()],
            |r| r.get(0),
        )
    }

    pub fn delete_linked_file(&self, link: LinkId, rel_path: &str) -> Result<(), CatalogError> {
        self.db.execute(
            "DELETE FROM linked_files WHERE link_id = ?1 AND rel_path = ?2",
            args![link, rel_path],
        )?;
        Ok(())
    }
}

/// This machine's name (its host name), which a link records.
fn this_machine() -> Option<String> {
    let mut name = [0u8; 256];
    // SAFETY: the buffer is ours and its length is passed; the name is NUL-terminated in it.
    let found = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) } == 0;
    let end = name.iter().position(|&b| b == 0)?;
    found.then(|| String::from_utf8_lossy(&name[..end]).into_owned())
}
