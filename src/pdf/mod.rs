//! PDF recognition and per-page text extraction (lopdf), with the judgement of whether a document
//! has a usable text layer at all.

mod error;
mod extract;
mod info;
mod quality;
mod sniff;
mod write;

pub use error::PdfError;
pub use extract::{Extracted, Extraction, Limits};
pub use quality::{ocr_note, PageContent, TextQuality};
pub use sniff::{check_pdf, has_pdf_header};
pub use write::text_pdf;
