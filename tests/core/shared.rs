//! A library whose indexes are shared in PostgreSQL (`LECTERN_DATABASE_URL`): the indexer
//! publishes each document's index there as it is read and embedded, search reads it from there
//! and finds what the indexes on disk find, a deleted document leaves it, and a database that
//! lacks some indexes (new, or behind) is brought up to date when the indexer starts.

use lectern::index::IndexStore;
use lectern::search::{SearchMode, SearchResults};
use lectern::{Library, LibraryConfig};

use crate::common::{config, index_all, index_small_corpus, runtime, search, test_database};

fn open(home: &std::path::Path, database: Option<&str>) -> Library {
    let config = LibraryConfig {
        database_url: database.map(str::to_string),
        ..config(home)
    };
    Library::open(config).unwrap()
}

/// Each hit's document, page, passage and score.
fn hits(results: &SearchResults) -> Vec<(String, u32, String, f32)> {
    results
        .hits
        .iter()
        .map(|h| (h.document_name.clone(), h.page, h.chunk_id.clone(), h.score))
        .collect()
}

/// Whether two searches found the same passages in the same order, scored alike.
fn same(a: &SearchResults, b: &SearchResults) -> bool {
    let (a, b) = (hits(a), hits(b));
    a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| (&x.0, x.1, &x.2) == (&y.0, y.1, &y.2) && (x.3 - y.3).abs() < 1e-3)
}

const QUESTIONS: [&str; 3] = [
    "Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?",
    "which country has by far the largest area, and what is its capital?",
    "LibreOffice Writer document",
];

#[test]
fn a_library_shared_in_postgres_searches_as_it_does_on_disk_and_keeps_the_database_in_step() {
    let home = tempfile::tempdir().unwrap();
    let database = test_database();
    let shared = open(home.path(), Some(&database));
    index_small_corpus(&shared);
    let documents = shared.documents(None, true).unwrap();
    assert_eq!(documents.len(), 3);

    let on_disk = open(home.path(), None);
    for mode in SearchMode::ALL {
        for question in QUESTIONS {
            let there = search(&shared, question, mode);
            let here = search(&on_disk, question, mode);
            assert!(there.skipped.is_empty(), "{:#?}", there.skipped);
            assert!(!there.hits.is_empty(), "{mode:?}: {question}");
            assert!(
                same(&there, &here),
                "{mode:?}: {question}\n{:?}\n{:?}",
                hits(&there),
                hits(&here)
            );
            assert_eq!(there.keyword_only, 0);
        }
    }
    drop(on_disk);

    // A deleted document leaves the database too.
    let gone = &documents[0];
    shared.delete_document(gone.id).unwrap();
    let store = lectern::index::PgStore::connect(&database).unwrap();
    assert_eq!(runtime().block_on(store.published(gone.id)).unwrap(), None);
    assert!(runtime().block_on(store.published(documents[1].id)).unwrap().is_some());
    drop(shared);

    // The same library opened on an empty database: the indexer's start publishes every index.
    let fresh = test_database();
    let again = open(home.path(), Some(&fresh));
    let run = index_all(&again);
    assert_eq!(run.reconciled.shared, 2, "{run:?}");
    let store = lectern::index::PgStore::connect(&fresh).unwrap();
    for doc in &documents[1..] {
        let manifest = runtime().block_on(store.published(doc.id)).unwrap().unwrap();
        assert_eq!(manifest.content_hash, doc.content_hash);
        assert!(manifest.embedder.is_some());
    }
    let on_disk = open(home.path(), None);
    for question in QUESTIONS {
        let there = search(&again, question, SearchMode::Hybrid);
        assert!(
            same(&there, &search(&on_disk, question, SearchMode::Hybrid)),
            "{question}"
        );
        assert!(there.hits.iter().all(|h| h.document != gone.id));
    }
    // Nothing more to publish at the next start.
    assert_eq!(index_all(&again).reconciled.shared, 0);
}
