//! Reading one PDF in this process, page by page: what the worker process runs. The text of each
//! page comes from `lectern-text`, which interprets the page's content itself.

use std::path::Path;

use lectern_text::{Extractor, OpenError};
use lopdf::Document;
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::info::read_info;
use super::ocr::{self, OcrPage, OcrSettings, WordBox};
use super::pdfium_text;
use super::{Limits, PdfError};
use crate::catalog::PdfMetadata;

/// One step of an extraction.
#[derive(Debug, Serialize, Deserialize)]
pub enum Extracted {
    /// The file opened; its metadata and page count.
    Opened(PdfMetadata),
    /// The text of one page (1-based), normalised.
    Page {
        number: u32,
        text: String,
        /// The page's section headings, normalised, in reading order.
        headings: Vec<String>,
        /// The page shows glyphs (invisible OCR text included), whether or not they map to text.
        has_text_layer: bool,
        /// The page paints images; with no text layer, it is probably a scan.
        has_images: bool,
        /// Fonts of the page whose glyphs map to no Unicode text (base font names).
        unmapped_fonts: Vec<String>,
    },
    /// One page (1-based) as OCR read it.
    Recognised { number: u32, page: OcrPage },
    /// Where each word of one page's text is.
    Words { number: u32, words: Vec<WordBox> },
}

/// Opens the document and hands its steps to `emit`, stopping early when `emit` says so (false).
/// A file lopdf cannot open, or finds no pages in, is read by the PDFium at `second`, if given.
pub fn read(
    path: &Path,
    password: Option<&str>,
    limits: &Limits,
    second: Option<&Path>,
    emit: &mut dyn FnMut(Extracted) -> bool,
) -> Result<(), PdfError> {
    let size = std::fs::metadata(path)?.len();
    if size > limits.max_bytes {
        return Err(PdfError::TooLarge {
            size,
            limit: limits.max_bytes,
        });
    }
    let first = open(path, password, limits).and_then(|doc| match doc.get_pages() {
        pages if pages.is_empty() => Err(PdfError::NoPages),
        pages => Ok((doc, pages)),
    });
    let (doc, pages) = match (first, second) {
        (Ok(read), _) => read,
        // What PDFium cannot read either fails as lopdf said.
        (Err(e @ (PdfError::Parse(_) | PdfError::NoPages)), Some(pdfium)) => {
            return pdfium_text::read(pdfium, path, password, limits, emit).map_err(|_| e)
        }
        (Err(e), _) => return Err(e),
    };
    if pages.len() as u64 > limits.max_pages {
        return Err(PdfError::TooManyPages {
            pages: pages.len() as u64,
            limit: limits.max_pages,
        });
    }
    let info = read_info(&doc);
    let meta = PdfMetadata {
        title: info.title,
        author: info.author,
        created: info.created,
        modified: info.modified,
        page_count: pages.len() as u64,
    };
    if !emit(Extracted::Opened(meta)) {
        return Ok(());
    }
    let mut extractor = extractor(&doc, limits);
    for (index, (_, &page_id)) in pages.iter().enumerate() {
        let number = index as u32 + 1;
        let page = extractor.page(page_id);
        if page.truncated {
            return Err(PdfError::PageTooComplex(number));
        }
        let step = Extracted::Page {
            number,
            text: normalise(&page.text),
            headings: page.headings.iter().map(|h| normalise(h)).collect(),
            has_text_layer: page.has_text_layer,
            has_images: page.has_images,
            unmapped_fonts: page.unmapped_fonts,
        };
        if !emit(step) {
            return Ok(());
        }
    }
    Ok(())
}

/// The page extractor of `doc`, within `limits`.
fn extractor<'a>(doc: &'a Document, limits: &Limits) -> Extractor<'a> {
    Extractor::new(
        doc,
        lectern_text::Limits {
            max_decompressed: limits.max_decompressed,
            ..lectern_text::Limits::default()
        },
    )
}

/// Loads the document, telling a missing or wrong password apart from a damaged file.
fn open(path: &Path, password: Option<&str>, limits: &Limits) -> Result<Document, PdfError> {
    let bytes = std::fs::read(path)?;
    lectern_text::open(&bytes, password, limits.max_decompressed).map_err(|e| match e {
        OpenError::NeedsPassword => PdfError::NeedsPassword,
        OpenError::WrongPassword => PdfError::WrongPassword,
        OpenError::Parse(e) => PdfError::Parse(e.to_string()),
    })
}

/// Lays out page `number` again with the box of each word, and hands them to `emit` placed on
/// the page's text as it was stored.
pub fn words(
    path: &Path,
    password: Option<&str>,
    limits: &Limits,
    number: u32,
    emit: &mut dyn FnMut(Extracted) -> bool,
) -> Result<(), PdfError> {
    let doc = open(path, password, limits)?;
    let pages = doc.get_pages();
    let Some(&page_id) = pages.get(&number) else {
        return Err(PdfError::NoSuchPage {
            page: number,
            count: pages.len() as u32,
        });
    };
    let mut extractor = extractor(&doc, limits).with_words();
    let page = extractor.page(page_id);
    if page.truncated {
        return Err(PdfError::PageTooComplex(number));
    }
    let words = super::words::place(&normalise(&page.text), &page.words);
    emit(Extracted::Words { number, words });
    Ok(())
}

/// Reads page `number` by OCR and hands it to `emit`.
pub fn recognise(
    path: &Path,
    password: Option<&str>,
    number: u32,
    settings: &OcrSettings,
    emit: &mut dyn FnMut(Extracted) -> bool,
) -> Result<(), PdfError> {
    let page = ocr::recognise(path, password, number, settings)?;
    emit(Extracted::Recognised { number, page });
    Ok(())
}

/// NFKC (ligatures become letters), control characters become spaces, runs of spaces collapse,
/// and lines are trimmed. Offsets of chunks refer to this normalised text.
pub(super) fn normalise(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in raw.nfkc().collect::<String>().lines() {
        let mut last_space = true;
        let start = out.len();
        for c in line.chars() {
            let c = if c.is_control() || c.is_whitespace() { ' ' } else { c };
            if c == ' ' {
                if !last_space {
                    out.push(' ');
                }
                last_space = true;
            } else {
                out.push(c);
                last_space = false;
            }
        }
        if out.ends_with(' ') {
            out.pop();
        }
        if out.len() > start {
            out.push('\n');
        }
    }
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_collapses_spaces_and_ligatures() {
        assert_eq!(
            normalise("  the \u{FB01}rst\t\tline  \n\n  second\u{0}line "),
            "the first line\nsecond line"
        );
    }
}
