//! OCR of one page, in the worker process: PDFium renders it in grey at a resolution chosen for
//! the page (`render.rs`), its leader dots are erased (`leaders.rs`), and Tesseract reads its
//! words in reading order, a column at a time (`tesseract.rs`); when those words are doubtful,
//! Tesseract tells which way is up, and the page is turned upright and read again. Each word
//! keeps its box on the page as shown.

mod leaders;
mod render;
mod tesseract;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::read::normalise;
use super::PdfError;
use leaders::erase_leaders;
pub(super) use render::bind_pdfium;
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrPage {
    /// The words, normalised, a line per line.
    pub text: String,
    /// Each word's characters in `text` and its box on the page.
    pub words: Vec<WordBox>,
    /// How far the page was turned clockwise to be read upright (0, 90, 180 or 270).
    pub rotation: u32,
}

/// A word of a page read by OCR: its characters in the page's text and where it is on the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct WordBox {
    /// The word is characters `start..end` of the page's text.
    pub start: u32,
    pub end: u32,
    /// Its box, left, top, right and bottom, as fractions of the page's width and height as
    /// the page is shown (its own rotation applied, as PDF viewers show it).
    pub bounds: [f32; 4],
}

/// Reads page `number` of the PDF at `path` by OCR.
pub fn recognise(
    path: &Path,
    password: Option<&str>,
    number: u32,
    settings: &OcrSettings,
) -> Result<OcrPage, PdfError> {
    let tesseract = Tesseract::load(&settings.languages).map_err(PdfError::OcrUnavailable)?;
    let renderer = Renderer::load(&settings.pdfium).map_err(PdfError::OcrUnavailable)?;
    let mut page = renderer.render(path, password, number)?;
    erase_leaders(&mut page);
    let failed = |reason| PdfError::OcrFailed { page: number, reason };
    // Most pages are upright: read as they are, they are done unless the words read are doubtful,
    // and only then does the orientation engine (a third of the time of a read) say which way
    // is up.
    let words = tesseract.words(&page).map_err(failed)?;
    if is_confident(&words) {
        return Ok(assemble(&words, (page.width, page.height), 0));
    }
    match tesseract.upright_rotation(&page) {
        Some(rotation) if rotation != 0 => {
            let mut page = rotated(&page, rotation);
            erase_leaders(&mut page);
            let words = tesseract.words(&page).map_err(failed)?;
            Ok(assemble(&words, (page.width, page.height), rotation))
        }
        _ => Ok(assemble(&words, (page.width, page.height), 0)),
    }
}

/// The mean confidence (by characters) of words read on a page that is upright; a page read
/// sideways or upside down scores far below it.
const CONFIDENT: f32 = 75.0;

/// Whether `words` read like a page read the right way up: enough of them, confidently.
fn is_confident(words: &[Word]) -> bool {
    let (mut chars, mut weighted) = (0usize, 0f32);
    for word in words {
        let n = word.text.chars().count();
        chars += n;
        weighted += word.confidence * n as f32;
    }
    chars >= 20 && weighted / chars as f32 >= CONFIDENT
}

/// The page's text from `words` in their order, a line per line, each word normalised, with
/// where each word is: its characters, and its box on the page as shown before it was turned by
/// `rotation` to be read (`size` is the image read, in pixels).
fn assemble(words: &[Word], size: (usize, usize), rotation: u32) -> OcrPage {
    let mut text = String::new();
    let mut chars = 0u32;
    let mut boxes = Vec::with_capacity(words.len());
    for word in words {
        let normalised = normalise(&word.text);
        if normalised.is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push(if word.starts_line { '\n' } else { ' ' });
            chars += 1;
        }
        let start = chars;
        chars += normalised.chars().count() as u32;
        text.push_str(&normalised);
        boxes.push(WordBox {
            start,
            end: chars,
            bounds: unturned(word.bounds, size, rotation),
        });
    }
    OcrPage {
        text,
        words: boxes,
        rotation,
    }
}

/// `bounds` in pixels of an image of `size` that was the page turned clockwise by `rotation`, as
/// fractions of the page before it was turned.
fn unturned(bounds: [u32; 4], (width, height): (usize, usize), rotation: u32) -> [f32; 4] {
    let [left, top, right, bottom] = bounds;
    let (w, h) = (width.max(1) as f32, height.max(1) as f32);
    let (l, t, r, b) = (left as f32 / w, top as f32 / h, right as f32 / w, bottom as f32 / h);
    // Each corner of the turned image goes back to where it was on the page.
    match rotation % 360 {
        90 => [t, 1.0 - r, b, 1.0 - l],
        180 => [1.0 - r, 1.0 - b, 1.0 - l, 1.0 - t],
        270 => [1.0 - b, l, 1.0 - t, r],
        _ => [l, t, r, b],
    }
    .map(|v| v.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, starts_line: bool, bounds: [u32; 4]) -> Word {
        Word {
            text: text.into(),
            starts_line,
            bounds,
            confidence: 90.0,
        }
    }

    #[test]
    fn words_become_lines_with_their_characters_and_boxes() {
        let words = [
            word("Call", true, [0, 0, 40, 10]),
            word("\u{FB01}ne", false, [50, 0, 100, 10]),
            word(" ", false, [0, 0, 1, 1]),
            word("Ishmael.", true, [0, 20, 100, 30]),
        ];
        let read = assemble(&words, (100, 40), 0);
        assert_eq!(read.text, "Call fine\nIshmael.");
        let spans: Vec<_> = read.words.iter().map(|w| (w.start, w.end)).collect();
        assert_eq!(spans, [(0, 4), (5, 9), (10, 18)]);
        assert_eq!(read.words[2].bounds, [0.0, 0.5, 1.0, 0.75]);
    }

    #[test]
    fn boxes_go_back_to_where_they_were_before_the_page_was_turned() {
        // The page is 200 wide and 100 high; turned a quarter clockwise, it reads 100 x 200.
        // A word at the top right of the page is at the bottom right once turned.
        let top_right = [0.75, 0.0, 1.0, 0.2];
        let close = |bounds: [f32; 4]| bounds.iter().zip(top_right).all(|(a, b)| (a - b).abs() < 1e-6);
        assert!(close(unturned([80, 150, 100, 200], (100, 200), 90)));
        // Turned half-way, the top right is the bottom left.
        assert!(close(unturned([0, 80, 50, 100], (200, 100), 180)));
        // Turned three quarters, the top right is the top left.
        assert!(close(unturned([0, 0, 20, 50], (100, 200), 270)));
        assert!(close(unturned([150, 0, 200, 20], (200, 100), 0)));
    }
}
