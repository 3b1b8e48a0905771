//! Crash safety: the process group of a `lectern index` is killed (SIGKILL) or stopped (SIGTERM)
//! at random moments while PDFs are added; after every kill no document is lost and every index
//! directory that can be found is complete; in the end every document is as a clean run leaves it.
//! A kill or a stop never counts against a document; a crash of the indexer (a fault, an abort)
//! does, and a document it crashes on twice in a row is set aside. Adding, moving and deleting
//! documents and syncing a linked directory are killed part way too: nothing added before is
//! lost, no document is without its file, and each is finished by doing it again.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use lectern::catalog::DEFAULT_FOLDER;
use lectern::index::verify;
use lectern::jobs::{IndexEvent, RunMode};
use lectern::{DocumentId, DocumentStatus, Library};

use crate::common::{config, corpus_pdf, database_env, models_dir, outcomes, runtime};

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

/// Words of the reason a document set aside by a crashing indexer is given.
const SET_ASIDE: &str = "crashed Lectern twice; it was set aside";

/// The hostile file of the kill loop: it ends its reader past the reader's memory limit, a death
/// that is the file's own doing, so it is failed whatever else happens.
const HOSTILE: &str = "operand-pile.pdf";

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
        let hostile_failed = doc.file_name == HOSTILE && doc.status == DocumentStatus::Failed;
        assert!(
            hostile_failed
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

/// The kill loop's files: the good PDFs and the hostile one, written into `dir`.
fn kill_loop_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let hostile = lectern_synthetic::hostile::all()
        .into_iter()
        .find(|h| h.name == HOSTILE)
        .unwrap();
    let path = dir.join(HOSTILE);
    std::fs::write(&path, (hostile.make)()).unwrap();
    let mut paths: Vec<_> = FILES.iter().map(|f| corpus_pdf(f)).collect();
    paths.insert(2, path);
    paths
}

