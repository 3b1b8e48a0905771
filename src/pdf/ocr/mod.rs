//! OCR of one page, in the worker process: PDFium renders it in grey at 300 dpi (less for a page
//! too large for that, `render.rs`), Tesseract tells which way is up and turns it upright, then
//! reads its words in reading order, a column at a time (`tesseract.rs`).

mod render;
mod tesseract;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::PdfError;
use render::{rotated, Renderer};
use tesseract::{Tesseract, Word};

/// How pages are read by OCR: where PDFium is, and the languages Tesseract reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OcrSettings {
    /// `libpdfium.so`, as the setup installs it (`<models>/pdfium/libpdfium.so`).
    pub pdfium: PathBuf,
    /// Tesseract's languages, `+` between them (`eng`, `eng+deu`).
    pub languages: String,
}

/// What OCR read on a page.
pub struct Recognised {
    /// The words, a line per line and a blank line between paragraphs.
    pub text: String,
    /// How far the page was turned clockwise to be read upright (0, 90, 180 or 270).
    pub rotation: u32,
}

/// Reads page `number` of the PDF at `path` by OCR.
pub fn recognise(
    path: &Path,
    password: Option<&str>,
    number: u32,
    settings: &OcrSettings,
) -> Result<Recognised, PdfError> {
    let tesseract = Tesseract::load(&settings.languages).map_err(PdfError::OcrUnavailable)?;
    let renderer = Renderer::load(&settings.pdfium).map_err(PdfError::OcrUnavailable)?;
    let page = renderer
        .render(path, password, number)
        .map_err(|reason| PdfError::OcrFailed { page: number, reason })?;
    let rotation = tesseract.upright_rotation(&page).unwrap_or(0);
    let page = if rotation == 0 { page } else { rotated(&page, rotation) };
    let words = tesseract
        .words(&page)
        .map_err(|reason| PdfError::OcrFailed { page: number, reason })?;
    Ok(Recognised {
        text: text_of(&words),
        rotation,
    })
}

/// The text of `words`, in their order: a line per line, a blank line between paragraphs.
fn text_of(words: &[Word]) -> String {
    let mut text = String::new();
    for word in words {
        if !text.is_empty() {
            text.push_str(if word.starts_paragraph {
                "\n\n"
            } else if word.starts_line {
                "\n"
            } else {
                " "
            });
        }
        text.push_str(&word.text);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, starts_paragraph: bool, starts_line: bool) -> Word {
        Word {
            text: text.into(),
            starts_paragraph,
            starts_line,
        }
    }

    #[test]
    fn words_become_lines_and_paragraphs() {
        let words = [
            word("Call", true, true),
            word("me", false, false),
            word("Ishmael.", false, true),
            word("Some", true, true),
            word("years", false, false),
        ];
        assert_eq!(text_of(&words), "Call me\nIshmael.\n\nSome years");
    }
}
