//! The catalog's backups: a damaged catalog keeps the library from opening with a message that
//! names its last good backup and the command that puts it back; putting it back loses no
//! document indexed since, and a catalog with no backup is rebuilt from the indexes; a copy of a
//! library made while it indexes is consistent. Libraries on disk only: a library in a database
//! is restored from the database's backups.

use lectern::catalog::{CatalogError, DEFAULT_FOLDER};
use lectern::search::SearchMode;
use lectern::{restore_catalog, DocumentStatus, Error, ErrorCode, Library, LibraryConfig, RECOVERED_FOLDER};

use crate::common::{config, corpus_pdf, index_all, outcomes, runtime, search};

/// A library on disk in `home`, whichever way the suite runs.
fn on_disk(home: &std::path::Path) -> LibraryConfig {
    let mut config = config(home);
    config.database_url = None;
    config.secret_key = None;
    config
}

/// Writes over the start of `home`'s catalog, as a failing disk or a stray program would.
fn damage(home: &std::path::Path) {
    let path = home.join("library.sqlite");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[..32].copy_from_slice(b"this is not what SQLite wrote...");
    std::fs::write(&path, bytes).unwrap();
}

fn add(library: &Library, file: &str, folder: &str) -> String {
    let id = library.add(&[corpus_pdf(file)], folder).unwrap().added[0]
        .id
        .to_string();
    index_all(library);
    assert_eq!(library.document(&id).unwrap().status, DocumentStatus::Ready);
    id
}

#[test]
fn a_damaged_catalog_is_put_back_from_its_backup_and_documents_indexed_since_are_found_again() {
    let home = tempfile::tempdir().unwrap();
    let library = Library::open(on_disk(home.path())).unwrap();
    library.create_folder("Work").unwrap();
    let before = add(&library, "text-xelatex-4p.pdf", "Work");
    drop(library);
    // The day's backup is made when the library opens: take it now, holding the first document.
    std::fs::remove_dir_all(home.path().join("backups")).unwrap();
    let library = Library::open(on_disk(home.path())).unwrap();
    let since = add(&library, "text-libreoffice-writer-1p.pdf", DEFAULT_FOLDER);
    drop(library);

    damage(home.path());
    let err = Library::open(on_disk(home.path()))
        .err()
        .expect("a damaged catalog does not open");
    assert!(matches!(err, Error::Catalog(CatalogError::Damaged { .. })), "{err:?}");
    assert_eq!(err.code(), ErrorCode::Unavailable);
    let message = err.to_string();
    assert!(message.contains("is damaged"), "{message}");
    assert!(message.contains("last good backup, made 20"), "{message}");
    assert!(message.contains("`lectern library restore-catalog`"), "{message}");

    let restored = restore_catalog(&on_disk(home.path()), None).unwrap();
    assert_eq!((restored.documents, restored.recovered), (1, 1), "{restored:?}");
    let kept = restored.damaged_kept.unwrap();
    assert!(kept.is_file() && kept.to_string_lossy().contains("library.sqlite.damaged-"));

    let library = Library::open(on_disk(home.path())).unwrap();
    let run = index_all(&library);
    assert_eq!(run.reconciled.orphans_removed, 0, "no index was swept as no document's");
    let first = library.document(&before).unwrap();
    assert_eq!(first.status, DocumentStatus::Ready);
    assert_eq!(
        library
            .folders()
            .unwrap()
            .iter()
            .find(|f| f.id == first.folder)
            .unwrap()
            .path,
        "Work"
    );
    let found = library.document(&since).unwrap();
    assert_eq!(found.status, DocumentStatus::Ready, "{found:?}");
    let recovered = library
        .folders()
        .unwrap()
        .into_iter()
        .find(|f| f.id == found.folder)
        .unwrap();
    assert_eq!(recovered.path, RECOVERED_FOLDER);
    // Its index was reused, not built again, and answers as before.
    assert!(library
        .document_log(found.id)
        .unwrap()
        .iter()
        .any(|e| e.message.contains("Found again")));
    let hits = search(&library, "LibreOffice Writer", SearchMode::Keyword).hits;
    assert!(hits.iter().any(|h| h.document.to_string() == since), "{hits:?}");
}

