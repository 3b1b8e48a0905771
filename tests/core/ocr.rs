//! OCR of pages without text: a two-column scan reads column by column, a scan turned every way
//! reads upright, each word comes with its box on the page as shown, and in a library the pages
//! read are found, highlighted, kept across a stop, and read or left by the library's switch.
//! (The corpus test indexes every scan through it.)

use lectern::catalog::Scope;
use lectern::catalog::DEFAULT_FOLDER;
use lectern::jobs::{IndexEvent, RunMode};
use lectern::pdf::{Extracted, OcrPage};
use lectern::search::{SearchMode, SearchRequest};
use lectern::{DocumentStatus, Library};

use crate::common::{config, corpus_dir, corpus_pdf, index_all, runtime};

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

/// Page `page` of the corpus file `file` as OCR reads it.
fn recognised(file: &str, page: u32) -> OcrPage {
    let home = tempfile::tempdir().unwrap();
    let config = config(home.path());
    let settings = config.ocr_settings().unwrap();
    let mut worker = config.reader.recognise(&corpus_pdf(file), None, page, &settings);
    match worker.next_step() {
        Some(Ok(Extracted::Recognised { page, .. })) => page,
        other => panic!("page {page} of {file}: {other:?}"),
    }
}

#[test]
fn a_two_column_scan_reads_column_by_column() {
    let reference =
        std::fs::read_to_string(corpus_dir().join("expected/scan-linn-two-column.ocr-reference.txt")).unwrap();
    let page = recognised("scan-linn-two-column.pdf", 1);
    assert_eq!(page.rotation, 0);
    let f1 = word_f1(&page.text, &reference);
    assert!(f1 >= 0.90, "word F1 {f1:.3} against the reference:\n{}", page.text);
}

/// The box of the first word `word` of `page`.
fn box_of(page: &OcrPage, word: &str) -> [f32; 4] {
    let chars: Vec<char> = page.text.chars().collect();
    page.words
        .iter()
        .find(|w| chars[w.start as usize..w.end as usize].iter().collect::<String>() == word)
        .unwrap_or_else(|| panic!("no word {word:?} in:\n{}", page.text))
        .bounds
}

/// `bounds` on a page turned clockwise by `degrees`.
fn turned(bounds: [f32; 4], degrees: u32) -> [f32; 4] {
    let [l, t, r, b] = bounds;
    match degrees {
        90 => [1.0 - b, l, 1.0 - t, r],
        180 => [1.0 - r, 1.0 - b, 1.0 - l, 1.0 - t],
        270 => [t, 1.0 - r, b, 1.0 - l],
        _ => bounds,
    }
}

#[test]
fn each_word_has_its_characters_and_its_box_on_the_page() {
    let page = recognised("scan-linn-two-column.pdf", 1);
    let chars: Vec<char> = page.text.chars().collect();
    assert!(page.words.len() > 100, "{} words", page.words.len());
    for word in &page.words {
        let text: String = chars[word.start as usize..word.end as usize].iter().collect();
        assert!(
            !text.trim().is_empty() && !text.contains(char::is_whitespace),
            "{text:?}"
        );
        let [l, t, r, b] = word.bounds;
        assert!(
            (0.0..=1.0).contains(&l) && l < r && r <= 1.0 && t < b && b <= 1.0,
            "{text}: {:?}",
            word.bounds
        );
    }
    // The text reads down the left column first: its words lie left of the middle, and the
    // page's last words lie right of it.
    let (first, last) = (&page.words[0], &page.words[page.words.len() - 1]);
    assert!(
        first.bounds[2] < 0.5 && last.bounds[0] > 0.5,
        "{:?} .. {:?}",
        first.bounds,
        last.bounds
    );
}

