//! Crash safety: a `lectern index` process is killed with SIGKILL at random moments; after every
//! kill no document is lost and every index directory that can be found is complete; in the end
//! every document is ready. A document whose indexer dies twice in a row is set aside. Adding,
//! moving and deleting documents and syncing a linked directory are killed part way too: nothing
//! added before is lost, no document is without its file, and each is finished by doing it again.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use lectern::catalog::DEFAULT_FOLDER;
use lectern::index::verify;
use lectern::jobs::{IndexEvent, RunMode};
use lectern::{DocumentId, DocumentStatus, Library};

use crate::common::{config, corpus_pdf, database_env, models_dir, runtime};

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
    fn from_clock() -> Lcg {
        let seed = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        eprintln!("crash test seed: {seed}");
        Lcg(seed)
    }

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
        .envs(database_env(home))
        .arg("index")
        .env("LECTERN_MODELS", models_dir())
        .env("LECTERN_WORKERS", "2")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

/// An indexer whose embedding server does not answer: it reads documents, and leaves them
/// searchable by keyword.
fn reading_indexer(home: &Path) -> Command {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let mut command = indexer(home);
    command
        .env("LECTERN_EMBEDDER", "ollama:none")
        .env("LECTERN_EMBED_URL", url);
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
    let mut rng = Lcg::from_clock();
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

    // The last kills may have struck one document twice in a row: the next indexer sets it aside
    // when it starts, and it is retried by hand once more.
    for _ in 0..2 {
        retry_set_aside(home.path());
        assert!(indexer(home.path()).status().unwrap().success());
    }
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

    assert!(reading_indexer(home.path()).status().unwrap().success());
    let doc = document(home.path(), id);
    assert_eq!(doc.status, DocumentStatus::Failed);
    assert!(
        doc.reason.as_deref().unwrap_or_default().contains(SET_ASIDE),
        "{:?}",
        doc.reason
    );

    Library::open(config(home.path())).unwrap().reindex(id).unwrap();
    assert!(reading_indexer(home.path()).status().unwrap().success());
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
    assert!(reading_indexer(home.path()).status().unwrap().success());
    assert_eq!(document(home.path(), id).status, DocumentStatus::Ready);
}

