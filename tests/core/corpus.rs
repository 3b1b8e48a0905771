//! Every corpus file ends in the status its manifest implies; none panics or hangs; passwords
//! unlock what they should; the words scanned pages show are found.

use std::collections::HashMap;
use std::sync::Once;

use lectern::catalog::{Scope, DEFAULT_FOLDER};
use lectern::search::{SearchMode, SearchRequest};
use lectern::{DocumentStatus, ErrorCode};

use lectern::pdf::Extracted;

use crate::common::{config, corpus_dir, corpus_manifest, corpus_pdf, index_all, library, runtime, CorpusEntry};

/// The files without a text layer whose pages show text (scans, a rotated scan, text drawn as
/// curves, fonts without Unicode), each with words its page image shows, which OCR must find.
const SHOWS_TEXT: [(&str, &str); 11] = [
    ("scan-linn-two-column.pdf", "32 Track MIDI Sequence Recorder"),
    ("rot-scan-four-cardinal-directions.pdf", "state-of-the-art composition"),
    ("scan-ccitt-g4.pdf", "amazingly simple to learn and use"),
    ("scan-huckfinn-page-c02-22.pdf", "went tip-toeing along a path"),
    ("scan-jbig2.pdf", "the professional musician"),
    ("scan-epson-printer-raster.pdf", "Optical character recognition"),
    ("scan-typewriter-2400dpi.pdf", "Linzensoep a la Waterman"),
    (
        "scan-hugemono-35000px-jbig2.pdf",
        "a very big image with a tiny amount of text",
    ),
    ("font-text-as-vector-curves.pdf", "should be used for OCR processing"),
    ("font-type3-no-tounicode.pdf", "ua"),
    ("font-truetype-no-tounicode.pdf", "Phone"),
];

/// Whether a keyword search for `phrase` finds it in a passage of `doc`.
fn finds(lib: &lectern::Library, doc: &lectern::Document, phrase: &str) -> bool {
    let request = SearchRequest {
        query: phrase.into(),
        scope: Scope::default(),
        k: 20,
        mode: SearchMode::Keyword,
        second_stage: false,
    };
    let words = |text: &str| -> String {
        let lower = text.to_lowercase();
        lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    runtime()
        .block_on(lib.search(&request))
        .unwrap()
        .hits
        .iter()
        .any(|hit| hit.document == doc.id && words(&hit.text).contains(&words(phrase)))
}

/// The end states the manifest's `expect` allows for a file.
fn allowed(entry: &CorpusEntry) -> Vec<DocumentStatus> {
    use DocumentStatus::*;
    match (entry.expect.as_str(), entry.encrypted) {
        ("text", _) => vec![Ready],
        // "error is also an acceptable outcome" (manifest notes of bad-missing-xref-entry.pdf).
        ("no_text", _) if entry.category == "malformed" => vec![NeedsOcr, Failed],
        // Pages that show text are read by OCR (`SHOWS_TEXT`); others have none to read.
        ("no_text", _) if SHOWS_TEXT.iter().any(|(file, _)| *file == entry.file) => vec![Ready],
        ("no_text", _) => vec![NeedsOcr, Ready],
        ("error", true) => vec![NeedsPassword],
        // For malformed files `error` follows poppler; "a more lenient parser that recovers text is
        // also fine" (corpus README), so recovering some text is allowed, a password prompt is not.
        ("error", false) => vec![Failed, Ready, NeedsOcr],
        (other, _) => panic!("unknown expect {other:?} for {}", entry.file),
    }
}

fn quiet_panics() {
    static ONCE: Once = Once::new();
    // Parser panics are caught and reported as `failed`; keep their backtraces out of the log,
    // and report every other panic (the test's own assertions) as usual.
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() != Some("lectern-extract") {
                default(info);
            }
        }));
    });
}

