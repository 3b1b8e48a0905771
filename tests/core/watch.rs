//! Linked directories: sync after changes made while Lectern was closed (renames, edits,
//! deletions, files still being written, unreadable files, a directory that vanishes and comes
//! back), and the watcher picking up changes, a burst of 200 files among them, while it runs.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use std::sync::Mutex;

use lectern::{Library, SyncReport};

use crate::common::{corpus_pdf, index_all, library, obey_file_permissions, write_text_pdf};

/// Marks `path` as last modified a minute ago: settled, as far as a sync can tell.
fn settle(path: &Path) {
    let file = fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(60)).unwrap();
}

fn copy_settled(from: &Path, to: &Path) {
    fs::copy(from, to).unwrap();
    settle(to);
}

fn names(library: &Library, folder: &str) -> Vec<String> {
    let mut names: Vec<String> = library
        .documents(Some(folder), true)
        .unwrap()
        .into_iter()
        .map(|d| d.file_name)
        .collect();
    names.sort();
    names
}

#[test]
fn linking_a_directory_tells_how_far_it_has_come() {
    let t = library();
    t.create_folder("Linked").unwrap();
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.pdf", "b.pdf", "c.pdf"] {
        copy_settled(&corpus_pdf("text-libreoffice-writer-1p.pdf"), &dir.path().join(name));
    }
    copy_settled(
        &corpus_pdf("text-word-mac-lorem-ipsum-2p.pdf"),
        &dir.path().join("d.pdf"),
    );
    let told = Mutex::new(Vec::new());
    let (_, report) = t
        .link_directory_reporting(dir.path(), "Linked", false, &|p| told.lock().unwrap().push(p))
        .unwrap();
    assert_eq!(report.added, 4, "{report:?}");
    let told = told.into_inner().unwrap();
    let step = |adding: bool| -> Vec<usize> {
        told.iter()
            .filter(|p| p.adding == adding)
            .inspect(|p| assert_eq!(p.total, 4, "{p:?}"))
            .map(|p| p.done)
            .collect()
    };
    assert_eq!(step(false), [0, 1, 2, 3, 4], "the files read, one by one: {told:?}");
    assert_eq!(step(true), [0, 1, 2, 3, 4], "then the new ones added: {told:?}");
    assert!(
        told.windows(2).all(|w| w[0].adding <= w[1].adding),
        "reading ends before adding begins: {told:?}"
    );
}

#[test]
fn a_sync_catches_up_on_new_renamed_changed_and_deleted_files() {
    let t = library();
    t.create_folder("Linked").unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    copy_settled(
        &corpus_pdf("text-libreoffice-writer-1p.pdf"),
        &dir.path().join("writer.pdf"),
    );
    copy_settled(
        &corpus_pdf("text-word-mac-lorem-ipsum-2p.pdf"),
        &dir.path().join("sub/lorem.PDF"),
    );
    fs::write(dir.path().join("notes.txt"), "not a pdf").unwrap();
    fs::write(dir.path().join(".hidden.pdf"), "an editor's temporary file").unwrap();

    let (link, report) = t.link_directory(dir.path(), "Linked", false).unwrap();
    assert_eq!(
        (report.available, report.added, report.failed.len()),
        (true, 2, 0),
        "{report:?}"
    );
    assert_eq!(names(&t, "Linked"), ["lorem.PDF", "writer.pdf"]);
    let lorem_id = t
        .documents(Some("Linked"), true)
        .unwrap()
        .into_iter()
        .find(|d| d.file_name == "lorem.PDF")
        .unwrap()
        .id;
    index_all(&t);

    // While "closed": a rename into another subdirectory, an edit, a deletion, a new file.
    fs::create_dir(dir.path().join("moved")).unwrap();
    fs::rename(dir.path().join("sub/lorem.PDF"), dir.path().join("moved/ipsum.pdf")).unwrap();
    copy_settled(
        &corpus_pdf("multicol-latex-multicolumn-3p.pdf"),
        &dir.path().join("writer.pdf"),
    );
    write_text_pdf(&dir.path().join("new.pdf"), &["A new file about lighthouses."]);
    settle(&dir.path().join("new.pdf"));
    let report = t.sync_link(link.id).unwrap();
    assert_eq!(
        (report.added, report.renamed, report.changed, report.removed),
        (1, 1, 1, 0),
        "{report:?}"
    );
    assert_eq!(names(&t, "Linked"), ["ipsum.pdf", "new.pdf", "writer.pdf"]);
    let renamed = t.document(&lorem_id.to_string()).unwrap();
    assert_eq!(
        renamed.file_name, "ipsum.pdf",
        "a rename keeps the document and its index"
    );
    assert!(renamed.status.is_settled());

    fs::remove_file(dir.path().join("new.pdf")).unwrap();
    let report = t.sync_link(link.id).unwrap();
    assert_eq!(report.removed, 1, "{report:?}");
    assert_eq!(names(&t, "Linked"), ["ipsum.pdf", "writer.pdf"]);
    assert_eq!(
        t.sync_link(link.id).unwrap(),
        SyncReport {
            available: true,
            ..SyncReport::default()
        }
    );
}