#[test]
fn a_scan_turned_every_way_reads_upright() {
    let upright = recognised("rot-scan-four-cardinal-directions.pdf", 1);
    let title = box_of(&upright, "LinnSequencer");
    let centre = |[l, t, r, b]: [f32; 4]| ((l + r) / 2.0, (t + b) / 2.0);
    let mut turns = Vec::new();
    for number in 2..=4 {
        let page = recognised("rot-scan-four-cardinal-directions.pdf", number);
        assert!(
            word_f1(&page.text, &upright.text) >= 0.90,
            "page {number}, turned {}:\n{}",
            page.rotation,
            page.text
        );
        // The word's box is where the word is shown: the title's place on the upright page,
        // turned as this page is turned.
        let (fx, fy) = centre(box_of(&page, "LinnSequencer"));
        let turn = [90, 180, 270].into_iter().find(|&degrees| {
            let (ex, ey) = centre(turned(title, degrees));
            (ex - fx).abs() < 0.05 && (ey - fy).abs() < 0.05
        });
        turns.push(
            turn.unwrap_or_else(|| panic!("page {number}: the title is at ({fx}, {fy}), not where a turn puts it")),
        );
    }
    turns.sort_unstable();
    assert_eq!(turns, [90, 180, 270]);
}

/// The mixed scan: pages 1-3 and 5-6 are images, page 4 has text.
const MIXED: &str = "scan-multipage-6p-mixed.pdf";

/// The mixed scan added to `library`, and an indexer reading it until idle, started after the
/// events are subscribed to.
fn indexing_mixed(
    library: &Library,
) -> (
    lectern::catalog::Document,
    tokio::sync::broadcast::Receiver<IndexEvent>,
    tokio::runtime::Runtime,
    tokio::task::JoinHandle<Result<lectern::jobs::IndexRun, lectern::Error>>,
) {
    let doc = library
        .add(&[corpus_pdf(MIXED)], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    let events = library.subscribe();
    let rt = runtime();
    let indexer = {
        let library = library.clone();
        rt.spawn(async move { library.run_indexer(RunMode::UntilIdle).await })
    };
    (doc, events, rt, indexer)
}

/// The pages the events received so far said were being read by OCR, in order, once each.
fn pages_read_by_ocr(events: &mut tokio::sync::broadcast::Receiver<IndexEvent>) -> Vec<u32> {
    let mut pages = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let IndexEvent::Progress {
            ocr_page: Some(page), ..
        } = event
        {
            pages.push(page);
        }
    }
    pages.dedup();
    pages
}

