//! The library's disk failing under a running indexer. A full disk: a library on a small
//! filesystem of its own (a tmpfs with a size limit) that fills while PDFs are added and indexed,
//! by another program's file. A drive unmounted (a bind mount taken away) while a document's
//! pages are read by OCR. Each time indexing waits with a status that says why and what to do; no document is
//! failed; what was indexed before stays as it was and searchable; indexing goes on by itself once
//! the disk is back or has room, and every document ends as a clean run leaves it. Mounting needs
//! the superuser: elsewhere the tests say so and pass. (A disk that turns read-only under open
//! files cannot be made here: `mount -o remount,ro` refuses while the indexer writes.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{corpus_pdf, models_dir};

/// Indexed first, before the disk fills.
const BEFORE: &[&str] = &["text-pdflatex-4-pages.pdf", "text-word-mac-lorem-ipsum-2p.pdf"];
/// Added while the disk is full, in this order: the first is read first.
const DURING: &[&str] = &["struct-page-labels-11p.pdf", "text-kb-pdf-risks-56p-objstm.pdf"];

/// A tmpfs of a given size mounted on a temporary directory, unmounted when dropped.
struct SmallDisk {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl SmallDisk {
    fn mount(megabytes: u64) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("disk");
        std::fs::create_dir(&root).unwrap();
        if !mount(&["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"], &root) {
            eprintln!("skipped: mounting a tmpfs of {megabytes} MB needs the superuser; run the tests as root to cover a failing disk");
            return None;
        }
        Some(SmallDisk { _dir: dir, root })
    }

    fn free(&self) -> u64 {
        let out = Command::new("df")
            .args(["--output=avail", "-B1"])
            .arg(&self.root)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .nth(1)
            .and_then(|l| l.trim().parse().ok())
            .unwrap()
    }

    /// Another program's file, taking all but `leave` bytes of the free space.
    fn fill(&self, leave: u64) {
        let ballast = self.root.join("ballast");
        let size = std::fs::metadata(&ballast).map_or(0, |m| m.len());
        let target = (size + self.free()).saturating_sub(leave);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&ballast)
            .unwrap();
        // Written, not sparse: a tmpfs counts only the pages written.
        let mut left = target.saturating_sub(size);
        let block = vec![0x5au8; 1 << 20];
        let mut writer = std::io::BufWriter::new(file);
        while left > 0 {
            let n = left.min(block.len() as u64) as usize;
            std::io::Write::write_all(&mut writer, &block[..n]).unwrap();
            left -= n as u64;
        }
    }

    fn free_up(&self) {
        std::fs::remove_file(self.root.join("ballast")).unwrap();
    }
}

/// Runs `mount` with `args` on `on`; whether it did.
fn mount(args: &[&str], on: &Path) -> bool {
    Command::new("mount")
        .args(args)
        .arg(on)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.root).status();
    }
}

fn lectern(home: &Path, min_free_mb: u64) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lectern"));
    command
        .arg("--home")
        .arg(home)
        .env("LECTERN_MODELS", models_dir())
        .env("LECTERN_WORKERS", "1")
        .env("LECTERN_MIN_FREE_MB", min_free_mb.to_string())
        .env_remove("LECTERN_DATABASE_URL");
    command
}

fn run(home: &Path, min_free_mb: u64, args: &[&str]) -> Output {
    let out = lectern(home, min_free_mb).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "lectern {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn add(home: &Path, min_free_mb: u64, names: &[&str]) -> String {
    add_with(home, min_free_mb, &[], names)
}

