//! Hostile PDFs, read in the worker process under the limits the app uses: each ends failed with
//! its reason, and the good documents of the same import end ready.

use lectern::catalog::DEFAULT_FOLDER;
use lectern::pdf::{Extracted, PdfError, PdfReader};
use lectern::DocumentStatus;
use lectern_synthetic::hostile::Outcome;

use crate::common::{corpus_pdf, index_all, library};

#[test]
fn each_hostile_pdf_fails_with_its_reason_and_the_rest_of_the_import_is_ready() {
    let lib = library();
    let dir = tempfile::tempdir().unwrap();
    let hostile = lectern_synthetic::hostile::all();
    let mut paths = Vec::new();
    for file in &hostile {
        let path = dir.path().join(file.name);
        std::fs::write(&path, (file.make)()).unwrap();
        paths.push(path);
    }
    let good = ["text-libreoffice-writer-1p.pdf", "text-xelatex-4p.pdf"];
    paths.extend(good.iter().map(|name| corpus_pdf(name)));
    let report = lib.add(&paths, DEFAULT_FOLDER).unwrap();
    assert_eq!(report.added.len(), paths.len(), "{:?}", report.failed);

    index_all(&lib);
    let documents = lib.documents(None, true).unwrap();
    for file in &hostile {
        let doc = documents.iter().find(|d| d.file_name == file.name).unwrap();
        let reason = doc.reason.as_deref().unwrap_or_default();
        match file.outcome {
            Outcome::Read => assert_eq!(doc.status, DocumentStatus::Ready, "{}: {reason}", file.name),
            Outcome::Refused(words) => {
                assert_eq!(doc.status, DocumentStatus::Failed, "{}: {reason}", file.name);
                assert!(reason.contains(words), "{}: {reason}", file.name);
            }
        }
    }
    for name in good {
        let doc = documents.iter().find(|d| d.file_name == name).unwrap();
        assert_eq!(doc.status, DocumentStatus::Ready, "{name}: {:?}", doc.reason);
    }
}

#[test]
fn a_worker_past_its_memory_limit_is_stopped_and_the_limit_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("pile.pdf");
    let pile = lectern_synthetic::hostile::all()
        .into_iter()
        .find(|h| h.name == "operand-pile.pdf")
        .unwrap();
    std::fs::write(&pdf, (pile.make)()).unwrap();
    let mut reader = PdfReader {
        program: env!("CARGO_BIN_EXE_lectern").into(),
        ..PdfReader::default()
    };
    reader.limits.max_memory = 256 << 20;
    let mut extraction = reader.extract(&pdf, None);
    let error = std::iter::from_fn(|| extraction.next_step())
        .find_map(Result::err)
        .unwrap();
    assert!(
        matches!(error, PdfError::OutOfMemory { limit } if limit == 256 << 20),
        "{error}"
    );
    assert!(error.to_string().contains("more than 256 MB of memory"), "{error}");
    let peak = extraction.worker_peak_memory().unwrap();
    assert!(peak <= 320 << 20, "the worker held {peak} bytes");
}

#[test]
fn a_program_that_is_not_a_worker_is_a_clear_error() {
    let reader = PdfReader {
        program: "/nonexistent/lectern".into(),
        ..PdfReader::default()
    };
    let mut extraction = reader.extract(&corpus_pdf("text-xelatex-4p.pdf"), None);
    let error = extraction.next_step().unwrap().unwrap_err();
    assert!(matches!(error, PdfError::WorkerStart(_)), "{error}");
    assert!(extraction.next_step().is_none());
}

#[test]
fn a_worker_that_dies_fails_its_document_and_says_how() {
    // A worker that meets a fault, as a parser that reads memory it should not would: it reads
    // its request, then dies of SIGSEGV.
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("faulty-worker");
    std::fs::write(&program, "#!/bin/sh\nread request\nkill -SEGV $$\n").unwrap();
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let reader = PdfReader {
        program,
        ..PdfReader::default()
    };
    let mut extraction = reader.extract(&corpus_pdf("text-xelatex-4p.pdf"), None);
    let error = extraction.next_step().unwrap().unwrap_err();
    assert!(
        matches!(&error, PdfError::Crashed(how) if how.contains("signal 11: it read memory it should not have")),
        "{error}"
    );
    assert!(extraction.next_step().is_none());
}

#[test]
fn a_document_of_3000_pages_is_read_page_by_page_within_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("long.pdf");
    std::fs::write(&pdf, lectern_synthetic::large::long_document(3000)).unwrap();
    let reader = PdfReader {
        program: env!("CARGO_BIN_EXE_lectern").into(),
        ..PdfReader::default()
    };
    let mut extraction = reader.extract(&pdf, None);
    let mut pages = Vec::new();
    while let Some(step) = extraction.next_step() {
        if let Extracted::Page { number, text, .. } = step.unwrap() {
            pages.push((number, text));
        }
    }
    assert_eq!(pages.len(), 3000);
    let (number, text) = &pages[2999];
    assert_eq!(*number, 3000);
    assert!(text.starts_with("Section 3000: maintenance of unit"), "{text}");
    let peak = extraction.worker_peak_memory().unwrap();
    eprintln!("worker peak for 3,000 pages: {} MB", peak >> 20);
    assert!(peak < reader.limits.max_memory / 4, "the worker held {} MB", peak >> 20);
}