#[test]
fn files_being_written_wait_and_unreadable_ones_are_reported() {
    let t = library();
    t.create_folder("Linked").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (link, _) = t.link_directory(dir.path(), "Linked", false).unwrap();

    write_text_pdf(&dir.path().join("fresh.pdf"), &["Written this very second."]);
    std::os::unix::fs::symlink(dir.path().join("missing-target.pdf"), dir.path().join("broken.pdf")).unwrap();
    fs::write(dir.path().join("fake.pdf"), "this is not a PDF at all").unwrap();
    settle(&dir.path().join("fake.pdf"));
    let report = t.sync_link(link.id).unwrap();
    assert_eq!((report.pending, report.added), (1, 0), "{report:?}");
    let failed: Vec<&str> = report.failed.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(failed, ["broken.pdf", "fake.pdf"], "{report:?}");
    assert!(report.failed.iter().all(|(_, why)| !why.is_empty()));
    let status = &t.links().unwrap()[0];
    assert_eq!(
        (status.pending, status.failed.len()),
        (1, 2),
        "the link shows what waits and what failed"
    );

    settle(&dir.path().join("fresh.pdf"));
    let report = t.sync_link(link.id).unwrap();
    assert_eq!((report.pending, report.added), (0, 1), "{report:?}");
}

#[test]
fn a_vanished_directory_keeps_its_documents_until_it_is_back() {
    let t = library();
    t.create_folder("Linked").unwrap();
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("drive");
    fs::create_dir(&dir).unwrap();
    copy_settled(&corpus_pdf("text-libreoffice-writer-1p.pdf"), &dir.join("a.pdf"));
    let (link, _) = t.link_directory(&dir, "Linked", false).unwrap();

    fs::rename(&dir, parent.path().join("unplugged")).unwrap();
    let report = t.sync_link(link.id).unwrap();
    assert!(!report.available);
    assert_eq!(
        names(&t, "Linked"),
        ["a.pdf"],
        "nothing is deleted while the drive is away"
    );
    assert!(!t.links().unwrap()[0].available);

    fs::rename(parent.path().join("unplugged"), &dir).unwrap();
    let report = t.sync_link(link.id).unwrap();
    assert_eq!(
        (report.available, report.removed, report.added),
        (true, 0, 0),
        "{report:?}"
    );
    assert_eq!(names(&t, "Linked"), ["a.pdf"]);
}

#[test]
fn a_directory_that_cannot_be_read_or_a_mount_point_left_empty_deletes_nothing() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let t = library();
    t.create_folder("Linked").unwrap();
    let parent = tempfile::tempdir().unwrap();
    let drive = parent.path().join("drive");
    let sub = drive.join("sub");
    fs::create_dir_all(&sub).unwrap();
    copy_settled(&corpus_pdf("text-libreoffice-writer-1p.pdf"), &drive.join("a.pdf"));
    copy_settled(&corpus_pdf("text-word-mac-lorem-ipsum-2p.pdf"), &sub.join("b.pdf"));
    let (link, _) = t.link_directory(&drive, "Linked", false).unwrap();
    assert_eq!(names(&t, "Linked"), ["a.pdf", "b.pdf"]);

    fs::set_permissions(&sub, fs::Permissions::from_mode(0o000)).unwrap();
    let as_a_user = obey_file_permissions();
    let report = t.sync_link(link.id).unwrap();
    drop(as_a_user);
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(report.removed, 0, "{report:?}");
    assert_eq!(
        report.failed.iter().map(|(path, _)| path.as_str()).collect::<Vec<_>>(),
        ["sub"],
        "the unreadable directory is named"
    );
    assert_eq!(
        names(&t, "Linked"),
        ["a.pdf", "b.pdf"],
        "a file not seen is not a file gone"
    );

    // The drive unmounted: its mount point is an empty directory of the file system above it
    // (here one of /dev/shm, standing in through a symbolic link).
    let elsewhere = tempfile::tempdir_in("/dev/shm").unwrap();
    assert_ne!(
        fs::metadata(elsewhere.path()).unwrap().dev(),
        fs::metadata(parent.path()).unwrap().dev(),
        "this test needs /dev/shm on a file system of its own"
    );
    fs::rename(&drive, parent.path().join("away")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), &drive).unwrap();
    let report = t.sync_link(link.id).unwrap();
    assert!(!report.available, "{report:?}");
    assert_eq!(names(&t, "Linked"), ["a.pdf", "b.pdf"]);
    assert!(!t.links().unwrap()[0].available);

    fs::remove_file(&drive).unwrap();
    fs::rename(parent.path().join("away"), &drive).unwrap();
    let report = t.sync_link(link.id).unwrap();
    assert_eq!(
        (report.available, report.removed, report.added),
        (true, 0, 0),
        "{report:?}"
    );

    // Every file deleted, the directory on its own device still: they are gone.
    fs::remove_file(drive.join("a.pdf")).unwrap();
    fs::remove_dir_all(&sub).unwrap();
    let report = t.sync_link(link.id).unwrap();
    assert_eq!((report.available, report.removed), (true, 2), "{report:?}");
    assert!(names(&t, "Linked").is_empty());
}