#[test]
fn every_corpus_file_ends_in_the_status_its_manifest_implies() {
    quiet_panics();
    let lib = library();
    let report = lib.add(&[corpus_dir().join("pdfs")], DEFAULT_FOLDER).unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    let manifest = corpus_manifest();
    assert_eq!(report.added.len(), manifest.len());
    index_all(&lib);

    let by_name: HashMap<String, lectern::Document> = lib
        .documents(None, false)
        .unwrap()
        .into_iter()
        .map(|d| (d.file_name.clone(), d))
        .collect();
    let mut wrong = Vec::new();
    for entry in &manifest {
        let doc = &by_name[&entry.file];
        let allowed = allowed(entry);
        if !allowed.contains(&doc.status) {
            wrong.push(format!(
                "{}: {:?} ({:?}), expected one of {allowed:?}",
                entry.file, doc.status, doc.reason
            ));
        }
        if doc.status != DocumentStatus::Ready {
            let reason = doc.reason.as_deref().unwrap_or("");
            assert!(
                reason.len() > 10,
                "{} has no reason a person understands: {reason:?}",
                entry.file
            );
        }
        if doc.status == DocumentStatus::Ready && entry.expect == "text" {
            assert_eq!(doc.page_count, entry.pages, "page count of {}", entry.file);
            assert!(doc.chunk_count.unwrap() > 0, "{} has no chunks", entry.file);
        }
    }
    assert!(
        wrong.is_empty(),
        "{} file(s) in the wrong state:\n{}",
        wrong.len(),
        wrong.join("\n")
    );

    let status = |name: &str| by_name[name].status;
    assert_eq!(
        status("enc-owner-only-us-dmca-18p.pdf"),
        DocumentStatus::Ready,
        "empty user password opens"
    );
    assert!(by_name["enc-unknown-user-password.pdf"]
        .reason
        .as_deref()
        .unwrap()
        .contains("protected by a password"));
    for (file, phrase) in SHOWS_TEXT {
        let note = by_name[file].reason.as_deref().unwrap_or("");
        assert!(note.ends_with("read by OCR"), "{file}: {note:?}");
        assert!(finds(&lib, &by_name[file], phrase), "{file}: {phrase:?} is not found");
    }
    // A mixed document is indexed, its scanned pages read by OCR and named.
    assert_eq!(
        by_name["scan-multipage-6p-mixed.pdf"].reason.as_deref(),
        Some("pages 1-3, 5-6 were read by OCR")
    );
    assert_eq!(by_name["text-crazyones-pdfa-ghostscript.pdf"].reason, None);
}

#[test]
fn a_password_unlocks_a_protected_pdf_and_a_wrong_one_changes_nothing() {
    quiet_panics();
    let lib = library();
    let file = "enc-libreoffice-user-openpassword.pdf";
    let entry = corpus_manifest().into_iter().find(|e| e.file == file).unwrap();
    let doc = lib.add(&[corpus_pdf(file)], DEFAULT_FOLDER).unwrap().added.remove(0);
    index_all(&lib);
    assert_eq!(
        lib.document(&doc.id.to_string()).unwrap().status,
        DocumentStatus::NeedsPassword
    );

    let err = lib.unlock(doc.id, "not the password").unwrap_err();
    assert_eq!(err.code(), ErrorCode::NeedsPassword);
    assert!(err.to_string().contains("password was not accepted"), "{err}");
    assert_eq!(
        lib.document(&doc.id.to_string()).unwrap().status,
        DocumentStatus::NeedsPassword
    );
    assert_eq!(
        lib.document_password(doc.id).unwrap(),
        None,
        "a wrong password is not kept"
    );

    lib.unlock(doc.id, entry.user_password.as_deref().unwrap()).unwrap();
    assert_eq!(
        lib.document_password(doc.id).unwrap(),
        entry.user_password,
        "the viewer opens the file with the password it was unlocked with"
    );
    index_all(&lib);
    let unlocked = lib.document(&doc.id.to_string()).unwrap();
    assert_eq!(unlocked.status, DocumentStatus::Ready, "{:?}", unlocked.reason);
    assert_eq!(unlocked.page_count, entry.pages);

    let err = lib.unlock(doc.id, "again").unwrap_err();
    assert!(err.to_string().contains("does not need a password"), "{err}");
}

#[test]
fn every_character_of_a_corpus_page_with_text_is_placed_on_the_page() {
    let home = tempfile::tempdir().unwrap();
    let reader = config(home.path()).reader;
    let (mut short, mut placed_pages) = (Vec::new(), 0);
    for entry in corpus_manifest().into_iter().filter(|e| e.expect == "text") {
        let path = corpus_pdf(&entry.file);
        let password = entry.user_password.clone().filter(|p| !p.is_empty());
        let mut extraction = reader.extract(&path, password.clone());
        // The first page with text, as the index stores it.
        let Some((number, text)) = std::iter::from_fn(|| extraction.next_step()).find_map(|step| match step {
            Ok(Extracted::Page { number, text, .. }) if !text.trim().is_empty() => Some((number, text)),
            _ => None,
        }) else {
            continue;
        };
        drop(extraction);
        let words = reader.page_words(&path, password, number).unwrap();
        let visible: Vec<u32> = text
            .chars()
            .enumerate()
            .filter(|(_, c)| !c.is_whitespace())
            .map(|(i, _)| i as u32)
            .collect();
        let placed = visible
            .iter()
            .filter(|&&i| words.iter().any(|w| w.start <= i && i < w.end))
            .count();
        // A page only PDFium reads has no boxes: the viewer matches words there.
        if words.is_empty() {
            continue;
        }
        placed_pages += 1;
        if placed * 100 < visible.len() * 99 {
            short.push(format!(
                "{}: {placed} of {} characters placed",
                entry.file,
                visible.len()
            ));
        }
    }
    assert!(short.is_empty(), "{}", short.join("\n"));
    assert!(placed_pages >= 40, "only {placed_pages} pages placed");
}
