//! Errors of PDF recognition and text extraction, each mapped to the status a document ends in.

use std::path::PathBuf;

use thiserror::Error;

/// Why a file could not be read as a PDF, or its text could not be extracted.
#[derive(Debug, Error)]
pub enum PdfError {
    #[error("{path} is not a PDF (it starts with {start:?}); only PDF files can be added")]
    NotAPdf { path: PathBuf, start: String },
    #[error("this PDF is protected by a password; unlock it with the password to index it")]
    NeedsPassword,
    #[error("the password was not accepted for this PDF; check it and try again")]
    WrongPassword,
    #[error("the PDF could not be read: {0}")]
    Parse(String),
    #[error("the PDF has no pages that can be read")]
    NoPages,
    #[error("the PDF reader crashed on this file ({0}); the file is probably damaged")]
    Panic(String),
    #[error("reading this PDF took longer than the limit of {0} seconds; the file may be damaged or pathological")]
    Timeout(u64),
    #[error("this PDF is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    #[error("the file could not be read: {0}")]
    Io(#[from] std::io::Error),
}