#[test]
fn identical_files_each_keep_their_own_document_and_are_indexed_once() {
    let t = library();
    t.create_folder("Linked").unwrap();
    let pdf = corpus_pdf("text-libreoffice-writer-1p.pdf");
    t.add(std::slice::from_ref(&pdf), "Linked").unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("copies")).unwrap();
    for name in ["a.pdf", "copies/a.pdf", "copies/c.pdf"] {
        copy_settled(&pdf, &dir.path().join(name));
    }
    let (link, report) = t.link_directory(dir.path(), "Linked", false).unwrap();
    assert_eq!(report.added, 3, "{report:?}");
    let mut events = t.subscribe();
    index_all(&t);
    let mut reused = 0;
    while let Ok(event) = events.try_recv() {
        if let lectern::jobs::IndexEvent::Finished { reused_from, .. } = event {
            reused += usize::from(reused_from.is_some());
        }
    }
    assert_eq!(
        reused, 3,
        "the content is embedded once, its index copied to the three others"
    );
    assert_eq!(
        names(&t, "Linked").len(),
        4,
        "the file added by hand and the three linked copies"
    );

    // One copy deleted, another renamed: the others, and the one added by hand, stay.
    fs::remove_file(dir.path().join("copies/a.pdf")).unwrap();
    fs::rename(dir.path().join("copies/c.pdf"), dir.path().join("d.pdf")).unwrap();
    let report = t.sync_link(link.id).unwrap();
    assert_eq!((report.removed, report.renamed, report.added), (1, 1, 0), "{report:?}");
    assert_eq!(
        names(&t, "Linked"),
        ["a.pdf", "d.pdf", "text-libreoffice-writer-1p.pdf"]
    );
    let docs = t.documents(Some("Linked"), true).unwrap();
    assert!(
        docs.iter().all(|d| d.status == lectern::DocumentStatus::Ready),
        "{docs:?}"
    );
}

#[test]
fn a_link_can_keep_the_documents_of_deleted_files_and_unlinking_keeps_them_all() {
    let t = library();
    t.create_folder("Kept").unwrap();
    let dir = tempfile::tempdir().unwrap();
    copy_settled(&corpus_pdf("text-libreoffice-writer-1p.pdf"), &dir.path().join("a.pdf"));
    let (link, _) = t.link_directory(dir.path(), "Kept", true).unwrap();
    let e = t.link_directory(dir.path(), "Kept", true).unwrap_err();
    assert!(e.to_string().contains("already linked"), "{e}");

    fs::remove_file(dir.path().join("a.pdf")).unwrap();
    assert_eq!(t.sync_link(link.id).unwrap().kept, 1);
    assert_eq!(names(&t, "Kept"), ["a.pdf"]);
    t.unlink(t.find_link(&dir.path().to_string_lossy()).unwrap().id)
        .unwrap();
    assert!(t.links().unwrap().is_empty());
    assert_eq!(names(&t, "Kept"), ["a.pdf"]);
}

fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < timeout, "{what}: not within {timeout:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_watcher_follows_changes_and_a_burst_of_200_files_while_it_runs() {
    let t = library();
    t.create_folder("Watched").unwrap();
    let dir = tempfile::tempdir().unwrap();
    copy_settled(
        &corpus_pdf("text-libreoffice-writer-1p.pdf"),
        &dir.path().join("before.pdf"),
    );
    t.link_directory(dir.path(), "Watched", false).unwrap();
    let watcher = t.library.watch().unwrap();

    // A file copied in is indexed once it has settled.
    fs::copy(
        corpus_pdf("text-word-mac-lorem-ipsum-2p.pdf"),
        dir.path().join("copied.pdf"),
    )
    .unwrap();
    wait_for("the copied file", Duration::from_secs(20), || {
        names(&t, "Watched").len() == 2
    });

    // An editor's save: write a temporary file, then rename it over the original.
    write_text_pdf(&dir.path().join(".copied.pdf.tmp"), &["Edited content about harbours."]);
    settle(&dir.path().join(".copied.pdf.tmp"));
    let copied_id = |t: &Library| {
        t.documents(Some("Watched"), true)
            .unwrap()
            .into_iter()
            .find(|d| d.file_name == "copied.pdf")
            .map(|d| d.id)
    };
    let before = copied_id(&t);
    fs::rename(dir.path().join(".copied.pdf.tmp"), dir.path().join("copied.pdf")).unwrap();
    wait_for("the edited file re-indexed", Duration::from_secs(20), || {
        copied_id(&t).is_some_and(|id| Some(id) != before) && names(&t, "Watched").len() == 2
    });

    // A burst of 200 new files lands at once.
    let burst = dir.path().join("burst");
    fs::create_dir(&burst).unwrap();
    for i in 0..200 {
        write_text_pdf(
            &burst.join(format!("note-{i:03}.pdf")),
            &[&format!("Note number {i} of the burst.")],
        );
    }
    wait_for("the burst", Duration::from_secs(60), || {
        names(&t, "Watched").len() == 202
    });

    fs::remove_dir_all(&burst).unwrap();
    fs::remove_file(dir.path().join("before.pdf")).unwrap();
    wait_for("the deletions", Duration::from_secs(20), || {
        names(&t, "Watched") == ["copied.pdf"]
    });
    watcher.stop();
    let status = &t.links().unwrap()[0];
    assert_eq!((status.pending, status.available), (0, true));
}

#[test]
fn names_in_any_script_and_names_that_are_not_utf8_are_synced_without_a_fault() {
    use std::os::unix::ffi::OsStrExt;

    let t = library();
    t.create_folder("Linked").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pdfs = [
        ("メモ.pdf", "text-libreoffice-writer-1p.pdf"),
        ("Grüße.PDF", "text-word-mac-lorem-ipsum-2p.pdf"),
        ("日本語のノート.pdf", "text-xelatex-4p.pdf"),
    ];
    for (name, pdf) in pdfs {
        copy_settled(&corpus_pdf(pdf), &dir.path().join(name));
    }
    // Names whose fourth byte from the end falls inside a character, and one that is not UTF-8.
    for name in ["メモ", "Grüße", "日本語のノート"] {
        fs::write(dir.path().join(name), "not a pdf").unwrap();
    }
    copy_settled(
        &corpus_pdf("text-pdflatex-4-pages.pdf"),
        &dir.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9.pdf")),
    );
    fs::write(dir.path().join(std::ffi::OsStr::from_bytes(b"\xff\xfe")), "not a pdf").unwrap();

    let (_, report) = t.link_directory(dir.path(), "Linked", false).unwrap();
    assert_eq!((report.added, report.failed.len()), (4, 0), "{report:?}");
    assert_eq!(
        names(&t, "Linked"),
        ["Grüße.PDF", "caf\u{fffd}.pdf", "メモ.pdf", "日本語のノート.pdf"]
    );
}

/// A library from before each linked copy was a document of its own: two files of a link share
/// one document. Deleting one of the files keeps the document the other still needs.
#[test]
fn a_document_two_linked_files_share_stays_while_one_of_them_is_left() {
    let t = library();
    t.create_folder("Linked").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pdf = corpus_pdf("text-libreoffice-writer-1p.pdf");
    copy_settled(&pdf, &dir.path().join("a.pdf"));
    copy_settled(&pdf, &dir.path().join("b.pdf"));
    let (link, _) = t.link_directory(dir.path(), "Linked", false).unwrap();
    let docs = t.documents(Some("Linked"), true).unwrap();
    assert_eq!(docs.len(), 2);
    let db = rusqlite::Connection::open(t.home.path().join("library.sqlite")).unwrap();
    db.execute("UPDATE linked_files SET document_id = ?1", [docs[0].id.to_string()])
        .unwrap();
    db.execute("DELETE FROM documents WHERE id = ?1", [docs[1].id.to_string()])
        .unwrap();

    fs::remove_file(dir.path().join("a.pdf")).unwrap();
    let report = t.sync_link(link.id).unwrap();
    assert_eq!(report.removed, 1, "{report:?}");
    assert_eq!(
        t.documents(Some("Linked"), true).unwrap().len(),
        1,
        "b.pdf still has its document"
    );
    fs::remove_file(dir.path().join("b.pdf")).unwrap();
    t.sync_link(link.id).unwrap();
    assert!(t.documents(Some("Linked"), true).unwrap().is_empty());
}
