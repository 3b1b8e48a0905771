//! Every PDF of the repository's corpus (`corpus/`, or `$LECTERN_CORPUS`) through the
//! extractor: no panic, a bounded time per file, each manifest sample phrase on its page, and
//! the text-layer and unmapped-font findings the manifest implies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use lectern_text::score::contains_phrase;
use lectern_text::{open, Extractor, Limits, OpenError, PageText};
use serde_json::Value;

fn corpus_dir() -> PathBuf {
    std::env::var_os("LECTERN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus"))
}

/// The pages of a corpus file, or `None` when it cannot be opened.
fn extract(file: &str, password: Option<&str>) -> Option<Vec<PageText>> {
    let doc = open_file(file, password).ok()?;
    let mut extractor = Extractor::new(&doc, Limits::default());
    Some(doc.get_pages().values().map(|&id| extractor.page(id)).collect())
}

fn open_file(file: &str, password: Option<&str>) -> Result<lopdf::Document, OpenError> {
    let bytes = std::fs::read(corpus_dir().join("pdfs").join(file)).unwrap();
    open(&bytes, password, Limits::default().max_decompressed)
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).expect("the corpus manifest");
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn every_corpus_file_extracts_without_panic_and_samples_are_found() {
    let mut missing = Vec::new();
    for entry in manifest() {
        let file = entry["file"].as_str().unwrap();
        let password = entry["user_password"].as_str().filter(|p| !p.is_empty());
        let started = Instant::now();
        let pages = std::panic::catch_unwind(|| extract(file, password)).unwrap_or_else(|_| panic!("{file} panicked"));
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{file} took {:?}",
            started.elapsed()
        );
        let (Some(pages), Some(phrase), Some(page)) =
            (pages, entry["sample_text"].as_str(), entry["sample_page"].as_u64())
        else {
            continue;
        };
        if entry["expect"] == "text" {
            let text = pages.get(page as usize - 1).map_or("", |p| p.text.as_str());
            if !contains_phrase(text, phrase) {
                missing.push(format!("{file}: {phrase:?} not on page {page}"));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn fonts_without_unicode_are_named_not_read_as_garbage() {
    for file in ["font-truetype-no-tounicode.pdf", "font-type3-no-tounicode.pdf"] {
        let pages = extract(file, None).unwrap();
        assert!(pages[0].has_text_layer, "{file}");
        assert!(!pages[0].unmapped_fonts.is_empty(), "{file}");
        assert!(pages[0].text.trim().is_empty(), "{file}: {:?}", pages[0].text);
    }
}

#[test]
fn scanned_pages_have_no_text_layer_and_ocr_layers_count() {
    let mixed = extract("scan-multipage-6p-mixed.pdf", None).unwrap();
    let layers: Vec<bool> = mixed.iter().map(|p| p.has_text_layer).collect();
    assert_eq!(layers, vec![false, false, false, true, false, false]);
    // Invisible text (render mode 3) is how OCR layers are written.
    let ocr = extract("scan-with-ocr-text-layer.pdf", None).unwrap();
    assert!(ocr[0].has_text_layer && !ocr[0].text.is_empty());
    assert!(!extract("scan-ccitt-g4.pdf", None).unwrap()[0].has_text_layer);
}

/// "TheCrazyOnes": the words of this file are placed by kerning, without space characters.
#[test]
fn word_spaces_come_from_glyph_positions() {
    let pages = extract("text-crazyones-pdfa-ghostscript.pdf", None).unwrap();
    assert!(pages[0].text.contains("The Crazy Ones"), "{}", pages[0].text);
}

#[test]
fn vertical_japanese_reads_through_the_adobe_japan1_collection() {
    let pages = extract("script-ja-vertical-jo.pdf", None).unwrap();
    assert!(pages[0].text.contains("わたくしといふ現象は"), "{}", pages[0].text);
    assert!(pages[0].unmapped_fonts.is_empty());
}

/// Every encrypted corpus file opens with the user password its manifest lists (RC4-40, RC4-128,
/// AES-128, AES-256 R5 and R6, `/Encrypt` inline or by reference), files with an empty user
/// password open without one, and a wrong or missing password is reported as such.
#[test]
fn encrypted_files_open_with_their_password_and_only_with_it() {
    let mut opened = 0;
    for entry in manifest().into_iter().filter(|e| e["encrypted"] == true) {
        let file = entry["file"].as_str().unwrap();
        match entry["user_password"].as_str() {
            Some("") => {
                let doc = open_file(file, None).unwrap_or_else(|e| panic!("{file}: {e}"));
                assert!(doc.was_encrypted(), "{file}");
            }
            Some(password) => {
                let doc = open_file(file, Some(password)).unwrap_or_else(|e| panic!("{file}: {e}"));
                assert_eq!(doc.get_pages().len() as u64, entry["pages"].as_u64().unwrap(), "{file}");
                if let (Some(phrase), Some(page)) = (entry["sample_text"].as_str(), entry["sample_page"].as_u64()) {
                    let id = doc.get_pages()[&(page as u32)];
                    let text = Extractor::new(&doc, Limits::default()).page(id).text;
                    assert!(contains_phrase(&text, phrase), "{file}: {phrase:?} not in {text:?}");
                }
                assert!(
                    matches!(open_file(file, None), Err(OpenError::NeedsPassword)),
                    "{file} opened without its password"
                );
                assert!(
                    matches!(open_file(file, Some("wrong")), Err(OpenError::WrongPassword)),
                    "{file} opened with a wrong password"
                );
            }
            None => {
                assert!(matches!(open_file(file, None), Err(OpenError::NeedsPassword)), "{file}");
                continue;
            }
        }
        opened += 1;
    }
    assert_eq!(opened, 10, "encrypted corpus files opened");
}