#[test]
fn a_damaged_catalog_without_a_backup_is_rebuilt_from_the_indexes() {
    let home = tempfile::tempdir().unwrap();
    let library = Library::open(on_disk(home.path())).unwrap();
    let id = add(&library, "text-xelatex-4p.pdf", DEFAULT_FOLDER);
    drop(library);
    std::fs::remove_dir_all(home.path().join("backups")).unwrap();
    damage(home.path());
    let message = Library::open(on_disk(home.path())).err().unwrap().to_string();
    assert!(message.contains("no backup of it"), "{message}");
    assert!(message.contains("rebuilds it from the documents' indexes"), "{message}");

    // Not while another process has the library open.
    let held = lectern::jobs::IndexerLock::try_acquire(home.path(), None)
        .unwrap()
        .unwrap();
    let refused = restore_catalog(&on_disk(home.path()), None).unwrap_err().to_string();
    assert!(refused.contains("close the app"), "{refused}");
    drop(held);
    // Nor from a file that is damaged itself.
    let damaged = home.path().join("library.sqlite");
    let refused = restore_catalog(&on_disk(home.path()), Some(&damaged))
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("not a catalog SQLite reads without a problem"),
        "{refused}"
    );
    assert!(damaged.is_file(), "nothing was moved");
    let other = std::process::Command::new(env!("CARGO_BIN_EXE_lectern"))
        .args(["--home"])
        .arg(home.path())
        .args(["library", "restore-catalog", "--json"])
        .env("LECTERN_MODELS", crate::common::models_dir())
        .env("LECTERN_KEYRING", "off")
        .env_remove("LECTERN_DATABASE_URL")
        .output()
        .unwrap();
    assert!(other.status.success(), "{}", String::from_utf8_lossy(&other.stderr));
    let restored: serde_json::Value = serde_json::from_slice(&other.stdout).unwrap();
    assert_eq!(restored["backup"], serde_json::Value::Null);
    assert_eq!(restored["recovered"], 1);

    let library = Library::open(on_disk(home.path())).unwrap();
    index_all(&library);
    assert_eq!(library.document(&id).unwrap().status, DocumentStatus::Ready);
}

/// `lectern library export --to DIR` of a library whose indexer is at work: copies made as a
/// document has just been read, and as one's vectors are being written, open with each ready
/// document's row saying what its index holds, and, once their own indexers have done the rest,
/// hold what the original holds and answer as it does.
#[test]
fn a_library_copied_while_it_indexes_is_consistent_and_ends_as_the_original() {
    use std::time::{Duration, Instant};

    use lectern::jobs::{IndexEvent, RunMode};
    use tokio::sync::broadcast::error::TryRecvError;

    let home = tempfile::tempdir().unwrap();
    let library = Library::open(on_disk(home.path())).unwrap();
    let files = [
        "text-pdflatex-4-pages.pdf",
        "text-word-mac-lorem-ipsum-2p.pdf",
        "struct-page-labels-11p.pdf",
        "text-kb-pdf-risks-56p-objstm.pdf",
    ];
    library.add(&files.map(corpus_pdf), DEFAULT_FOLDER).unwrap();
    let mut events = library.subscribe();
    let rt = runtime();
    let indexer = {
        let library = library.clone();
        rt.spawn(async move { library.run_indexer(RunMode::UntilIdle).await })
    };
    let copies = tempfile::tempdir().unwrap();
    let mut made = Vec::new();
    let started = Instant::now();
    while made.len() < 2 && !indexer.is_finished() {
        let moment = match events.try_recv() {
            Ok(IndexEvent::Finished {
                status: DocumentStatus::Ready,
                ..
            }) if made.is_empty() => "read",
            // Its last passages embedded: its vectors are written next, then its row.
            Ok(IndexEvent::Embedding {
                chunks_done,
                chunks_total,
                ..
            }) if made.len() == 1 && chunks_done == chunks_total => "embedding",
            Err(TryRecvError::Empty) => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            _ => continue,
        };
        let to = copies.path().join(moment);
        let exported = rt.block_on(library.export(to.to_str().unwrap())).unwrap();
        assert_eq!(exported.documents, files.len(), "{moment}");
        made.push(to);
        assert!(started.elapsed() < Duration::from_secs(300));
    }
    rt.block_on(indexer).unwrap().unwrap();
    assert_eq!(made.len(), 2, "a copy at each moment");

    let answers = |library: &Library| -> Vec<_> {
        search(
            library,
            "preservation risks of fonts that are not embedded",
            SearchMode::Hybrid,
        )
        .hits
        .into_iter()
        .map(|h| (h.document_name, h.page, h.text))
        .collect()
    };
    for to in made {
        let copy = Library::open(on_disk(&to)).unwrap();
        let ready: Vec<_> = copy
            .documents(None, true)
            .unwrap()
            .into_iter()
            .filter(|d| d.status == DocumentStatus::Ready)
            .collect();
        assert!(!ready.is_empty(), "{}", to.display());
        for doc in ready {
            let dir = to.join("indexes").join(doc.id.to_string());
            let manifest = rt.block_on(lectern::index::verify(&dir)).unwrap();
            assert_eq!(
                (Some(manifest.chunk_count), manifest.embedder),
                (doc.chunk_count, doc.embedded_with),
                "{}: {}",
                to.display(),
                doc.file_name
            );
        }
        index_all(&copy);
        assert_eq!(outcomes(&copy), outcomes(&library), "{}", to.display());
        assert_eq!(answers(&copy), answers(&library), "{}", to.display());
    }
}
