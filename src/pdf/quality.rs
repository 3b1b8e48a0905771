//! Whether extracted text is a usable text layer, and which pages need OCR.
//!
//! A scanned page paints an image and shows no glyph. A page whose fonts map glyphs to nothing
//! shows glyphs but yields no text, or a few stray punctuation marks (`"7+%-` for "Phone"). Both
//! need OCR. Real text, even a plot's axis digits or two Greek letters, is mostly letters, digits
//! or non-ASCII symbols. A document with no usable text anywhere is `needs_ocr`; a document with
//! some is indexed, and the pages that need OCR are named.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// What one extracted page held, as the quality judgement needs it.
#[derive(Debug, Clone, Copy)]
pub struct PageContent<'a> {
    pub number: u32,
    pub text: &'a str,
    pub has_text_layer: bool,
    pub has_images: bool,
    pub unmapped_fonts: &'a [String],
    /// The text was read by OCR (the page had none of its own).
    pub ocr: bool,
}

/// Whether a page's text is worth indexing; a page without such text is read by OCR.
pub fn is_usable(text: &str) -> bool {
    CharCounts::of(text).is_usable()
}

/// Running judgement over a document's pages.
#[derive(Debug, Default, Clone)]
pub struct TextQuality {
    counts: CharCounts,
    pages: u32,
    scanned: Vec<u32>,
    unreadable: Vec<u32>,
    from_ocr: Vec<u32>,
    unmapped_fonts: BTreeSet<String>,
}

#[derive(Debug, Default, Clone, Copy)]
struct CharCounts {
    meaningful: usize,
    other: usize,
}

impl CharCounts {
    fn of(text: &str) -> CharCounts {
        let mut counts = CharCounts::default();
        for c in text.chars().filter(|c| !c.is_whitespace()) {
            if c.is_alphanumeric() || !c.is_ascii() {
                counts.meaningful += 1;
            } else {
                counts.other += 1;
            }
        }
        counts
    }

    fn is_usable(self) -> bool {
        self.meaningful > 0 && self.meaningful >= self.other
    }
}

impl TextQuality {
    /// Takes one more page into account.
    pub fn add(&mut self, page: PageContent<'_>) {
        let counts = CharCounts::of(page.text);
        self.counts.meaningful += counts.meaningful;
        self.counts.other += counts.other;
        self.pages += 1;
        if counts.is_usable() {
            if page.ocr {
                self.from_ocr.push(page.number);
            }
            return;
        }
        if !page.unmapped_fonts.is_empty() {
            self.unreadable.push(page.number);
            self.unmapped_fonts.extend(page.unmapped_fonts.iter().cloned());
        } else if !page.has_text_layer && page.has_images {
            self.scanned.push(page.number);
        }
    }

    /// True when the text seen so far holds something worth indexing.
    pub fn is_usable(&self) -> bool {
        self.counts.is_usable()
    }

    /// Pages with no usable text that OCR could read (scans, fonts without Unicode), ascending.
    pub fn pages_needing_ocr(&self) -> Vec<u32> {
        let mut pages: Vec<u32> = self.scanned.iter().chain(&self.unreadable).copied().collect();
        pages.sort_unstable();
        pages
    }

    /// Pages whose text OCR read, ascending.
    pub fn pages_from_ocr(&self) -> &[u32] {
        &self.from_ocr
    }

    /// Why a document without usable text is `needs_ocr`, in words a person understands.
    pub fn no_text_reason(&self) -> String {
        if !self.unmapped_fonts.is_empty() {
            let fonts: Vec<&str> = self.unmapped_fonts.iter().map(String::as_str).collect();
            format!(
                "its fonts ({}) draw letters as shapes without saying which letters they are, so no text can be read; this PDF needs OCR",
                fonts.join(", ")
            )
        } else if self.pages > 0 && self.scanned.len() as u32 == self.pages {
            "no text layer: the pages are images (a scan); this PDF needs OCR".to_string()
        } else {
            "no text layer: the pages hold no readable text; this PDF needs OCR".to_string()
        }
    }
}

/// A page OCR could not read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OcrFailure {
    pub page: u32,
    pub reason: String,
}

impl std::fmt::Display for OcrFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "page {} could not be read by OCR: {}", self.page, self.reason)
    }
}

