//! The second reader: a file lopdf cannot open (a damaged cross-reference table, an object it
//! cannot parse) is read by PDFium instead, which repairs more. Its pages come out as the first
//! reader's do, without headings; pages without text still go to OCR. Runs in the worker process.

use std::path::Path;

use pdfium_render::prelude::{PdfDocumentMetadataTagType, PdfPageObjectsCommon};

use super::ocr::bind_pdfium;
use super::read::{normalise, Extracted};
use super::{Limits, PdfError};
use crate::catalog::PdfMetadata;

/// Reads the text of the PDF at `path` with the PDFium at `library`, handing the steps to `emit`
/// as [`super::read::read`] does.
pub fn read(
    library: &Path,
    path: &Path,
    password: Option<&str>,
    limits: &Limits,
    emit: &mut dyn FnMut(Extracted) -> bool,
) -> Result<(), PdfError> {
    let pdfium = bind_pdfium(library).map_err(PdfError::Parse)?;
    let document = pdfium
        .load_pdf_from_file(path, password)
        .map_err(|e| PdfError::Parse(format!("PDFium could not open it ({e:?})")))?;
    let pages = document.pages();
    let count = pages.len().max(0) as u64;
    if count == 0 {
        return Err(PdfError::NoPages);
    }
    if count > limits.max_pages {
        return Err(PdfError::TooManyPages {
            pages: count,
            limit: limits.max_pages,
        });
    }
    let metadata = document.metadata();
    let tag = |tag| {
        metadata
            .get(tag)
            .map(|t| t.value().trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let opened = Extracted::Opened(PdfMetadata {
        title: tag(PdfDocumentMetadataTagType::Title),
        author: tag(PdfDocumentMetadataTagType::Author),
        created: None,
        modified: None,
        page_count: count,
    });
    if !emit(opened) {
        return Ok(());
    }
    for index in 0..pages.len() {
        let number = index as u32 + 1;
        let page = pages
            .get(index)
            .map_err(|e| PdfError::Parse(format!("PDFium could not read page {number} ({e:?})")))?;
        let text = page.text().map(|t| t.all()).unwrap_or_default();
        let step = Extracted::Page {
            number,
            has_text_layer: !text.trim().is_empty(),
            text: normalise(&text),
            headings: Vec::new(),
            has_images: page.objects().iter().any(|o| o.as_image_object().is_some()),
            unmapped_fonts: Vec::new(),
        };
        if !emit(step) {
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn pdfium_reads_each_pages_text_and_the_metadata() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let models = std::env::var_os("LECTERN_TEST_MODELS").map_or_else(|| root.join(".models"), PathBuf::from);
        let library = models.join("pdfium/libpdfium.so");
        assert!(
            library.is_file(),
            "PDFium is not installed in {}; run scripts/setup-models.sh",
            models.display()
        );
        let pdf = root.join("corpus/pdfs/text-xelatex-4p.pdf");
        let mut steps = Vec::new();
        read(&library, &pdf, None, &Limits::default(), &mut |step| {
            steps.push(step);
            true
        })
        .unwrap();
        let Some(Extracted::Opened(meta)) = steps.first() else {
            panic!("{steps:?}")
        };
        assert_eq!(meta.page_count, 4);
        let pages: Vec<&str> = steps
            .iter()
            .filter_map(|s| match s {
                Extracted::Page { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(pages.len(), 4);
        assert!(
            pages.iter().all(|text| text.split_whitespace().count() > 50),
            "{pages:?}"
        );
    }
}
