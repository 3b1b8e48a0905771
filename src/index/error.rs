//! Errors of the per-document indexes on disk.

use std::path::PathBuf;

use thiserror::Error;

/// Why an index could not be written or read.
#[derive(Debug, Error)]
pub enum IndexError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the vector table failed: {0}")]
    Lance(#[from] lancedb::Error),
    #[error("the vector table's data is malformed: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    #[error("the keyword index failed: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("the index manifest {path} cannot be read: {reason}")]
    Manifest { path: PathBuf, reason: String },
    #[error("{path} is damaged: {reason}")]
    Damaged { path: PathBuf, reason: String },
}

impl IndexError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> IndexError {
        let path = path.into();
        move |source| IndexError::Io { path, source }
    }
}