/// The note kept with a ready document some of whose pages were read by OCR (`from_ocr`), could
/// not be (`failed`), or still need it (`needing`, the failed ones among them), or `None` if
/// there are none.
pub fn ocr_note(needing: &[u32], from_ocr: &[u32], failed: &[OcrFailure]) -> Option<String> {
    let read = page_list(from_ocr).map(|(noun, list)| {
        let verb = if from_ocr.len() == 1 { "was" } else { "were" };
        format!("{noun} {list} {verb} read by OCR")
    });
    let failed_pages: Vec<u32> = failed.iter().map(|f| f.page).collect();
    let unreadable = failed.first().map(|first| match failed {
        [_] => first.to_string(),
        _ => format!(
            "pages {} could not be read by OCR (page {}: {})",
            page_list(&failed_pages).map_or_else(String::new, |(_, list)| list),
            first.page,
            first.reason
        ),
    });
    let waiting: Vec<u32> = needing.iter().copied().filter(|p| !failed_pages.contains(p)).collect();
    let unread = page_list(&waiting).map(|(noun, list)| {
        let verb = if waiting.len() == 1 { "has" } else { "have" };
        format!(
            "{noun} {list} {verb} no readable text (scanned, or fonts without text) and cannot be searched until OCR"
        )
    });
    let parts: Vec<String> = [read, unreadable, unread].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// "page" or "pages", and `pages` as ranges ("1, 4-5"); `None` for no pages.
fn page_list(pages: &[u32]) -> Option<(&'static str, String)> {
    let (&first, rest) = pages.split_first()?;
    let mut ranges: Vec<(u32, u32)> = vec![(first, first)];
    for &page in rest {
        match ranges.last_mut() {
            Some(last) if page == last.1 + 1 => last.1 = page,
            _ => ranges.push((page, page)),
        }
    }
    let list: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
        .collect();
    let noun = if pages.len() == 1 { "page" } else { "pages" };
    Some((noun, list.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page<'a>(number: u32, text: &'a str, layer: bool, images: bool, unmapped: &'a [String]) -> PageContent<'a> {
        PageContent {
            number,
            text,
            has_text_layer: layer,
            has_images: images,
            unmapped_fonts: unmapped,
            ocr: false,
        }
    }

    fn usable(text: &str) -> bool {
        let mut q = TextQuality::default();
        q.add(page(1, text, true, false, &[]));
        q.is_usable()
    }

    #[test]
    fn scans_and_unmapped_fonts_are_not_text() {
        assert!(!usable(""));
        assert!(!usable(" \n "));
        assert!(!usable("\"7+%-"));
    }

    #[test]
    fn short_real_text_counts() {
        assert!(usable("αβ"));
        assert!(usable("0 2 4 6 8 0 2 4 6 8"));
        assert!(usable("😀 🔧 🔨"));
        assert!(usable("Hello (world), \"quoted\"."));
    }

    #[test]
    fn scanned_and_unreadable_pages_are_named_blank_ones_are_not() {
        let fonts = ["F1".to_string()];
        let mut q = TextQuality::default();
        q.add(page(1, "", false, true, &[]));
        q.add(page(2, "Some real text here", true, true, &[]));
        q.add(page(3, "", false, false, &[]));
        q.add(page(4, "", false, true, &[]));
        q.add(page(5, "\"7+%", true, false, &fonts));
        assert!(q.is_usable());
        assert_eq!(q.pages_needing_ocr(), vec![1, 4, 5]);
        assert_eq!(
            ocr_note(&q.pages_needing_ocr(), &[], &[]).unwrap(),
            "pages 1, 4-5 have no readable text (scanned, or fonts without text) and cannot be searched until OCR"
        );
        assert!(ocr_note(&[], &[], &[]).is_none());
        assert!(ocr_note(&[7], &[], &[]).unwrap().starts_with("page 7 has"));
    }

    #[test]
    fn pages_read_by_ocr_are_named() {
        let mut q = TextQuality::default();
        q.add(PageContent {
            ocr: true,
            ..page(1, "Recognised words", false, true, &[])
        });
        q.add(page(2, "", false, true, &[]));
        q.add(PageContent {
            ocr: true,
            ..page(3, "", false, true, &[])
        });
        assert!(q.is_usable());
        assert_eq!(q.pages_from_ocr(), [1]);
        assert_eq!(
            ocr_note(&q.pages_needing_ocr(), q.pages_from_ocr(), &[]).unwrap(),
            "page 1 was read by OCR; pages 2-3 have no readable text (scanned, or fonts without text) and cannot be searched until OCR"
        );
    }

    #[test]
    fn pages_ocr_failed_on_say_why() {
        let failure = |page| OcrFailure {
            page,
            reason: "PDFium could not render the page".into(),
        };
        assert_eq!(
            ocr_note(&[2, 3], &[1], &[failure(3)]).unwrap(),
            "page 1 was read by OCR; page 3 could not be read by OCR: PDFium could not render the page; \
             page 2 has no readable text (scanned, or fonts without text) and cannot be searched until OCR"
        );
        assert_eq!(
            ocr_note(&[2, 3], &[], &[failure(2), failure(3)]).unwrap(),
            "pages 2-3 could not be read by OCR (page 2: PDFium could not render the page)"
        );
    }

    #[test]
    fn the_reason_says_scan_or_fonts() {
        let mut scan = TextQuality::default();
        scan.add(page(1, "", false, true, &[]));
        assert!(scan.no_text_reason().contains("are images (a scan)"));
        let mut fonts = TextQuality::default();
        fonts.add(page(1, "", true, false, &["Foo".to_string()]));
        assert!(fonts.no_text_reason().contains("(Foo)"), "{}", fonts.no_text_reason());
        assert!(fonts.no_text_reason().contains("needs OCR"));
    }
}
