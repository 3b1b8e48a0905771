//! PDF recognition, per-page text extraction in a worker process with hard limits, and the
//! judgement of whether a document has a usable text layer at all.

mod error;
mod extract;
mod info;
mod ocr;
mod pdfium_text;
mod quality;
mod read;
mod sniff;
mod words;
mod worker;
mod write;

pub use error::PdfError;
pub use extract::{Extraction, Limits, PdfReader};
pub use ocr::{OcrPage, OcrSettings, WordBox};
pub use quality::{is_usable, ocr_note, OcrFailure, PageContent, TextQuality};
pub use read::Extracted;
pub use sniff::{check_pdf, has_pdf_header};
pub use worker::serve_if_asked;
pub use write::{pages_pdf, text_pdf};
