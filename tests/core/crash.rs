//! Crash safety: a `lectern index` process is killed with SIGKILL at random moments; after every
//! kill no document is lost and every index directory that can be found is complete; in the end
//! every document is ready.

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
        assert!(
            matches!(
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
