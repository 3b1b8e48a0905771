//! Fuzz target for page text extraction: arbitrary bytes are opened as a PDF with
//! `lectern_text::open` (lopdf underneath) and every page (up to 50) goes through
//! `lectern_text::Extractor` with small limits. Panics are not caught: a panic, a timeout or
//! running out of memory is a finding.
#![no_main]

use lectern_text::{Extractor, Limits};
use libfuzzer_sys::fuzz_target;

const MAX_DECOMPRESSED: usize = 16 << 20;
const MAX_PAGES: usize = 50;

fn limits() -> Limits {
    Limits {
        max_decompressed: MAX_DECOMPRESSED,
        max_operations: 200_000,
        max_glyphs: 100_000,
        max_text_bytes: 1 << 20,
        max_form_depth: 12,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = lectern_text::open(data, None, MAX_DECOMPRESSED) else {
        return;
    };
    let mut extractor = Extractor::new(&doc, limits());
    for &id in doc.get_pages().values().take(MAX_PAGES) {
        let _ = extractor.page(id);
    }
});