/// `lectern add` of the corpus's `names` with `flags`; what it printed.
fn add_with(home: &Path, min_free_mb: u64, flags: &[&str], names: &[&str]) -> String {
    let paths: Vec<String> = names
        .iter()
        .map(|n| corpus_pdf(n).to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["add"];
    args.extend(flags);
    args.extend(paths.iter().map(String::as_str));
    String::from_utf8_lossy(&run(home, min_free_mb, &args).stdout).into_owned()
}

/// An indexer that waits for work (`lectern index --watch`), and the file its standard error
/// goes to.
fn watcher(home: &Path) -> (std::process::Child, tempfile::NamedTempFile) {
    let log = tempfile::NamedTempFile::new().unwrap();
    let child = lectern(home, 16)
        .args(["index", "--watch"])
        .stdout(Stdio::null())
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    (child, log)
}

fn status(home: &Path) -> serde_json::Value {
    serde_json::from_slice(&run(home, 0, &["status", "--json"]).stdout).unwrap()
}

/// Each document as `lectern ls --json` gives it.
fn documents(home: &Path) -> Vec<serde_json::Value> {
    serde_json::from_slice(&run(home, 0, &["ls", "--json"]).stdout).unwrap()
}

/// Each document by file name: status, pages, passages, characters, embedded.
fn outcomes(home: &Path) -> Vec<(String, String, u64, u64, u64, bool)> {
    let docs = documents(home);
    let mut outcomes: Vec<_> = docs
        .iter()
        .map(|d| {
            let n = |key: &str| d[key].as_u64().unwrap_or(0);
            (
                d["file_name"].as_str().unwrap().to_string(),
                d["status"].as_str().unwrap().to_string(),
                n("page_count"),
                n("chunk_count"),
                n("char_count"),
                d["embedded_with"].is_string(),
            )
        })
        .collect();
    outcomes.sort();
    outcomes
}

fn search(home: &Path) -> String {
    let out = run(home, 0, &["search", "--json", "--k", "5", "lorem ipsum dolor"]);
    let results: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    results["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{} p{} {}", h["document_name"], h["page"], h["text"]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < timeout, "{what} did not happen within {timeout:?}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_full_disk_holds_indexing_loses_nothing_and_indexing_goes_on_when_space_returns() {
    let Some(disk) = SmallDisk::mount(96) else {
        return;
    };
    let home = disk.root.join("library");
    // What a clean run leaves, on a disk with room.
    let clean = tempfile::tempdir().unwrap();
    add(clean.path(), 16, BEFORE);
    add(clean.path(), 16, DURING);
    let expected = outcomes(clean.path());
    assert!(expected.iter().all(|o| o.1 == "ready" && o.5), "{expected:?}");

    add(&home, 16, BEFORE);
    let searched_before = search(&home);
    assert!(!searched_before.is_empty());

    // The disk fills (another program's file) before the next PDFs are added: they are copied
    // in, and indexing waits for space rather than failing them; the command says why.
    disk.fill(8 << 20);
    for name in DURING {
        let said = add(&home, 16, &[name]);
        assert!(said.contains("is full") && said.contains("Free "), "{said}");
    }
    let during = outcomes(&home);
    for name in DURING {
        let doc = during.iter().find(|o| o.0 == *name).expect("added");
        assert_eq!(doc.1, "queued", "{name}: {doc:?}");
    }
    assert_eq!(
        status(&home)["held"],
        serde_json::Value::Null,
        "no indexer is left holding"
    );
    assert_eq!(search(&home), searched_before, "what was indexed before is as it was");

    // Without a floor, the disk all but full: whatever write fails first (the catalog's, an
    // index's), the command says the disk is full and no document failed. (A reading that fails
    // part way for lack of space: `jobs/queue.rs`'s tests.)
    disk.fill(40 << 10);
    let out = lectern(&home, 0).arg("index").output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("full"), "{said}");
    assert!(outcomes(&home).iter().all(|o| o.1 != "failed"), "{:?}", outcomes(&home));

    // An indexer that waits goes on by itself once the space is freed.
    let waits = |status: &serde_json::Value| status["held"].as_str().map(str::to_string);
    let (mut watcher, log) = watcher(&home);
    // Its catalog may have no room to say so: its standard error does.
    wait_for("indexing to wait for space", Duration::from_secs(60), || {
        std::fs::read_to_string(log.path()).unwrap().contains("is full")
    });
    disk.free_up();
    wait_for("indexing to go on", Duration::from_secs(300), || {
        outcomes(&home).iter().all(|o| o.1 == "ready" && o.5)
    });
    let _ = watcher.kill();
    let _ = watcher.wait();
    assert_eq!(outcomes(&home), expected);
    assert_eq!(waits(&status(&home)), None);
    assert!(!std::fs::read_to_string(log.path()).unwrap().contains("failed"));
    assert_eq!(search(&home).lines().count(), search(clean.path()).lines().count());
}

/// Documents added without waiting, then an indexer with `--watch` whose standard error is kept;
/// `fail` takes the disk away while the 56-page document's pages without text are read by OCR
/// (each by a worker that opens the PDF anew), and `mend` gives it back once the indexer says it
/// waits with `says`.
fn away_and_back(home: &Path, says: &str, fail: impl FnOnce(), mend: impl FnOnce()) {
    let clean = tempfile::tempdir().unwrap();
    add(clean.path(), 16, DURING);
    let expected = outcomes(clean.path());
    assert!(
        expected.iter().any(|o| o.0 == DURING[1] && o.1 == "ready"),
        "{expected:?}"
    );

    add_with(home, 16, &["--no-wait"], DURING);
    let (mut watcher, log) = watcher(home);
    // Its pages 3-5 are read by OCR, a second or so each: the drive goes before the last of them.
    let read = |doc: &serde_json::Value| doc["file_name"] == DURING[1] && doc["status"] == "indexing";
    wait_for("the 56-page document to be read", Duration::from_secs(120), || {
        documents(home).iter().any(read)
    });
    fail();
    wait_for("the indexer to say it waits", Duration::from_secs(60), || {
        std::fs::read_to_string(log.path()).unwrap().contains(says)
    });
    mend();
    wait_for("indexing to go on", Duration::from_secs(300), || {
        outcomes(home).iter().all(|o| o.1 == "ready" && o.5)
    });
    let _ = watcher.kill();
    let _ = watcher.wait();
    if outcomes(home) != expected {
        // What the indexer said, and each document's log, to tell what went differently.
        eprintln!("the indexer said:\n{}", std::fs::read_to_string(log.path()).unwrap());
        for doc in documents(home) {
            let log = run(home, 0, &["doc", "log", doc["id"].as_str().unwrap()]).stdout;
            eprintln!(
                "{}: {}\n{}",
                doc["file_name"],
                doc["reason"],
                String::from_utf8_lossy(&log)
            );
        }
    }
    assert_eq!(outcomes(home), expected);
    // Each page read as in the clean run ("pages 3-5 were read by OCR"), none left unread.
    let notes = |home: &Path| {
        let mut notes: Vec<_> = documents(home)
            .iter()
            .map(|d| (d["file_name"].to_string(), d["reason"].to_string()))
            .collect();
        notes.sort();
        notes
    };
    assert_eq!(notes(home), notes(clean.path()));
    let said = std::fs::read_to_string(log.path()).unwrap();
    assert!(!said.contains("failed"), "{said}");
}

#[test]
fn a_drive_that_goes_away_changes_nothing_and_indexing_goes_on_when_it_is_back() {
    let Some(disk) = SmallDisk::mount(96) else {
        return;
    };
    // A bind mount of a directory, taken away and given back as a drive is unplugged and
    // plugged in again: the data directory is an empty mount point meanwhile.
    let real = disk.root.join("drive");
    let point = disk.root.join("mnt");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::create_dir_all(&point).unwrap();
    assert!(mount(&["--bind", real.to_str().unwrap()], &point), "bind mount");
    let home = point.join("library");
    let umount = || {
        let done = Command::new("umount").arg("-l").arg(&point).status().unwrap();
        assert!(done.success());
    };
    away_and_back(&home, "is not there", umount, || {
        assert!(mount(&["--bind", real.to_str().unwrap()], &point), "bind mount again")
    });
    let _ = Command::new("umount").arg("-l").arg(&point).status();
}
