//! OCR of pages without text: a two-column scan reads column by column, and a scan turned every
//! way reads upright. (The corpus test indexes every scan through it.)

use lectern::pdf::Extracted;

use crate::common::{config, corpus_dir, corpus_pdf};

/// Word F1 of `found` against `expected`: the harmonic mean of the shares of words each has of
/// the other's, counted with multiplicity, case and punctuation aside.
fn word_f1(found: &str, expected: &str) -> f64 {
    use std::collections::HashMap;
    let words = |text: &str| -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for word in text.split_whitespace() {
            let word: String = word
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            if !word.is_empty() {
                *counts.entry(word).or_default() += 1;
            }
        }
        counts
    };
    let (found, expected) = (words(found), words(expected));
    let common: usize = found
        .iter()
        .map(|(w, n)| (*n).min(expected.get(w).copied().unwrap_or(0)))
        .sum();
    let (precision, recall) = (
        common as f64 / found.values().sum::<usize>().max(1) as f64,
        common as f64 / expected.values().sum::<usize>().max(1) as f64,
    );
    2.0 * precision * recall / (precision + recall).max(f64::EPSILON)
}

/// The text OCR reads on page `page` of the corpus file `file`.
fn recognised(file: &str, page: u32) -> (String, u32) {
    let home = tempfile::tempdir().unwrap();
    let config = config(home.path());
    let settings = config.ocr_settings().unwrap();
    let mut worker = config.reader.recognise(&corpus_pdf(file), None, page, &settings);
    match worker.next_step() {
        Some(Ok(Extracted::Recognised { text, rotation, .. })) => (text, rotation),
        other => panic!("page {page} of {file}: {other:?}"),
    }
}

#[test]
fn a_two_column_scan_reads_column_by_column() {
    let reference =
        std::fs::read_to_string(corpus_dir().join("expected/scan-linn-two-column.ocr-reference.txt")).unwrap();
    let (text, rotation) = recognised("scan-linn-two-column.pdf", 1);
    assert_eq!(rotation, 0);
    let f1 = word_f1(&text, &reference);
    assert!(f1 >= 0.90, "word F1 {f1:.3} against the reference:\n{text}");
}

#[test]
fn a_scan_turned_every_way_reads_upright() {
    let upright = recognised("rot-scan-four-cardinal-directions.pdf", 1).0;
    assert!(upright.contains("LinnSequencer"), "{upright}");
    let mut turns = Vec::new();
    for page in 2..=4 {
        let (text, rotation) = recognised("rot-scan-four-cardinal-directions.pdf", page);
        assert!(
            word_f1(&text, &upright) >= 0.90,
            "page {page}, turned {rotation}:\n{text}"
        );
        turns.push(rotation);
    }
    turns.sort_unstable();
    assert_eq!(turns, [90, 180, 270]);
}
