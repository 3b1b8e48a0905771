//! The folder tree's rules, document moves, and schema migrations from every older version.

use lectern::catalog::{migrations, Catalog, CatalogError, NewDocument, DEFAULT_FOLDER};
use lectern::{DeleteMode, Error, ErrorCode, Hint};
use rusqlite::Connection;

use crate::common::library;

#[test]
fn a_new_library_starts_with_personal_knowledge() {
    let lib = library();
    let folders = lib.folders().unwrap();
    assert_eq!(folders.len(), 1);
    assert_eq!(folders[0].path, DEFAULT_FOLDER);
}

#[test]
fn folders_nest_rename_and_move_with_their_subtree() {
    let lib = library();
    lib.create_folder("Work").unwrap();
    lib.create_folder("Work/Taxes").unwrap();
    lib.create_folder("Work/Taxes/2024").unwrap();
    lib.rename_folder("Work/Taxes", "Tax returns").unwrap();
    assert_eq!(
        lib.folder("work/tax returns/2024").unwrap().path,
        "Work/Tax returns/2024"
    );
    lib.move_folder("Work/Tax returns", Some(DEFAULT_FOLDER)).unwrap();
    let paths: Vec<String> = lib.folders().unwrap().into_iter().map(|f| f.path).collect();
    assert_eq!(
        paths,
        vec![
            "Personal Knowledge",
            "Personal Knowledge/Tax returns",
            "Personal Knowledge/Tax returns/2024",
            "Work"
        ]
    );
    lib.move_folder("Personal Knowledge/Tax returns", None).unwrap();
    assert!(lib.folder("Tax returns/2024").is_ok());
}

#[test]
fn names_are_unique_among_siblings_only() {
    let lib = library();
    lib.create_folder("Work").unwrap();
    lib.create_folder("Home").unwrap();
    lib.create_folder("Work/Notes").unwrap();
    lib.create_folder("Home/Notes").unwrap();
    let clash = lib.create_folder("work").unwrap_err();
    assert_eq!(clash.code(), ErrorCode::Conflict);
    assert!(clash.to_string().contains("already exists in the top level"), "{clash}");
    let clash = lib.rename_folder("Home/Notes", "notes").map(|_| ());
    assert!(clash.is_ok(), "renaming to the same name in another case is allowed");
    let clash = lib.move_folder("Home/Notes", Some("Work")).unwrap_err();
    assert!(
        clash
            .to_string()
            .contains("\"notes\" already exists in folder \"Work\""),
        "{clash}"
    );
}

