//! Errors of the index stores: the per-document indexes on disk and the index database.

use std::path::PathBuf;

use thiserror::Error;

use crate::database::said;

use crate::catalog::DocumentId;
use crate::fault::{Classified, ErrorCode};

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
    #[error("the index of document {id} cannot be published: {reason} (a fault of Lectern, not of the file)")]
    Publication { id: DocumentId, reason: String },
    #[error("the index database at {server} failed to {what}: {}", said(.source))]
    Database {
        server: String,
        what: &'static str,
        #[source]
        source: tokio_postgres::Error,
    },
    #[error(
        "the index database at {server} cannot be reached (it was to {what}: {}); ask again once it \
         answers: check that its server runs and that this machine reaches it",
        said(.source)
    )]
    DatabaseAway {
        server: String,
        what: &'static str,
        #[source]
        source: tokio_postgres::Error,
    },
    #[error(
        "the index of document {id} was not published: another process became the library's indexer \
         (term {newer}, this one's {term}), and it indexes the document again"
    )]
    Superseded { id: DocumentId, term: i64, newer: i64 },
    #[error("the index database at {server} cannot be used: {reason}")]
    DatabaseSetup { server: String, reason: String },
    #[error("{store} holds no {what}: index the document again (`lectern doc reindex`)")]
    Missing { store: String, what: String },
    #[error(
        "the vectors in {at} have {index} dimensions and the question's {question}: the embedding model \
         gives vectors of another size under the same name; index the document again (`lectern doc reindex`)"
    )]
    Dimension { at: String, index: usize, question: usize },
}

impl IndexError {
    /// The error for the vectors of the index in `dir`, of `index` dimensions, searched with a
    /// question's of `question`.
    pub fn dimension_mismatch(dir: &std::path::Path, index: usize, question: usize) -> IndexError {
        IndexError::Dimension {
            at: dir.join(super::block::BLOCK_FILE).display().to_string(),
            index,
            question,
        }
    }

    /// The error for the index in `dir`, rebuilt while a query read it.
    pub fn rebuilt(dir: &std::path::Path) -> IndexError {
        IndexError::Damaged {
            path: dir.join(super::block::BLOCK_FILE),
            reason: "the index was rebuilt while it was being searched".into(),
        }
    }

    /// Whether this error says the index's contents are wrong or missing, rather than that it
    /// could not be read now (an I/O error, too many open files).
    pub fn is_damage(&self) -> bool {
        use tantivy::directory::error::{OpenDirectoryError, OpenReadError};
        use tantivy::TantivyError;

        // A file of a published index that is not there, or that holds what cannot be decoded.
        let broken =
            |e: &std::io::Error| matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::InvalidData);
        match self {
            IndexError::Io { source, .. } if broken(source) => return true,
            IndexError::Tantivy(TantivyError::IoError(e)) if broken(e) => return true,
            _ => {}
        }
        matches!(
            self,
            IndexError::Damaged { .. }
                | IndexError::Missing { .. }
                | IndexError::Manifest { .. }
                | IndexError::Arrow(_)
                | IndexError::Tantivy(
                    TantivyError::DataCorruption(_)
                        | TantivyError::IncompatibleIndex(_)
                        | TantivyError::OpenDirectoryError(OpenDirectoryError::DoesNotExist(_))
                        | TantivyError::OpenReadError(OpenReadError::FileDoesNotExist(_))
                )
        )
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> IndexError {
        let path = path.into();
        move |source| IndexError::Io { path, source }
    }
}

impl IndexError {
    /// The error `source` of the index database at `server` while it was to do `what`:
    /// [`IndexError::DatabaseAway`] when the server went away or cannot be reached.
    pub fn database(server: String, what: &'static str, source: tokio_postgres::Error) -> IndexError {
        if crate::database::went_away(&source) {
            IndexError::DatabaseAway { server, what, source }
        } else {
            IndexError::Database { server, what, source }
        }
    }
}

impl Classified for IndexError {
    fn code(&self) -> ErrorCode {
        match self {
            IndexError::DatabaseAway { .. } => ErrorCode::Unavailable,
            IndexError::Superseded { .. } => ErrorCode::Conflict,
            _ => ErrorCode::Internal,
        }
    }
}
