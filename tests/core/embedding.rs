//! Indexing in two steps: a document is searchable by keyword as soon as it is read and by
//! meaning once it is embedded; an embedder that fails leaves it searchable by keyword; a library
//! whose vectors another model made is embedded again in the background while it keeps answering.

use std::collections::HashSet;
use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use lectern::catalog::DEFAULT_FOLDER;
use lectern::index::verify;
use lectern::jobs::RunMode;
use lectern::model_server::ServerApi;
use lectern::search::SearchMode;
use lectern::{DocumentStatus, EmbedderConfig, Library};

use crate::common::{config, corpus_pdf, index_all, index_small_corpus, read_request, runtime, search};

/// Width of the word-hashing server's vectors.
const WIDTH: usize = 16;

/// An Ollama embedding server on loopback whose vectors count words hashed into [`WIDTH`] slots;
/// it answers 503 until `answering` is set.
fn word_server(answering: Arc<AtomicBool>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let (_, _, body) = read_request(&stream);
            let (status, reply) = if answering.load(Ordering::SeqCst) {
                let vectors: Vec<Vec<f32>> = body["input"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| word_vector(t.as_str().unwrap()))
                    .collect();
                (200, serde_json::json!({ "embeddings": vectors }).to_string())
            } else {
                (503, r#"{"error":"loading the model"}"#.to_string())
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    url
}

fn word_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; WIDTH];
    for word in text.split_whitespace() {
        let slot = word
            .bytes()
            .fold(7usize, |h, b| h.wrapping_mul(31).wrapping_add(usize::from(b)));
        v[slot % WIDTH] += 1.0;
    }
    v
}

/// Names in `indexes/` that are not a document's index (temporary, trashed, scratch).
fn leftovers(home: &Path) -> Vec<String> {
    std::fs::read_dir(home.join("indexes"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[test]
fn a_document_is_searchable_by_keyword_once_read_and_by_meaning_once_embedded() {
    let answering = Arc::new(AtomicBool::new(false));
    let home = tempfile::tempdir().unwrap();
    let mut config = config(home.path());
    config.embedder = EmbedderConfig::Http {
        api: ServerApi::Ollama,
        url: word_server(answering.clone()),
        model: "words".into(),
        api_key: None,
    };
    let library = Library::open(config).unwrap();
    let doc = library
        .add(&[corpus_pdf("text-pdflatex-4-pages.pdf")], DEFAULT_FOLDER)
        .unwrap()
        .added
        .remove(0);

    // The server does not answer: the document is read, published and searchable by keyword.
    let run = index_all(&library);
    assert_eq!((run.processed, run.embedded), (1, 0));
    let read = library.document(&doc.id.to_string()).unwrap();
    assert_eq!(read.status, DocumentStatus::Ready, "{:?}", read.reason);
    assert_eq!(read.embedded_with, None);
    assert_eq!(Some(read.embed_total), read.chunk_count, "it waits for its vectors");
    let dir = home.path().join("indexes").join(doc.id.to_string());
    let manifest = runtime().block_on(verify(&dir)).unwrap();
    assert_eq!(manifest.vectors(), None);
    assert!(!dir.join("vectors").exists());
    let found = search(&library, "blind text alphabet", SearchMode::Keyword);
    assert!(found.hits.iter().any(|h| h.document == doc.id), "{found:?}");

    // The server answers: the vectors are added and the document is searched by meaning too.
    answering.store(true, Ordering::SeqCst);
    let run = index_all(&library);
    assert_eq!((run.processed, run.embedded), (0, 1));
    let embedded = library.document(&doc.id.to_string()).unwrap();
    assert_eq!(embedded.embedded_with.as_deref(), Some("ollama:words"));
    assert_eq!((embedded.embed_done, embedded.embed_total), (0, 0));
    let manifest = runtime().block_on(verify(&dir)).unwrap();
    assert_eq!(manifest.vectors(), Some(("ollama:words", WIDTH)));
    assert_eq!(Some(manifest.chunk_count), embedded.chunk_count);
    let hybrid = search(&library, "blind text alphabet", SearchMode::Hybrid);
    assert_eq!(hybrid.keyword_only, 0);
    assert!(
        hybrid.hits.iter().all(|h| h.components.vector.is_some()),
        "{:?}",
        hybrid.hits
    );
    assert!(leftovers(home.path()).is_empty(), "{:?}", leftovers(home.path()));
}

#[test]
fn a_library_whose_vectors_another_model_made_is_embedded_again_while_it_answers() {
    let home = tempfile::tempdir().unwrap();
    let library = Library::open(config(home.path())).unwrap();
    index_small_corpus(&library);
    let docs = library.documents(None, false).unwrap();
    let current = library.embedder_id().unwrap();
    assert!(docs
        .iter()
        .all(|d| d.embedded_with.as_deref() == Some(current.as_str())));

    // Vectors of a model known by name only, as a Lectern before model identities recorded them.
    for doc in &docs {
        let path = home
            .path()
            .join("indexes")
            .join(doc.id.to_string())
            .join("manifest.json");
        let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        json["embedder"] = serde_json::json!("all-MiniLM-L6-v2");
        std::fs::write(&path, json.to_string()).unwrap();
    }
    let upgraded = Library::open(config(home.path())).unwrap();
    let question = "Lorem ipsum dolor sit amet";
    let before = search(&upgraded, question, SearchMode::Hybrid);
    assert_eq!(
        before.keyword_only,
        docs.len(),
        "no vectors of another model are compared"
    );
    assert!(!before.hits.is_empty());
    assert!(before.hits.iter().all(|h| h.components.vector.is_none()));

    // The indexer embeds them again; questions asked meanwhile are answered.
    let done = Arc::new(AtomicBool::new(false));
    let indexer = {
        let (library, done) = (upgraded.clone(), done.clone());
        std::thread::spawn(move || {
            let run = runtime().block_on(library.run_indexer(RunMode::UntilIdle)).unwrap();
            done.store(true, Ordering::SeqCst);
            run
        })
    };
    let mut asked = 0;
    while !done.load(Ordering::SeqCst) {
        let meanwhile = search(&upgraded, question, SearchMode::Hybrid);
        assert!(
            !meanwhile.hits.is_empty(),
            "a question went unanswered during re-embedding"
        );
        asked += 1;
    }
    let run = indexer.join().unwrap();
    assert_eq!((run.processed, run.embedded), (0, docs.len()));
    assert!(asked > 0);

    let after = search(&upgraded, question, SearchMode::Hybrid);
    assert_eq!(after.keyword_only, 0);
    assert!(after.hits.iter().all(|h| h.components.vector.is_some()));
    let ids: HashSet<_> = before.hits.iter().map(|h| h.document).collect();
    assert!(after.hits.iter().any(|h| ids.contains(&h.document)));
    for doc in upgraded.documents(None, false).unwrap() {
        assert_eq!(doc.embedded_with.as_deref(), Some(current.as_str()));
        let manifest = runtime()
            .block_on(verify(&home.path().join("indexes").join(doc.id.to_string())))
            .unwrap();
        assert_eq!(manifest.embedder.as_deref(), Some(current.as_str()));
    }
    assert!(leftovers(home.path()).is_empty(), "{:?}", leftovers(home.path()));
}