#[test]
fn a_folder_cannot_move_into_itself_or_its_descendants() {
    let lib = library();
    lib.create_folder("A").unwrap();
    lib.create_folder("A/B").unwrap();
    lib.create_folder("A/B/C").unwrap();
    for target in ["A", "A/B", "A/B/C"] {
        let err = lib.move_folder("A", Some(target)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(err.to_string().contains("which is inside it"), "{err}");
    }
    assert_eq!(lib.folder("A/B/C").unwrap().path, "A/B/C");
}

#[test]
fn bad_names_and_unknown_folders_are_refused_clearly() {
    let lib = library();
    for bad in ["", "  ", "a/b", &"x".repeat(256)] {
        let err = lib.rename_folder(DEFAULT_FOLDER, bad).err();
        assert!(
            matches!(err, Some(Error::Catalog(CatalogError::InvalidName(_)))),
            "{bad:?}"
        );
    }
    assert!(matches!(
        lib.create_folder(" / ").err(),
        Some(Error::Catalog(CatalogError::InvalidName(_)))
    ));
    let err = lib.create_folder("Nowhere/Child").unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert_eq!(err.to_string(), "no folder named \"Nowhere\"");
    assert_eq!(err.hint(), Some(Hint::ListFolders));
}

#[test]
fn deleting_a_non_empty_folder_needs_a_choice() {
    let lib = library();
    lib.create_folder("Work").unwrap();
    lib.create_folder("Work/Sub").unwrap();
    let pdf = crate::common::corpus_pdf("text-pdfspec-simple1-handwritten.pdf");
    let added = lib.add(std::slice::from_ref(&pdf), "Work/Sub").unwrap();
    let doc = added.added[0].clone();

    let err = lib.delete_folder("Work", DeleteMode::OnlyIfEmpty).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(
        err.to_string().contains("holds 0 document(s) and 1 subfolder(s)"),
        "{err}"
    );

    // Moving up keeps the document, now in Work.
    lib.delete_folder("Work/Sub", DeleteMode::MoveToParent).unwrap();
    assert_eq!(
        lib.document(&doc.id.to_string()).unwrap().folder,
        lib.folder("Work").unwrap().id
    );

    // A top-level folder has no parent to move documents to.
    let err = lib.delete_folder("Work", DeleteMode::MoveToParent).unwrap_err();
    assert!(err.to_string().contains("is at the top level"), "{err}");

    // Deleting the documents removes the row and, no other document sharing it, the stored file.
    let stored = lib.home.path().join("files").join(format!("{}.pdf", doc.content_hash));
    assert!(stored.is_file());
    assert_eq!(lib.delete_folder("Work", DeleteMode::DeleteDocuments).unwrap(), 1);
    assert!(lib.document(&doc.id.to_string()).is_err());
    assert!(!stored.exists());
    assert!(pdf.is_file(), "the user's original is never touched");
}

#[test]
fn moving_a_document_changes_its_folder_only() {
    let lib = library();
    lib.create_folder("Elsewhere").unwrap();
    let added = lib
        .add(
            &[crate::common::corpus_pdf("text-libreoffice-writer-1p.pdf")],
            DEFAULT_FOLDER,
        )
        .unwrap();
    let before = added.added[0].clone();
    let moved = lib.move_document(before.id, "Elsewhere").unwrap();
    assert_eq!(moved.folder, lib.folder("Elsewhere").unwrap().id);
    assert_eq!(lib.documents(Some("Elsewhere"), false).unwrap().len(), 1);
    assert!(lib.documents(Some(DEFAULT_FOLDER), false).unwrap().is_empty());
    assert_eq!(
        lectern::Document {
            folder: before.folder,
            ..moved
        },
        before
    );
}

#[test]
fn a_folders_counts_include_its_subfolders() {
    let lib = library();
    lib.create_folder("Work").unwrap();
    lib.create_folder("Work/Taxes").unwrap();
    lib.create_folder("Workshop").unwrap();
    let pdf = |name: &str| crate::common::corpus_pdf(name);
    lib.add(&[pdf("text-libreoffice-writer-1p.pdf")], "Work").unwrap();
    lib.add(&[pdf("text-word-mac-lorem-ipsum-2p.pdf")], "Work/Taxes")
        .unwrap();
    let count = |path: &str| {
        let stats = lib.folder_stats().unwrap();
        let folder = stats.iter().find(|s| s.folder.path == path).unwrap();
        (
            folder.documents,
            folder.pending + folder.ready + folder.needing_attention,
        )
    };
    assert_eq!(count("Work"), (2, 2), "its own document and its subfolder's");
    assert_eq!(count("Work/Taxes"), (1, 1));
    assert_eq!(
        count("Workshop"),
        (0, 0),
        "a folder whose name starts alike is not inside"
    );
}

#[test]
fn the_change_stamp_moves_with_every_change_another_process_makes_too() {
    let lib = library();
    let stamp = lib.change_stamp();
    if std::env::var_os("LECTERN_TEST_LIBRARY_IN_DATABASE").is_some() {
        // PostgreSQL does not tell a connection of other clients' commits: never "unchanged".
        assert_eq!(stamp, None);
        return;
    }
    assert!(stamp.is_some());
    lib.folders().unwrap();
    assert_eq!(lib.change_stamp(), stamp, "reading changes nothing");
    lib.create_folder("Work").unwrap();
    let after_own = lib.change_stamp();
    assert_ne!(after_own, stamp, "this library's own change");
    // Another process: a second library over the same catalog.
    let other = lectern::Library::open(crate::common::config(lib.home.path())).unwrap();
    other
        .add(&[crate::common::corpus_pdf("text-libreoffice-writer-1p.pdf")], "Work")
        .unwrap();
    assert_ne!(lib.change_stamp(), after_own, "another's commit");
    let now = lib.change_stamp();
    assert_eq!(lib.change_stamp(), now);
}

/// Builds a catalog at every older schema version with rows valid for it, then opens it with the
/// current code: the data must survive and the schema must be the latest.
#[test]
fn migrations_run_from_every_older_version() {
    for version in 0..migrations::latest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("library.sqlite");
        {
            let mut conn = Connection::open(&path).unwrap();
            migrations::apply_up_to(&mut conn, version).unwrap();
            if version >= 1 {
                conn.execute_batch(
                    "INSERT INTO folders (id, parent_id, name, created_at) VALUES (1, NULL, 'Old', 0);
                     INSERT INTO documents (id, folder_id, file_name, byte_size, content_hash, added_at, status)
                     VALUES ('6f1c1e0e-8c55-4d3b-9d59-2f0b1bb5c111', 1, 'old.pdf', 10, 'abc', 0, 'ready');",
                )
                .unwrap();
            }
        }
        let catalog = Catalog::open(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        let user_version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(user_version, migrations::latest(), "from version {version}");
        if version >= 1 {
            let docs = catalog.list_documents(None).unwrap();
            assert_eq!(docs.len(), 1, "from version {version}");
            assert_eq!(docs[0].file_name, "old.pdf");
            assert_eq!(catalog.folder_by_path("Old").unwrap().name, "Old");
            assert_eq!(catalog.password_for("abc").unwrap(), None);
        } else {
            assert_eq!(catalog.list_folders().unwrap()[0].path, DEFAULT_FOLDER);
        }
    }
}

#[test]
fn a_catalog_from_a_newer_lectern_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.sqlite");
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let err = Catalog::open(&path).err().unwrap();
    assert!(err.to_string().contains("newer than this Lectern"), "{err}");
}

/// A snapshot reads the catalog as of one moment (as a copy of the library in use does) while
/// another process goes on writing, without waiting for it.
#[test]
fn a_snapshot_sees_one_moment_while_another_process_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("library.sqlite");
    let (reader, writer) = (Catalog::open(&path).unwrap(), Catalog::open(&path).unwrap());
    let folder = writer.list_folders().unwrap()[0].id;
    let add = |name: &str| {
        writer
            .insert_document(&NewDocument {
                folder,
                file_name: name.into(),
                byte_size: 1,
                content_hash: "ab".repeat(32),
                origin: None,
            })
            .unwrap()
    };
    add("before.pdf");
    let started = std::time::Instant::now();
    let seen = reader
        .snapshot(|reader| {
            let first = reader.list_documents(None)?.len();
            add("during.pdf");
            let again = reader.list_documents(None)?.len();
            Ok::<_, CatalogError>((first, again))
        })
        .unwrap();
    assert_eq!(seen, (1, 1), "the snapshot does not see the document added meanwhile");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "the writer did not wait"
    );
    assert_eq!(reader.list_documents(None).unwrap().len(), 2);
}
