//! Errors of PDF recognition and text extraction, each mapped to the status a document ends in.
//! They cross from the worker process to its parent, so they carry no live values.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::fault::{Classified, ErrorCode, Hint};

/// Why a file could not be read as a PDF, or its text could not be extracted.
#[derive(Debug, Error, Serialize, Deserialize)]
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
    Crashed(String),
    #[error("the PDF reader was stopped from outside ({0}) before it finished; the file is read again later")]
    Stopped(String),
    #[error("reading this PDF took longer than the limit of {0} seconds; the file may be damaged or pathological")]
    Timeout(u64),
    #[error(
        "this PDF needs more than {} MB of memory to read; it was set aside (LECTERN_PDF_MEMORY_MB raises the limit)",
        limit >> 20
    )]
    OutOfMemory { limit: u64 },
    #[error("this PDF has {pages} pages, more than the limit of {limit}")]
    TooManyPages { pages: u64, limit: u64 },
    #[error(
        "page {0} of this PDF asks for more work than the limits allow (drawing operations, text or \
         decompressed bytes); the file is probably damaged or hostile"
    )]
    PageTooComplex(u32),
    #[error("this PDF is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    #[error("the PDF reader could not start: {0}")]
    WorkerStart(String),
    #[error("the file could not be read: {0}")]
    Io(String),
    /// The stored PDF was not there when a page's OCR worker opened it: its drive went, most
    /// likely. Not the file's fault: it is read again once it is back.
    #[error("the PDF was not there to be read ({0}); it is read again once it is back")]
    Gone(String),
    #[error("the PDF has no page {page}; it has {count}")]
    NoSuchPage { page: u32, count: u32 },
    #[error("OCR is not available: {0}")]
    OcrUnavailable(String),
    #[error("page {page} could not be read by OCR: {reason}")]
    OcrFailed { page: u32, reason: String },
}

impl From<std::io::Error> for PdfError {
    fn from(e: std::io::Error) -> Self {
        PdfError::Io(e.to_string())
    }
}

impl Classified for PdfError {
    /// A file the user gave that is not a readable PDF is their input to correct; a reader stopped
    /// from outside is read again later.
    fn code(&self) -> ErrorCode {
        match self {
            PdfError::NeedsPassword | PdfError::WrongPassword => ErrorCode::NeedsPassword,
            PdfError::Io(_) => ErrorCode::Internal,
            PdfError::Stopped(_) | PdfError::Gone(_) => ErrorCode::Unavailable,
            _ => ErrorCode::InvalidInput,
        }
    }

    fn hint(&self) -> Option<Hint> {
        matches!(self, PdfError::NeedsPassword | PdfError::WrongPassword).then_some(Hint::EnterPassword)
    }
}