#[test]
fn a_passage_read_by_ocr_is_found_and_its_words_have_boxes() {
    let home = tempfile::tempdir().unwrap();
    let mut config = config(home.path());
    // Two pages read side by side: they still go into the index in order.
    config.ocr_workers = 2;
    let library = Library::open(config).unwrap();
    let doc = library
        .add(&[corpus_pdf(MIXED)], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    let mut events = library.subscribe();
    index_all(&library);
    let doc = library.document(&doc.id.to_string()).unwrap();
    assert_eq!(doc.status, DocumentStatus::Ready, "{:?}", doc.reason);
    assert_eq!(doc.reason.as_deref(), Some("pages 1-3, 5-6 were read by OCR"));
    assert_eq!(pages_read_by_ocr(&mut events), [1, 2, 3, 5, 6]);

    // Words of page 1, as OCR read them, find its passage; the passage's words have boxes.
    let page_one = library.page_words(doc.id, 1).unwrap();
    assert!(page_one.len() > 20, "{} words on page 1", page_one.len());
    // Page 4 has its own text: its words are laid out again from it.
    let page_four = library.page_words(doc.id, 4).unwrap();
    assert!(page_four.len() > 20, "{} words on page 4", page_four.len());
    let request = SearchRequest {
        query: "scrouched kitchen".into(),
        scope: Scope::default(),
        k: 10,
        mode: SearchMode::Keyword,
        second_stage: false,
    };
    let results = runtime().block_on(library.search(&request)).unwrap();
    let hit = results
        .hits
        .iter()
        .find(|h| [1, 2, 3, 5, 6].contains(&h.page))
        .unwrap_or_else(|| panic!("no passage of a scanned page in {:?}", results.hits));
    let boxed = library
        .page_words(doc.id, hit.page)
        .unwrap()
        .into_iter()
        .filter(|w| w.start < hit.char_end && w.end > hit.char_start)
        .count();
    let words = hit.text.split_whitespace().count();
    assert!(
        boxed * 10 >= words * 8,
        "{boxed} boxes for the {words} words of {:?}",
        hit.text
    );
}

/// A library's drive unplugged while a page is read by OCR: each page's worker opens the PDF
/// anew and does not find it. The pages it could not open are not taken for pages OCR failed on:
/// the reading stops for the drive, and once it is back the document reads as a clean run does.
#[test]
fn pages_whose_file_went_with_its_drive_are_read_again_not_left_unread() {
    use std::time::{Duration, Instant};
    use tokio::sync::broadcast::error::TryRecvError;

    let drive = tempfile::tempdir().unwrap();
    let (home, unplugged) = (drive.path().join("library"), drive.path().join("unplugged"));
    // One page read by OCR at a time: page 2's worker starts once page 1 is read.
    let library = Library::open(lectern::LibraryConfig {
        ocr_workers: 1,
        ..config(&home)
    })
    .unwrap();
    let (doc, mut events, rt, indexer) = indexing_mixed(&library);
    // The drive goes as page 1's worker starts, before it opens the PDF (the reader of the text
    // has it open); it comes back once indexing stopped for it, or once the reading went past
    // page 4 without the pages before (as it did when their failures were taken for the pages').
    let (started, mut gone) = (Instant::now(), false);
    while !indexer.is_finished() {
        match events.try_recv() {
            Ok(IndexEvent::Progress { ocr_page: Some(1), .. }) if !gone => {
                std::fs::rename(&home, &unplugged).unwrap();
                gone = true;
            }
            Ok(IndexEvent::Progress { pages_done, .. }) if gone && pages_done >= 4 => break,
            Err(TryRecvError::Empty) => std::thread::sleep(Duration::from_millis(5)),
            _ => {}
        }
        assert!(started.elapsed() < Duration::from_secs(120), "indexing did not stop");
    }
    assert!(gone, "the drive was taken away while page 1 was read");
    std::fs::rename(&unplugged, &home).unwrap();
    let _ = rt.block_on(indexer).unwrap();
    index_all(&library);
    let doc = library.document(&doc.id.to_string()).unwrap();
    assert_eq!(doc.status, DocumentStatus::Ready);
    assert_eq!(doc.reason.as_deref(), Some("pages 1-3, 5-6 were read by OCR"));
}

#[test]
fn ocr_goes_on_from_the_pages_already_read() {
    let home = tempfile::tempdir().unwrap();
    let library = Library::open(config(home.path())).unwrap();
    let (doc, mut events, rt, indexer) = indexing_mixed(&library);
    // Stopped while page 3 is being read, once pages 1 and 2 are.
    loop {
        if let Ok(IndexEvent::Progress { ocr_page: Some(3), .. }) = events.blocking_recv() {
            assert!(library.cancel(doc.id));
            break;
        }
    }
    rt.block_on(indexer).unwrap().unwrap();
    assert_eq!(
        library.document(&doc.id.to_string()).unwrap().status,
        DocumentStatus::Failed
    );
    // The stop did not wait for page 3: its reading was ended, and only pages 1 and 2 are kept.
    let kept = home.path().join(format!("indexes/.ocr-{}", doc.id));
    let mut pages: Vec<String> = std::fs::read_dir(&kept)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "about.json")
        .collect();
    pages.sort();
    assert_eq!(pages, ["1.json", "2.json"]);

    library.reindex(doc.id).unwrap();
    let mut events = library.subscribe();
    index_all(&library);
    let doc = library.document(&doc.id.to_string()).unwrap();
    assert_eq!(doc.reason.as_deref(), Some("pages 1-3, 5-6 were read by OCR"));
    assert_eq!(pages_read_by_ocr(&mut events), [3, 5, 6]);
    assert!(!library.page_words(doc.id, 1).unwrap().is_empty());
}

#[test]
fn ocr_switched_off_leaves_scans_and_switched_on_reads_them() {
    let library = crate::common::library();
    let mut settings = library.settings().unwrap();
    settings.ocr = false;
    library.save_settings(&settings).unwrap();
    let doc = library
        .add(&[corpus_pdf("scan-ccitt-g4.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    index_all(&library);
    assert_eq!(
        library.document(&doc.id.to_string()).unwrap().status,
        DocumentStatus::NeedsOcr
    );

    settings.ocr = true;
    library.save_settings(&settings).unwrap();
    assert!(library.settings().unwrap().ocr);
    index_all(&library);
    let doc = library.document(&doc.id.to_string()).unwrap();
    assert_eq!(doc.status, DocumentStatus::Ready, "{:?}", doc.reason);
    assert_eq!(doc.reason.as_deref(), Some("page 1 was read by OCR"));
}
