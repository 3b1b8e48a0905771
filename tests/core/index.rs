//! Per-document indexes: built completely or not at all, untouched by moves, shared by duplicates
//! without embedding twice, removed with their document, cancellable, reporting progress.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use lectern::catalog::DEFAULT_FOLDER;
use lectern::index::{keywords, verify};
use lectern::jobs::{IndexEvent, RunMode};
use lectern::{DocumentStatus, Error, Library};
use sha2::{Digest, Sha256};

use crate::common::{config, corpus_pdf, index_all, library, runtime};

/// Every file under `dir` with the SHA-256 of its bytes and its modification time.
fn snapshot(dir: &Path) -> BTreeMap<String, (String, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
                let name = path.strip_prefix(dir).unwrap().to_string_lossy().to_string();
                out.insert(name, (hex::encode(Sha256::digest(&bytes)), modified));
            }
        }
    }
    out
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

#[test]
fn moving_a_document_leaves_its_index_unchanged_and_costs_the_same_at_any_size() {
    let lib = library();
    lib.create_folder("Other").unwrap();
    let big = lib
        .add(&[corpus_pdf("struct-many-pages-429p-ibm-manual.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    let small = lib
        .add(&[corpus_pdf("text-pdfspec-simple1-handwritten.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    index_all(&lib);
    let dir = |id: lectern::DocumentId| lib.home.path().join("indexes").join(id.to_string());
    let before_big = snapshot(&dir(big.id));
    let before_small = snapshot(&dir(small.id));
    assert!(before_big.len() > 5);

    // The two documents' moves alternate, so that whatever else the machine does falls on both.
    let time_move = |id: lectern::DocumentId, target: &str| {
        let start = Instant::now();
        lib.move_document(id, target).unwrap();
        start.elapsed()
    };
    let (mut big_times, mut small_times) = (Vec::new(), Vec::new());
    for i in 0..40 {
        let target = if i % 2 == 0 { "Other" } else { DEFAULT_FOLDER };
        big_times.push(time_move(big.id, target));
        small_times.push(time_move(small.id, target));
    }
    let (big_time, small_time) = (median(big_times), median(small_times));

    assert_eq!(snapshot(&dir(big.id)), before_big, "the 429-page index changed");
    assert_eq!(snapshot(&dir(small.id)), before_small, "the 1-page index changed");
    assert!(
        big_time <= small_time * 3 + Duration::from_millis(2),
        "a move of the 429-page document took {big_time:?}, of the 1-page one {small_time:?}"
    );
    let big_after = lib.document(&big.id.to_string()).unwrap();
    assert_eq!(big_after.status, DocumentStatus::Ready);
    assert_eq!(big_after.page_count, Some(429));
}

#[test]
fn the_same_file_in_two_folders_is_embedded_once_and_both_stay_independent() {
    let lib = library();
    lib.create_folder("Copy").unwrap();
    let pdf = corpus_pdf("text-pdflatex-4-pages.pdf");
    let first = lib
        .add(std::slice::from_ref(&pdf), DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    let second = lib.add(&[pdf], "Copy").unwrap().added.remove(0);
    assert_eq!(first.content_hash, second.content_hash);

    let mut events = lib.subscribe();
    index_all(&lib);
    let mut embedded = BTreeMap::new();
    let mut reused = BTreeMap::new();
    while let Ok(event) = events.try_recv() {
        match event {
            IndexEvent::Embedding {
                document, chunks_done, ..
            } => {
                embedded.insert(document, chunks_done);
            }
            IndexEvent::Finished {
                document, reused_from, ..
            } => {
                reused.insert(document, reused_from);
            }
            _ => {}
        }
    }
    let first_doc = lib.document(&first.id.to_string()).unwrap();
    let second_doc = lib.document(&second.id.to_string()).unwrap();
    assert_eq!(first_doc.status, DocumentStatus::Ready);
    assert_eq!(second_doc.status, DocumentStatus::Ready);
    // The queue takes documents by when they were added, then by id, so two added in the same
    // millisecond may go either way: the one taken first is embedded, the other reuses its index.
    let (built, copy) = if embedded.contains_key(&first.id) {
        (first.id, second.id)
    } else {
        (second.id, first.id)
    };
    assert_eq!(embedded.get(&built).copied(), first_doc.chunk_count);
    assert_eq!(embedded.get(&copy), None, "the other copy was embedded again");
    assert_eq!(reused[&copy], Some(built));
    assert_eq!(second_doc.chunk_count, first_doc.chunk_count);
    assert_eq!(second_doc.page_count, Some(4));

    // Deleting the first leaves the second whole, with its own index and the shared file.
    lib.delete_document(first.id).unwrap();
    assert!(!lib.home.path().join("indexes").join(first.id.to_string()).exists());
    let rt = runtime();
    let manifest = rt
        .block_on(verify(&lib.home.path().join("indexes").join(second.id.to_string())))
        .unwrap();
    assert_eq!(Some(manifest.chunk_count), second_doc.chunk_count);
    assert!(lib
        .home
        .path()
        .join("files")
        .join(format!("{}.pdf", second.content_hash))
        .is_file());
    lib.delete_document(second.id).unwrap();
    assert!(!lib
        .home
        .path()
        .join("files")
        .join(format!("{}.pdf", second.content_hash))
        .exists());
}

#[test]
fn an_index_holds_every_chunk_with_its_page_and_character_range() {
    let lib = library();
    let doc = lib
        .add(&[corpus_pdf("text-kb-pdf-risks-56p-objstm.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    let mut events = lib.subscribe();
    index_all(&lib);
    let doc = lib.document(&doc.id.to_string()).unwrap();
    assert_eq!(doc.status, DocumentStatus::Ready, "{:?}", doc.reason);
    assert_eq!(doc.page_count, Some(56));
    assert_eq!(
        doc.title.as_deref(),
        Some("Microsoft Word - PDFInventoryPreservationRisks_0_2.doc")
    );
    assert_eq!(doc.author.as_deref(), Some("jkn010"));
    assert_eq!(doc.pdf_created.as_deref().map(|d| &d[..10]), Some("2012-11-21"));
    assert_eq!(doc.pdf_modified.as_deref().map(|d| &d[..10]), Some("2012-11-21"));
    let source = std::fs::canonicalize(corpus_pdf("text-kb-pdf-risks-56p-objstm.pdf")).unwrap();
    assert_eq!(doc.source_path.as_deref(), source.to_str());
    assert_eq!(doc.mime_type.as_deref(), Some("application/pdf"));
    assert!(doc.file_modified.is_some_and(|at| at > 0));

    // Its log says what happened, in order.
    lib.create_folder("Elsewhere").unwrap();
    lib.move_document(doc.id, "Elsewhere").unwrap();
    let log: Vec<String> = lib
        .document_log(doc.id)
        .unwrap()
        .into_iter()
        .map(|e| e.message)
        .collect();
    assert_eq!(log[0], format!("Added from {}", source.display()));
    assert_eq!(log[1], "Reading started");
    assert!(log[2].starts_with("Ready: 56 pages, "), "{log:?}");
    assert!(
        log[3].starts_with("Searchable by meaning: embedded with all-MiniLM-L6-v2"),
        "{log:?}"
    );
    assert_eq!(log[4], "Moved to Elsewhere");

    let dir = lib.home.path().join("indexes").join(doc.id.to_string());
    let manifest = runtime().block_on(verify(&dir)).unwrap();
    assert_eq!(manifest.embedder, Some(lib.embedder_id().unwrap()));
    let precision = lectern::embed::Precision::for_this_machine();
    assert!(manifest
        .embedder
        .as_deref()
        .is_some_and(|e| e.starts_with(&format!("all-MiniLM-L6-v2/{precision}/"))));
    assert_eq!(manifest.dimension, Some(384));
    assert_eq!(doc.embedded_with, manifest.embedder);
    assert_eq!(Some(manifest.chunk_count), doc.chunk_count);
    assert_eq!(keywords::count(&dir.join("keywords")).unwrap(), manifest.chunk_count);

    // Progress went page by page up to the total.
    let mut last = 0;
    while let Ok(event) = events.try_recv() {
        if let IndexEvent::Progress {
            pages_done,
            pages_total,
            ..
        } = event
        {
            assert!(pages_done >= last && pages_done <= pages_total);
            last = pages_done;
        }
    }
    assert_eq!(last, 56);
}

#[test]
fn cancelling_a_document_stops_it_and_leaves_no_index() {
    let lib = library();
    let doc = lib
        .add(&[corpus_pdf("text-kb-pdf-risks-56p-objstm.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    let mut events = lib.subscribe();
    let rt = runtime();
    let indexer = {
        let lib = lib.library.clone();
        rt.spawn(async move { lib.run_indexer(RunMode::UntilIdle).await })
    };
    loop {
        if let Ok(IndexEvent::Progress { pages_done, .. }) = events.blocking_recv() {
            if pages_done >= 3 {
                assert!(lib.cancel(doc.id));
                break;
            }
        }
    }
    rt.block_on(indexer).unwrap().unwrap();
    let doc = lib.document(&doc.id.to_string()).unwrap();
    assert_eq!(doc.status, DocumentStatus::Failed);
    assert!(doc.reason.unwrap().contains("cancelled"));
    // No index; only the pages read by OCR so far, kept for the next try to go on from.
    let leftovers: Vec<_> = std::fs::read_dir(lib.home.path().join("indexes"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| !name.starts_with(".ocr-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    lib.reindex(doc.id).unwrap();
    index_all(&lib);
    assert_eq!(lib.document(&doc.id.to_string()).unwrap().status, DocumentStatus::Ready);

    // A document waiting in the queue is taken out of it.
    let waiting = lib
        .add(&[corpus_pdf("text-xelatex-4p.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    assert!(lib.cancel_indexing(waiting.id).unwrap());
    let waiting = lib.document(&waiting.id.to_string()).unwrap();
    assert_eq!(waiting.status, DocumentStatus::Failed);
    assert!(waiting.reason.unwrap().contains("cancelled"));
    assert!(!lib.cancel_indexing(waiting.id).unwrap(), "nothing left to stop");
}

#[test]
fn pausing_puts_the_document_being_read_back_in_the_queue_and_resuming_finishes_it() {
    let lib = library();
    let added = lib
        .add(
            &[
                corpus_pdf("text-kb-pdf-risks-56p-objstm.pdf"),
                corpus_pdf("text-xelatex-4p.pdf"),
            ],
            DEFAULT_FOLDER,
        )
        .unwrap()
        .added;
    let long = added.iter().find(|d| d.file_name.contains("56p")).unwrap().id;
    let status = |id: lectern::DocumentId| lib.document(&id.to_string()).unwrap().status;
    let mut events = lib.subscribe();
    let rt = runtime();
    let indexer = {
        let lib = lib.library.clone();
        rt.spawn(async move { lib.run_indexer(RunMode::Forever).await })
    };
    loop {
        if let Ok(IndexEvent::Progress {
            document, pages_done, ..
        }) = events.blocking_recv()
        {
            if document == long && pages_done >= 3 {
                lib.pause_indexing().unwrap();
                break;
            }
        }
    }
    let until = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(120);
        while !done() {
            assert!(Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    until("the paused read did not stop", &|| {
        status(long) != DocumentStatus::Indexing
    });
    assert_eq!(
        status(long),
        DocumentStatus::Queued,
        "a paused document waits, it has not failed"
    );
    assert!(lib.indexing_paused().unwrap());
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        added.iter().all(|d| status(d.id) != DocumentStatus::Indexing),
        "nothing starts while paused"
    );

    lib.resume_indexing().unwrap();
    until("indexing did not go on after resuming", &|| {
        added.iter().all(|d| status(d.id) == DocumentStatus::Ready)
    });
    indexer.abort();
}

#[test]
fn a_ready_document_whose_index_vanished_is_indexed_again_at_start() {
    let lib = library();
    let doc = lib
        .add(&[corpus_pdf("text-xelatex-4p.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    index_all(&lib);
    let dir = lib.home.path().join("indexes").join(doc.id.to_string());
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::create_dir_all(lib.home.path().join("indexes/.tmp-leftover")).unwrap();
    std::fs::create_dir_all(lib.home.path().join("indexes/1b4e28ba-2fa1-11d2-883f-0016d3cca427")).unwrap();
    let run = index_all(&lib);
    assert_eq!(run.reconciled.requeued_missing, 1);
    assert_eq!(run.reconciled.temporary_removed, 1);
    assert_eq!(run.reconciled.orphans_removed, 1);
    assert_eq!(lib.document(&doc.id.to_string()).unwrap().status, DocumentStatus::Ready);
    runtime().block_on(verify(&dir)).unwrap();
}

#[test]
fn a_long_running_indexer_waits_for_the_role_and_takes_it_over() {
    let first = library();
    let second = Library::open(config(first.home.path())).unwrap();
    runtime().block_on(async {
        let holder = {
            let first = first.library.clone();
            tokio::spawn(async move { first.run_indexer(RunMode::Forever).await })
        };
        while !matches!(second.run_indexer(RunMode::UntilIdle).await, Err(Error::IndexerBusy)) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let waiting = {
            let second = second.clone();
            tokio::spawn(async move { second.run_indexer(RunMode::Forever).await })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            !waiting.is_finished(),
            "a long-running indexer waits, it does not give up"
        );
        holder.abort();
        assert!(holder.await.unwrap_err().is_cancelled());

        // The waiting indexer takes over: a document added now gets indexed.
        let doc = second
            .add(&[corpus_pdf("text-xelatex-4p.pdf")], DEFAULT_FOLDER)
            .unwrap()
            .added
            .remove(0);
        let deadline = Instant::now() + Duration::from_secs(120);
        while second.document(&doc.id.to_string()).unwrap().status != DocumentStatus::Ready {
            assert!(Instant::now() < deadline, "the waiting indexer never took over");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        waiting.abort();
    });
}
