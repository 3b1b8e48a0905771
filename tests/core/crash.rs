//! Crash safety: a `lectern index` process is killed with SIGKILL at random moments; after every
//! kill no document is lost and every index directory that can be found is complete; in the end
//! every document is ready. A document whose indexer dies twice in a row is set aside.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use lectern::catalog::DEFAULT_FOLDER;
use lectern::index::verify;
use lectern::{DocumentId, DocumentStatus, Library};

use crate::common::{config, corpus_pdf, models_dir, runtime};

const FILES: &[&str] = &[
    "text-kb-pdf-risks-56p-objstm.pdf",
    "multicol-acl-paper-naacl06.pdf",
    "text-pdflatex-4-pages.pdf",
    "text-xelatex-4p.pdf",
    "struct-page-labels-11p.pdf",
    "text-word-mac-lorem-ipsum-2p.pdf",
];

/// A small deterministic generator, seeded from the clock and printed so a failure can be replayed.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Words of the reason a document set aside by dying indexers is given.
const SET_ASIDE: &str = "stopped Lectern twice; it was set aside";

fn indexer(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lectern"));
    command
        .arg("--home")
        .arg(home)
        .arg("index")
        .env("LECTERN_MODELS", models_dir())
        .env("LECTERN_WORKERS", "2")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// No document lost; every directory named after a document is a complete, whole index; every
/// ready document has one.
fn check(home: &Path, ids: &[DocumentId], round: usize) -> usize {
    let library = Library::open(config(home)).unwrap();
    let docs = library.documents(None, false).unwrap();
    assert_eq!(docs.len(), ids.len(), "round {round}: a document was lost");
    let rt = runtime();
    for entry in std::fs::read_dir(home.join("indexes")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with('.') {
            continue; // temporary: never taken for an index
        }
        rt.block_on(verify(&entry.path()))
            .unwrap_or_else(|e| panic!("round {round}: {name} is visible but not complete: {e}"));
    }
    let mut ready = 0;
    for doc in &docs {
        assert!(ids.contains(&doc.id));
        let set_aside =
            doc.status == DocumentStatus::Failed && doc.reason.as_deref().is_some_and(|r| r.contains(SET_ASIDE));
        assert!(
            set_aside
                || matches!(
                    doc.status,
                    DocumentStatus::Queued | DocumentStatus::Indexing | DocumentStatus::Ready
                ),
            "round {round}: {} is {:?}: {:?}",
            doc.file_name,
            doc.status,
            doc.reason
        );
        if doc.status == DocumentStatus::Ready {
            rt.block_on(verify(&home.join("indexes").join(doc.id.to_string())))
                .unwrap_or_else(|e| panic!("round {round}: ready {} has no whole index: {e}", doc.file_name));
            ready += 1;
        }
    }
    ready
}

/// Documents set aside by two kills in a row, retried by hand as a user would.
fn retry_set_aside(home: &Path) {
    let library = Library::open(config(home)).unwrap();
    for doc in library.documents(None, false).unwrap() {
        if doc.status == DocumentStatus::Failed {
            library.reindex(doc.id).unwrap();
        }
    }
}

#[test]
fn indexing_survives_sigkill_at_random_moments() {
    let home = tempfile::tempdir().unwrap();
    let ids: Vec<DocumentId> = {
        let library = Library::open(config(home.path())).unwrap();
        let paths: Vec<_> = FILES.iter().map(|f| corpus_pdf(f)).collect();
        library
            .add(&paths, DEFAULT_FOLDER)
            .unwrap()
            .added
            .iter()
            .map(|d| d.id)
            .collect()
    };
    assert_eq!(ids.len(), FILES.len());
    let seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    eprintln!("crash test seed: {seed}");
    let mut rng = Lcg(seed);
    let mut kills = 0;
    let mut round = 0;
    while kills < 10 {
        assert!(round < 40, "only {kills} indexers were still running when killed");
        let mut child = indexer(home.path()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(150 + rng.next() % 1800));
        // SAFETY: sending a signal to our own child process.
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        let status = child.wait().unwrap();
        if status.code().is_none() {
            kills += 1;
        }
        let ready = check(home.path(), &ids, round);
        retry_set_aside(home.path());
        eprintln!(
            "round {round}: killed={} ready={ready}/{}",
            status.code().is_none(),
            ids.len()
        );
        if ready == ids.len() {
            // Everything finished before the kill: give the next indexer work again.
            let library = Library::open(config(home.path())).unwrap();
            for id in &ids {
                library.reindex(*id).unwrap();
            }
        }
        round += 1;
    }

    retry_set_aside(home.path());
    let status = indexer(home.path()).status().unwrap();
    assert!(status.success());
    assert_eq!(
        check(home.path(), &ids, usize::MAX),
        ids.len(),
        "not every document ended ready"
    );
    let leftovers: Vec<String> = std::fs::read_dir(home.path().join("indexes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_document_whose_indexer_dies_twice_is_set_aside_until_retried_by_hand() {
    let home = tempfile::tempdir().unwrap();
    let (id, ends) = interrupt_builds(home.path(), libc::SIGKILL, 2);
    for (exit, status) in ends {
        assert!(exit.code().is_none());
        assert_eq!(status, DocumentStatus::Indexing);
    }

    assert!(indexer(home.path()).status().unwrap().success());
    let doc = document(home.path(), id);
    assert_eq!(doc.status, DocumentStatus::Failed);
    assert!(
        doc.reason.as_deref().unwrap_or_default().contains(SET_ASIDE),
        "{:?}",
        doc.reason
    );

    Library::open(config(home.path())).unwrap().reindex(id).unwrap();
    assert!(indexer(home.path()).status().unwrap().success());
    assert_eq!(document(home.path(), id).status, DocumentStatus::Ready);
}

#[test]
fn quitting_on_purpose_does_not_count_against_a_document() {
    let home = tempfile::tempdir().unwrap();
    let (id, ends) = interrupt_builds(home.path(), libc::SIGINT, 3);
    for (exit, status) in ends {
        assert_eq!(exit.code(), Some(130));
        assert_eq!(status, DocumentStatus::Queued);
    }
    assert!(indexer(home.path()).status().unwrap().success());
    assert_eq!(document(home.path(), id).status, DocumentStatus::Ready);
}

/// Adds a 56-page document to the library in `home`, then `times` times starts an indexer and
/// sends it `signal` in the middle of the build (some pages done, not all): the document, and
/// how each indexer ended with the document's status after it.
fn interrupt_builds(
    home: &Path,
    signal: i32,
    times: usize,
) -> (DocumentId, Vec<(std::process::ExitStatus, DocumentStatus)>) {
    let library = Library::open(config(home)).unwrap();
    let added = library
        .add(&[corpus_pdf("text-kb-pdf-risks-56p-objstm.pdf")], DEFAULT_FOLDER)
        .unwrap();
    let id = added.added[0].id;
    let ends = (0..times)
        .map(|_| {
            let mut child = indexer(home).spawn().unwrap();
            // The indexer's start puts the progress back to nothing; then pages get done.
            let mut restarted = false;
            loop {
                assert!(
                    child.try_wait().unwrap().is_none(),
                    "the indexer ended before the build was under way"
                );
                let done = document(home, id).progress_done;
                restarted |= done == 0;
                if restarted && done > 0 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            // SAFETY: sending a signal to our own child process.
            unsafe { libc::kill(child.id() as i32, signal) };
            (child.wait().unwrap(), document(home, id).status)
        })
        .collect();
    (id, ends)
}

fn document(home: &Path, id: DocumentId) -> lectern::Document {
    Library::open(config(home)).unwrap().document(&id.to_string()).unwrap()
}