#[test]
fn embedding_killed_part_way_goes_on_from_its_last_written_batch() {
    let home = tempfile::tempdir().unwrap();
    let library = Library::open(config(home.path())).unwrap();
    let id = library
        .add(&[corpus_pdf("text-kb-pdf-risks-56p-objstm.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added[0]
        .id;
    // Killed once the first batches of vectors are on disk, before the last.
    let rows = home
        .path()
        .join("indexes")
        .join(format!(".embed-{id}"))
        .join("vectors.f32");
    let row_bytes = 384 * 4;
    let mut child = indexer(home.path()).spawn().unwrap();
    let written = loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the indexer ended before embedding was under way"
        );
        let written = std::fs::metadata(&rows).map_or(0, |m| m.len() / row_bytes);
        if written >= 32 {
            break written;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    assert!(child.wait().unwrap().code().is_none());
    let doc = document(home.path(), id);
    assert_eq!(doc.status, DocumentStatus::Ready, "searchable by keyword meanwhile");
    assert!(doc.embedded_with.is_none());
    assert!(
        doc.chunk_count.unwrap() > written,
        "the kill came too late to test a resume"
    );

    let library = Library::open(config(home.path())).unwrap();
    let mut events = library.subscribe();
    let run = runtime().block_on(library.run_indexer(RunMode::UntilIdle)).unwrap();
    assert_eq!(run.embedded, 1);
    let resumed_from = std::iter::from_fn(|| events.try_recv().ok())
        .find_map(|e| match e {
            IndexEvent::Embedding { resumed_from, .. } => Some(resumed_from),
            _ => None,
        })
        .unwrap();
    assert!(
        resumed_from >= written,
        "resumed from {resumed_from}, {written} were on disk"
    );
    let doc = document(home.path(), id);
    assert_eq!(doc.embedded_with, Some(library.embedder_id().unwrap()));
    let manifest = runtime()
        .block_on(verify(&home.path().join("indexes").join(id.to_string())))
        .unwrap();
    assert_eq!(Some(manifest.chunk_count), doc.chunk_count);
    assert!(
        !rows.parent().unwrap().exists(),
        "the scratch vectors are removed once published"
    );
}

/// Adds a 429-page document to the library in `home`, then `times` times starts an indexer and
/// sends it `signal` in the middle of reading it (some pages done, not all): the document, and
/// how each indexer ended with the document's status after it.
fn interrupt_builds(
    home: &Path,
    signal: i32,
    times: usize,
) -> (DocumentId, Vec<(std::process::ExitStatus, DocumentStatus)>) {
    let library = Library::open(config(home)).unwrap();
    let added = library
        .add(&[corpus_pdf("struct-many-pages-429p-ibm-manual.pdf")], DEFAULT_FOLDER)
        .unwrap();
    let id = added.added[0].id;
    let ends = (0..times)
        .map(|_| {
            let mut child = reading_indexer(home).spawn().unwrap();
            // The indexer's start puts the progress back to nothing; then pages get done.
            let mut restarted = false;
            loop {
                assert!(
                    child.try_wait().unwrap().is_none(),
                    "the indexer ended before the build was under way"
                );
                let doc = document(home, id);
                restarted |= doc.progress_done == 0;
                if restarted && doc.progress_done > 0 && doc.status == DocumentStatus::Indexing {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
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

/// Runs `lectern` on the library in `home` with `args`, killed with SIGKILL after `delay` if it
/// has not ended; whether the kill landed.
fn killed_after(home: &Path, args: &[String], delay: Duration) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("--home")
        .arg(home)
        .envs(database_env(home))
        .args(args)
        .env("LECTERN_MODELS", models_dir())
        .env("LECTERN_WORKERS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(delay);
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    child.wait().unwrap().code().is_none()
}

/// Runs `lectern` on the library in `home` to its end, successfully.
fn run_to_end(home: &Path, args: &[String]) {
    let output = Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("--home")
        .arg(home)
        .envs(database_env(home))
        .args(args)
        .env("LECTERN_MODELS", models_dir())
        .env("LECTERN_WORKERS", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "lectern {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The library after a kill: every document has its stored file, no content is twice in one
/// folder, every linked file's document exists. The documents per folder.
fn folders_after_kill(home: &Path, what: &str) -> std::collections::BTreeMap<String, Vec<lectern::Document>> {
    let library = Library::open(config(home)).unwrap();
    let mut by_folder = std::collections::BTreeMap::<String, Vec<lectern::Document>>::new();
    let folders = library.folders().unwrap();
    for doc in library.documents(None, true).unwrap() {
        let stored = home.join("files").join(format!("{}.pdf", doc.content_hash));
        assert!(
            stored.is_file(),
            "after a kill during {what}: {} lost its file",
            doc.file_name
        );
        let folder = folders.iter().find(|f| f.id == doc.folder).unwrap().path.clone();
        by_folder.entry(folder).or_default().push(doc);
    }
    for (folder, docs) in &by_folder {
        let mut hashes: Vec<&str> = docs.iter().map(|d| d.content_hash.as_str()).collect();
        hashes.sort();
        let before = hashes.len();
        hashes.dedup();
        if folder != "Linked" {
            assert_eq!(
                hashes.len(),
                before,
                "after a kill during {what}: {folder} holds a file twice"
            );
        }
    }
    by_folder
}

/// A user's actions, each killed part way through and then done again to its end: adding a
/// directory, moving its documents, deleting them, syncing a linked directory one way and the
/// other. After every kill, nothing the user added before is lost and nothing is half there;
/// each action is seen to have been stopped part way at least once; in the end every document is
/// ready, and nothing is left of what was deleted.
#[test]
fn a_library_survives_sigkill_during_import_move_delete_and_sync() {
    const FILES: usize = 100;
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let source = tempfile::tempdir().unwrap();
    let linked = tempfile::tempdir().unwrap();
    let write_notes = |dir: &Path, what: &str| {
        for i in 0..FILES {
            let line = format!("Note {i} of the {what} set: the harbour crane {i} was serviced.");
            let path = dir.join(format!("{what}-{i:02}.pdf"));
            std::fs::write(&path, lectern::pdf::text_pdf(&[&line])).unwrap();
            let file = std::fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(SystemTime::now() - Duration::from_secs(60)).unwrap();
        }
    };
    write_notes(source.path(), "added");
    let s = |v: &str| v.to_string();
    for folder in ["In", "Out", "Linked"] {
        run_to_end(h, &[s("folder"), s("create"), s(folder)]);
    }
    run_to_end(
        h,
        &[
            s("watch"),
            s("add"),
            linked.path().display().to_string(),
            s("--folder"),
            s("Linked"),
        ],
    );

    let mut rng = Lcg::from_clock();
    let mut part_way = std::collections::BTreeMap::<&str, usize>::new();
    let mut windows = std::collections::BTreeMap::<&str, (u64, u64)>::new();
    let count = |by: &std::collections::BTreeMap<String, Vec<lectern::Document>>, folder: &str| {
        by.get(folder).map_or(0, Vec::len)
    };
    let ids_in = |folder: &str| -> Vec<String> {
        let library = Library::open(config(h)).unwrap();
        library
            .documents(Some(folder), false)
            .unwrap()
            .iter()
            .map(|d| d.id.to_string())
            .collect()
    };
    const ACTIONS: [&str; 5] = ["import", "move", "delete", "sync adding", "sync deleting"];
    let mut round = 0;
    while round < 2 * ACTIONS.len() || part_way.len() < ACTIONS.len() {
        assert!(round < 60, "not every action was stopped part way: {part_way:?}");
        let what = ACTIONS[round % ACTIONS.len()];
        match what {
            "sync adding" => write_notes(linked.path(), "linked"),
            "sync deleting" => {
                for entry in std::fs::read_dir(linked.path()).unwrap() {
                    std::fs::remove_file(entry.unwrap().path()).unwrap();
                }
            }
            _ => {}
        }
        // The command that does `what` (to what is left of it).
        let command = |what: &str| -> Vec<String> {
            match what {
                "import" => vec![s("add"), source.path().display().to_string(), s("--folder"), s("In")],
                "move" => [vec![s("doc"), s("mv")], ids_in("In"), vec![s("--to"), s("Out")]].concat(),
                "delete" => [vec![s("doc"), s("rm")], ids_in("Out")].concat(),
                _ => vec![s("watch"), s("sync")],
            }
        };
        let args = command(what);
        // Each action's window is found as the rounds go: a kill before it began raises the
        // earliest delay tried, one after it ended lowers the latest.
        let (early, late) = windows.entry(what).or_insert((0, 800));
        // Jitter on both sides of the middle, so that the delays tried do not all fall after a
        // narrow window.
        let delay = ((*early + *late) / 2 + rng.next() % 8).saturating_sub(4).max(1);
        let killed = killed_after(h, &args, Duration::from_millis(delay));
        let by = folders_after_kill(h, what);
        let (done, total) = match what {
            "import" => (count(&by, "In"), FILES),
            "move" => (count(&by, "Out"), FILES),
            "delete" => (FILES - count(&by, "Out"), FILES),
            "sync adding" => (count(&by, "Linked"), FILES),
            _ => (FILES - count(&by, "Linked"), FILES),
        };
        eprintln!("round {round}: {what}, killed after {delay} ms: {killed}, {done} of {total} done");
        if !killed || done == total {
            *late = delay;
        } else if done == 0 {
            *early = delay;
        } else {
            *part_way.entry(what).or_default() += 1;
        }
        let left = match what {
            "move" => count(&by, "In"),
            "delete" => count(&by, "Out"),
            _ => 1,
        };
        if left > 0 {
            run_to_end(h, &command(what));
        }
        if what == "import" {
            run_to_end(h, &[s("index")]);
        }
        let by = folders_after_kill(h, what);
        for doc in by.values().flatten() {
            let set_aside = doc.reason.as_deref().is_some_and(|r| r.contains(SET_ASIDE));
            assert!(
                doc.status == DocumentStatus::Ready
                    || (doc.status == DocumentStatus::Failed && set_aside)
                    || (doc.status == DocumentStatus::Queued && what.starts_with("sync")),
                "round {round}: {} is {:?}: {:?}",
                doc.file_name,
                doc.status,
                doc.reason
            );
        }
        let expected = match what {
            "import" => [("In", FILES), ("Out", 0)],
            "move" => [("In", 0), ("Out", FILES)],
            "delete" => [("In", 0), ("Out", 0)],
            "sync adding" => [("Linked", FILES), ("Out", 0)],
            _ => [("Linked", 0), ("Out", 0)],
        };
        for (folder, n) in expected {
            assert_eq!(
                count(&by, folder),
                n,
                "round {round}: {what} done again to its end, {folder}"
            );
        }
        round += 1;
    }
    eprintln!("actions stopped part way: {part_way:?}");

    // Everything deleted; the indexer's start clears what the kills left: indexes and files of
    // deleted documents.
    let rest = [ids_in("In"), ids_in("Out")].concat();
    if !rest.is_empty() {
        run_to_end(h, &[vec![s("doc"), s("rm")], rest].concat());
    }
    for entry in std::fs::read_dir(linked.path()).unwrap() {
        std::fs::remove_file(entry.unwrap().path()).unwrap();
    }
    run_to_end(h, &[s("watch"), s("sync")]);
    run_to_end(h, &[s("index")]);
    let library = Library::open(config(h)).unwrap();
    let docs = library.documents(None, true).unwrap();
    let left = folders_after_kill(h, "the last round");
    assert_eq!(
        (count(&left, "In"), count(&left, "Out"), count(&left, "Linked")),
        (0, 0, 0)
    );
    assert!(docs.is_empty(), "{docs:?}");
    let indexes = std::fs::read_dir(h.join("indexes")).unwrap().count();
    assert_eq!(indexes, 0, "an index is left of a deleted document");
    let stored = std::fs::read_dir(h.join("files")).unwrap().count();
    assert_eq!(stored, 0, "a file is left of a deleted document");
}
