//! Fuzz target for page text extraction: arbitrary bytes are opened as a PDF with
//! `lectern_text::open` (lopdf underneath) and every page goes through `lectern_text::Extractor`
//! under the limits the app reads with (`src/pdf/read.rs`: `Limits::default()`, at most 50,000
//! pages, and a page stopped by a limit ends the document). Run it with the PDF worker's memory,
//! `-rss_limit_mb=1024`. Panics are not caught: a panic, a timeout or running out of memory is a
//! finding.
#![no_main]

use lectern_text::{Extractor, Limits};
use libfuzzer_sys::fuzz_target;

/// The app's page limit (`PdfReader`'s `max_pages`).
const MAX_PAGES: usize = 50_000;

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    let Ok(doc) = lectern_text::open(data, None, limits.max_decompressed) else {
        return;
    };
    let mut extractor = Extractor::new(&doc, limits);
    for &id in doc.get_pages().values().take(MAX_PAGES) {
        if extractor.page(id).truncated {
            break;
        }
    }
});
