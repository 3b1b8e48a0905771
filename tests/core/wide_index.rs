//! The library's wide index (`src/index/wide/`), which searches of many documents go
//! through: it gives the answers that opening every document's index gives, it is what answers
//! (the documents' indexes stay closed), and it follows a document that is moved, indexed again
//! and deleted. A library in a database keeps none (its searches are the database's).

use std::path::Path;

use lectern::catalog::Scope;
use lectern::search::{SearchMode, SearchRequest};
use lectern::{DocumentId, Library};

use crate::common::{config, index_all, index_small_corpus, runtime, SMALL_CORPUS};

/// The library in `home`, whose searches of `from` documents or more go through its wide index.
fn open(home: &Path, from: usize) -> Library {
    let mut config = config(home);
    config.wide_index_from = from;
    Library::open(config).unwrap()
}

fn in_database() -> bool {
    let yes = std::env::var_os("LECTERN_TEST_LIBRARY_IN_DATABASE").is_some();
    if yes {
        eprintln!("skipped: a library in a database keeps no wide index");
    }
    yes
}

/// The documents and chunks of the best `k` hits for `query` in `scope`.
fn hits(library: &Library, query: &str, mode: SearchMode, scope: &Scope, k: usize) -> Vec<(DocumentId, String)> {
    let request = SearchRequest {
        query: query.into(),
        scope: scope.clone(),
        k,
        mode,
        second_stage: false,
    };
    let found = runtime().block_on(library.search(&request)).unwrap();
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    found.hits.into_iter().map(|h| (h.document, h.chunk_id)).collect()
}

const QUESTIONS: [&str; 5] = [
    "lorem ipsum dolor sit amet",
    "columns of text in a LaTeX document",
    "what does the writer document say",
    "page two",
    "consectetur adipiscing elit",
];

#[test]
fn the_wide_index_answers_as_opening_every_document_does() {
    if in_database() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let library = open(home.path(), 1);
    index_small_corpus(&library);
    // The indexer kept it at the end of its run.
    assert_eq!(library.keep_wide_index().unwrap().total, SMALL_CORPUS.len());
    let every = open(home.path(), usize::MAX);
    let scope = Scope::default();
    for question in QUESTIONS {
        for mode in [SearchMode::Hybrid, SearchMode::Vector, SearchMode::Keyword] {
            let through = hits(&library, question, mode, &scope, 8);
            assert!(!through.is_empty(), "{question} ({mode:?})");
            assert_eq!(
                through,
                hits(&every, question, mode, &scope, 8),
                "{question} ({mode:?})"
            );
        }
    }
    // Through the wide index a question opens only the document whose passage it shows;
    // searched one by one, every document is opened.
    let fresh = open(home.path(), 1);
    hits(&fresh, QUESTIONS[0], SearchMode::Vector, &scope, 1);
    assert_eq!(fresh.search_cache().usage().0, 1);
    let each = open(home.path(), usize::MAX);
    hits(&each, QUESTIONS[0], SearchMode::Vector, &scope, 1);
    assert_eq!(each.search_cache().usage().0, SMALL_CORPUS.len());
}

#[test]
fn a_document_moved_indexed_again_and_deleted_is_followed_by_the_wide_index() {
    if in_database() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let library = open(home.path(), 1);
    let corpus = index_small_corpus(&library);
    let elsewhere = library.create_folder("Elsewhere").unwrap().id;
    let lorem = library
        .documents(Some("Corpus"), false)
        .unwrap()
        .into_iter()
        .find(|d| d.file_name == SMALL_CORPUS[0])
        .unwrap()
        .id;
    let in_folder = |folder| Scope {
        folders: vec![folder],
        ..Scope::default()
    };
    let of = |found: Vec<(DocumentId, String)>| found.into_iter().map(|(d, _)| d).collect::<Vec<_>>();
    let question = QUESTIONS[0];

    // Moved: one catalog row; the wide index has nothing to do and finds it in its new folder.
    library.move_document(lorem, "Elsewhere").unwrap();
    let kept = library.keep_wide_index().unwrap();
    assert_eq!((kept.covered, kept.total), (0, SMALL_CORPUS.len()));
    for mode in [SearchMode::Hybrid, SearchMode::Vector, SearchMode::Keyword] {
        let there = of(hits(&library, question, mode, &in_folder(elsewhere), 5));
        assert!(!there.is_empty() && there.iter().all(|d| *d == lorem), "{mode:?}");
        assert!(!of(hits(&library, question, mode, &in_folder(corpus), 5)).contains(&lorem));
    }

    // Indexed again: uncovered while its index changes, covered again by the indexer's keeper.
    library.reindex(lorem).unwrap();
    index_all(&library);
    let kept = library.keep_wide_index().unwrap();
    assert_eq!(
        (kept.covered, kept.total),
        (0, SMALL_CORPUS.len()),
        "the indexer covered it"
    );
    assert_eq!(
        of(hits(&library, question, SearchMode::Keyword, &in_folder(elsewhere), 5))[0],
        lorem
    );

    // Deleted: gone from the wide index too.
    library.delete_document(lorem).unwrap();
    let kept = library.keep_wide_index().unwrap();
    assert_eq!(kept.total, SMALL_CORPUS.len() - 1);
    for mode in [SearchMode::Hybrid, SearchMode::Vector, SearchMode::Keyword] {
        assert!(!of(hits(&library, question, mode, &Scope::default(), 8)).contains(&lorem));
    }
}