#[test]
fn kills_and_stops_of_the_indexing_process_group_lose_nothing_and_set_nothing_aside() {
    let scratch = tempfile::tempdir().unwrap();
    let paths = kill_loop_files(scratch.path());

    // The same files, indexed without a kill.
    let clean = tempfile::tempdir().unwrap();
    Library::open(config(clean.path()))
        .unwrap()
        .add(&paths, DEFAULT_FOLDER)
        .unwrap();
    assert!(indexer(clean.path()).status().unwrap().success());
    let expected = outcomes(&Library::open(config(clean.path())).unwrap());
    assert_eq!(expected[HOSTILE].0, DocumentStatus::Failed);

    // Files are added one a round, and the indexer's process group (the program and its PDF
    // workers, as a terminal, a logout or a service manager would) is killed or stopped.
    let home = tempfile::tempdir().unwrap();
    let mut ids: Vec<DocumentId> = Vec::new();
    let mut rng = Lcg::from_clock();
    let (mut landed, mut round) = (0, 0);
    while landed < 20 {
        assert!(round < 60, "only {landed} indexers were still running when killed");
        let library = Library::open(config(home.path())).unwrap();
        if let Some(path) = paths.get(round) {
            ids.extend(
                library
                    .add(std::slice::from_ref(path), DEFAULT_FOLDER)
                    .unwrap()
                    .added
                    .iter()
                    .map(|d| d.id),
            );
        } else if library.documents(None, false).unwrap().iter().all(|d| {
            matches!(d.status, DocumentStatus::Ready | DocumentStatus::Failed)
                && (d.embedded_with.is_some() || d.status == DocumentStatus::Failed)
        }) {
            // Everything finished before the kill: give the next indexer work again.
            for id in &ids {
                library.reindex(*id).unwrap();
            }
        }
        drop(library);
        let signal = if rng.next().is_multiple_of(2) {
            libc::SIGKILL
        } else {
            libc::SIGTERM
        };
        let mut child = indexer(home.path()).process_group(0).spawn().unwrap();
        // Up to five seconds: some kills land while reading, some while embedding.
        std::thread::sleep(Duration::from_millis(200 + rng.next() % 5000));
        // SAFETY: signalling the process group our own child leads.
        unsafe { libc::killpg(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        // An indexer that had ended by itself exits 0; one stopped says so (128 + SIGTERM).
        let mid_work = status.code() != Some(0);
        if mid_work {
            assert!(
                status.code().is_none() || status.code() == Some(128 + libc::SIGTERM),
                "{status:?}"
            );
            landed += 1;
        }
        let ready = check(home.path(), &ids, round);
        eprintln!(
            "round {round}: signal {signal}, mid-work={mid_work} ready={ready}/{}",
            ids.len()
        );
        round += 1;
    }
    assert!(indexer(home.path()).status().unwrap().success());
    let after = outcomes(&Library::open(config(home.path())).unwrap());
    assert_eq!(after, expected, "the killed library differs from the clean run");
    eprintln!(
        "{landed} kills and stops landed mid-work in {round} rounds; {} of {} documents equal to a clean run",
        after.iter().filter(|(name, o)| expected.get(*name) == Some(o)).count(),
        expected.len()
    );
    let leftovers: Vec<String> = std::fs::read_dir(home.path().join("indexes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert!(!home.path().join("indexer.crashed").exists());
}

#[test]
fn a_kill_of_the_indexer_never_counts_against_a_document() {
    let home = tempfile::tempdir().unwrap();
    let (id, ends) = interrupt_builds(home.path(), &[libc::SIGKILL; 3]);
    for (exit, status) in ends {
        assert!(exit.code().is_none());
        assert_eq!(status, DocumentStatus::Indexing);
    }
    assert!(!home.path().join("indexer.crashed").exists());
    assert!(reading_indexer(home.path()).status().unwrap().success());
    assert_eq!(document(home.path(), id).status, DocumentStatus::Ready);
}

#[test]
fn a_document_the_indexer_crashes_on_twice_is_set_aside_until_retried_by_hand() {
    // SIGABRT, as a library's failed assertion raises it in the indexing process.
    let home = tempfile::tempdir().unwrap();
    let (id, ends) = interrupt_builds(home.path(), &[libc::SIGABRT; 2]);
    for (exit, status) in ends {
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&exit),
            Some(libc::SIGABRT)
        );
        assert_eq!(status, DocumentStatus::Indexing);
    }
    assert!(home.path().join("indexer.crashed").is_file(), "the crash left no mark");

    assert!(reading_indexer(home.path()).status().unwrap().success());
    assert!(!home.path().join("indexer.crashed").exists(), "the mark is taken");
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
    let signals = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGINT];
    let (id, ends) = interrupt_builds(home.path(), &signals);
    for ((exit, status), signal) in ends.into_iter().zip(signals) {
        assert_eq!(exit.code(), Some(128 + signal));
        assert_eq!(status, DocumentStatus::Queued, "after signal {signal}");
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

/// Adds a 429-page document to the library in `home`, then for each of `signals` starts an
/// indexer and sends it the signal in the middle of reading it (some pages done, not all): a
/// SIGABRT to the indexer alone, as its own crash would raise it, any other to its process group
/// (the indexer and its PDF worker), as a terminal or a service manager sends it. The document,
/// and how each indexer ended with the document's status after it.
fn interrupt_builds(home: &Path, signals: &[i32]) -> (DocumentId, Vec<(std::process::ExitStatus, DocumentStatus)>) {
    let library = Library::open(config(home)).unwrap();
    let added = library
        .add(&[corpus_pdf("struct-many-pages-429p-ibm-manual.pdf")], DEFAULT_FOLDER)
        .unwrap();
    let id = added.added[0].id;
    let ends = signals
        .iter()
        .map(|&signal| {
            let mut child = reading_indexer(home).process_group(0).spawn().unwrap();
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
            // SAFETY: signalling our own child, or the process group it leads.
            unsafe {
                if signal == libc::SIGABRT {
                    libc::kill(child.id() as i32, signal);
                } else {
                    libc::killpg(child.id() as i32, signal);
                }
            }
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
