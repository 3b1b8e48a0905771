//! Import: PDFs recognised by their header, a clear refusal for everything else, directories
//! walked, originals untouched, content stored once.

use std::path::PathBuf;

use lectern::catalog::DEFAULT_FOLDER;
use lectern::{DocumentStatus, ErrorCode};

use crate::common::{corpus_pdf, library};

#[test]
fn each_bad_input_gets_its_own_clear_reason_and_the_rest_is_imported() {
    let lib = library();
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.pdf");
    std::fs::write(&text, "just some notes, not a PDF").unwrap();
    let missing = dir.path().join("missing.pdf");
    let good = corpus_pdf("text-pdfspec-simple1-handwritten.pdf");

    let report = lib
        .add(&[text.clone(), missing.clone(), good.clone()], DEFAULT_FOLDER)
        .unwrap();
    assert_eq!(report.added.len(), 1);
    assert_eq!(report.added[0].status, DocumentStatus::Queued);
    let reasons: Vec<(PathBuf, String)> = report.failed.into_iter().map(|f| (f.path, f.reason)).collect();
    assert_eq!(
        reasons,
        vec![
            (
                text.clone(),
                format!(
                    "{} is not a PDF (it starts with \"just some notes,\"); only PDF files can be added",
                    text.display()
                )
            ),
            (
                missing.clone(),
                format!("{}: no such file or directory", missing.display())
            ),
        ]
    );
}

#[test]
fn a_pdf_is_recognised_by_its_header_not_its_name() {
    let lib = library();
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("scan.dat");
    std::fs::copy(corpus_pdf("text-libreoffice-writer-1p.pdf"), &renamed).unwrap();
    let report = lib.add(&[renamed], DEFAULT_FOLDER).unwrap();
    assert_eq!(report.added.len(), 1);
    assert_eq!(report.added[0].file_name, "scan.dat");
}

#[test]
fn an_unknown_folder_is_an_error_before_anything_is_copied() {
    let lib = library();
    let err = lib
        .add(&[corpus_pdf("text-xelatex-4p.pdf")], "No Such Folder")
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert_eq!(std::fs::read_dir(lib.home.path().join("files")).unwrap().count(), 0);
}

#[test]
fn directories_are_walked_and_non_pdfs_inside_are_passed_over() {
    let lib = library();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
    std::fs::copy(corpus_pdf("text-xelatex-4p.pdf"), dir.path().join("a/one.pdf")).unwrap();
    std::fs::copy(corpus_pdf("text-pdflatex-4-pages.pdf"), dir.path().join("a/b/two.pdf")).unwrap();
    std::fs::write(dir.path().join("a/readme.txt"), "hello").unwrap();
    let report = lib.add(&[dir.path().to_path_buf()], DEFAULT_FOLDER).unwrap();
    let names: Vec<&str> = report.added.iter().map(|d| d.file_name.as_str()).collect();
    assert_eq!(names, vec!["two.pdf", "one.pdf"]);
    assert_eq!(report.ignored, 1);
    assert!(report.failed.is_empty());
}

#[test]
fn the_original_is_copied_content_addressed_and_never_modified() {
    let lib = library();
    let original = corpus_pdf("text-word-mac-lorem-ipsum-2p.pdf");
    let before = std::fs::read(&original).unwrap();
    let doc = lib
        .add(std::slice::from_ref(&original), DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);
    let stored = lib.home.path().join("files").join(format!("{}.pdf", doc.content_hash));
    assert_eq!(std::fs::read(&stored).unwrap(), before);
    assert_eq!(std::fs::read(&original).unwrap(), before);
    assert_eq!(doc.byte_size, before.len() as u64);
    use sha2::Digest;
    assert_eq!(doc.content_hash, hex::encode(sha2::Sha256::digest(&before)));
}

#[test]
fn the_same_content_twice_in_one_folder_is_recognised() {
    let lib = library();
    let pdf = corpus_pdf("text-xelatex-4p.pdf");
    let first = lib.add(std::slice::from_ref(&pdf), DEFAULT_FOLDER).unwrap();
    let second = lib.add(&[pdf], DEFAULT_FOLDER).unwrap();
    assert_eq!(first.added.len(), 1);
    assert!(second.added.is_empty());
    assert_eq!(second.already_present[0].id, first.added[0].id);
}

#[test]
fn the_library_directory_is_readable_by_its_owner_alone() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let home = parent.path().join("library");
    std::fs::create_dir(&home).unwrap();
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _lib = lectern::Library::open(crate::common::config(&home)).unwrap();
    let mode = std::fs::metadata(&home).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "{mode:o}");
}

#[test]
fn symbolic_links_that_loop_are_walked_once() {
    let lib = library();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("x/y")).unwrap();
    std::fs::copy(corpus_pdf("text-xelatex-4p.pdf"), root.join("x/one.pdf")).unwrap();
    std::fs::copy(corpus_pdf("text-pdflatex-4-pages.pdf"), root.join("two.pdf")).unwrap();
    // One cycle back to the top, and two links that lead to each other's parents (without a
    // check, 2^40 paths).
    std::os::unix::fs::symlink(root, root.join("x/y/top")).unwrap();
    std::os::unix::fs::symlink(root.join("x"), root.join("x/y/again")).unwrap();
    std::os::unix::fs::symlink(root.join("x/y"), root.join("x/down")).unwrap();
    let report = lib.add(&[root.to_path_buf()], DEFAULT_FOLDER).unwrap();
    let mut names: Vec<&str> = report.added.iter().map(|d| d.file_name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["one.pdf", "two.pdf"]);
    assert!(
        report.already_present.is_empty() && report.failed.is_empty(),
        "{report:?}"
    );
}

/// Two programs on one library, one importing a file while the other deletes its last document
/// with the same content: the stored file is never removed from under a new document, and no
/// "database is locked" reaches either program.
#[test]
fn two_programs_importing_and_deleting_one_content_keep_its_file() {
    let lib = library();
    let other = lectern::Library::open(crate::common::config(lib.home.path())).unwrap();
    let pdf = corpus_pdf("text-libreoffice-writer-1p.pdf");
    let stored = |doc: &lectern::Document| lib.home.path().join("files").join(format!("{}.pdf", doc.content_hash));
    for name in ["A", "B"] {
        lib.create_folder(name).unwrap();
    }
    std::thread::scope(|scope| {
        for (library, folder) in [(&*lib, "A"), (&other, "B")] {
            let pdf = &pdf;
            let stored = &stored;
            scope.spawn(move || {
                for round in 0..150 {
                    let doc = library.add(std::slice::from_ref(pdf), folder).unwrap().added.remove(0);
                    assert!(
                        stored(&doc).is_file(),
                        "round {round}: the file of a new document was removed"
                    );
                    let sub = format!("{folder}/{round}");
                    library.create_folder(&sub).unwrap();
                    library.delete_folder(&sub, lectern::DeleteMode::MoveToParent).unwrap();
                    library.delete_document(doc.id).unwrap();
                }
            });
        }
    });
    assert!(lib.documents(None, true).unwrap().is_empty());
    assert_eq!(std::fs::read_dir(lib.home.path().join("files")).unwrap().count(), 0);
}
