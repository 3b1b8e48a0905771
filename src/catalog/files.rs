//! The PDFs themselves, when the library lives in a database: one row a content, so that one
//! URL is the whole library and every process can read any document. (A library on disk keeps
//! them in `files/`, and its catalog keeps none.)

use super::sql::args;
use super::{Catalog, CatalogError};

impl Catalog {
    /// Whether the catalog keeps the PDFs (a library in a database does).
    pub fn keeps_files(&self) -> bool {
        self.db.is_postgres()
    }

    /// Keeps the PDF of `content_hash` (nothing changes if it is kept already).
    pub fn put_file(&self, content_hash: &str, bytes: &[u8]) -> Result<(), CatalogError> {
        self.db.execute(
            "INSERT INTO files (content_hash, bytes) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            args![content_hash, bytes],
        )?;
        Ok(())
    }

    /// Whether the PDF of `content_hash` is kept.
    pub fn has_file(&self, content_hash: &str) -> Result<bool, CatalogError> {
        self.db.query_one(
            "SELECT EXISTS (SELECT 1 FROM files WHERE content_hash = ?1)",
            args![content_hash],
            |r| r.get(0),
        )
    }

    /// The PDF of `content_hash`, if it is kept.
    pub fn file(&self, content_hash: &str) -> Result<Option<Vec<u8>>, CatalogError> {
        self.db.query_opt(
            "SELECT bytes FROM files WHERE content_hash = ?1",
            args![content_hash],
            |r| r.get(0),
        )
    }

    /// Forgets the PDFs no document holds (a process may have died between deleting the last
    /// document of a content and its file).
    pub fn remove_unreferenced_files(&self) -> Result<usize, CatalogError> {
        self.db.execute(
            "DELETE FROM files WHERE content_hash NOT IN (SELECT content_hash FROM documents)",
            &[],
        )
    }

    /// Forgets the PDF of `content_hash`.
    pub fn remove_file(&self, content_hash: &str) -> Result<(), CatalogError> {
        self.db
            .execute("DELETE FROM files WHERE content_hash = ?1", args![content_hash])?;
        Ok(())
    }
}
