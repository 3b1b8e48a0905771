//! The index store contract (`lectern::index::IndexStore`), run against every store there is:
//! the local one (an index per document on disk) and PostgreSQL with pgvector. Documents are
//! published through the store, deleted, described by their manifest; keyword lists are scored
//! by BM25 with the statistics of the whole scope, vector lists by exact cosine over the
//! documents the question's model embedded only, both best first with the chunk id breaking
//! ties; passages are read back; vectors of another size are a clear error. The local store runs
//! twice: searching each document's index, and through its wide index (kept after each change,
//! as the indexer keeps it).

use futures::future::BoxFuture;
use lectern::catalog::{ChunkId, DocumentId, FolderId, PdfMetadata, ScopedDocument};
use lectern::chunk::{Chunk, ChunkerSettings};
use lectern::index::{
    block, DocumentIndex, Found, IndexDirs, IndexError, IndexStore, LocalStore, Manifest, PgStore, Publication,
    ScopeSearch, Wanted,
};
use lectern_synthetic::{publish, Provenance};
use tempfile::TempDir;

use crate::common::{on_database, runtime, test_database};

const DIM: usize = 4;
const MODEL: &str = "test-model/1";

/// A store under test, with whatever it needs kept alive beside it.
struct UnderTest {
    name: &'static str,
    store: Box<dyn IndexStore>,
    _home: Option<TempDir>,
}

impl UnderTest {
    fn store(&self) -> &dyn IndexStore {
        &*self.store
    }

    /// Publishes `texts` (one passage a page) with `vectors` made by `embedder`.
    fn publish(&self, id: DocumentId, texts: &[&str], vectors: &[Vec<f32>], embedder: &str) -> Manifest {
        let meta = PdfMetadata {
            page_count: texts.len() as u64,
            ..PdfMetadata::default()
        };
        let provenance = Provenance {
            content_hash: &format!("{:064x}", id.0.as_u128()),
            embedder,
            chunker: ChunkerSettings::default(),
            metadata: &meta,
        };
        let dimension = vectors.first().map_or(DIM, Vec::len);
        runtime()
            .block_on(publish(
                self.store(),
                id,
                &chunks(id, texts),
                vectors,
                dimension,
                &provenance,
            ))
            .unwrap()
    }
}

/// The local store with its wide index answering for every scope, brought up to date after
/// each publication and deletion as the indexer does after each step.
struct ThroughWideIndex(LocalStore);

impl IndexStore for ThroughWideIndex {
    fn publish<'a>(&'a self, publication: Publication<'a>) -> BoxFuture<'a, Result<(), IndexError>> {
        Box::pin(async move {
            self.0.publish(publication).await?;
            self.0.keep_wide_index().map(|_| ())
        })
    }

    fn delete(&self, id: DocumentId) -> BoxFuture<'_, Result<(), IndexError>> {
        Box::pin(async move {
            self.0.delete(id).await?;
            self.0.keep_wide_index().map(|_| ())
        })
    }

    fn published(&self, id: DocumentId) -> BoxFuture<'_, Result<Option<Manifest>, IndexError>> {
        self.0.published(id)
    }

    fn read_back(&self, id: DocumentId) -> BoxFuture<'_, Result<Option<DocumentIndex>, IndexError>> {
        self.0.read_back(id)
    }

    fn open<'s>(
        &'s self,
        docs: &[ScopedDocument],
        wanted: &Wanted<'_>,
    ) -> Result<Box<dyn ScopeSearch + 's>, IndexError> {
        self.0.open(docs, wanted)
    }

    fn warm(&self, docs: &[ScopedDocument]) -> usize {
        self.0.warm(docs)
    }

    fn forget(&self, id: DocumentId) {
        self.0.forget(id)
    }
}

/// Every store there is: the local one in a temporary directory (searching each document, and
/// through its wide index), PostgreSQL in a database of its own on the test run's server.
fn stores() -> Vec<UnderTest> {
    let local_store = |home: &TempDir| {
        let root = home.path().join("indexes");
        std::fs::create_dir_all(&root).unwrap();
        LocalStore::new(IndexDirs::new(root), 2).unwrap()
    };
    let home = TempDir::new().unwrap();
    let local = UnderTest {
        name: "local",
        store: Box::new(local_store(&home).with_wide_index_from(usize::MAX)),
        _home: Some(home),
    };
    let home = TempDir::new().unwrap();
    let wide = UnderTest {
        name: "local, wide index",
        store: Box::new(ThroughWideIndex(local_store(&home).with_wide_index_from(1))),
        _home: Some(home),
    };
    let postgres = UnderTest {
        name: "postgres",
        store: Box::new(PgStore::connect(&test_database()).unwrap()),
        _home: None,
    };
    vec![local, wide, postgres]
}

/// One passage a page, with ids that sort in page order.
fn chunks(id: DocumentId, texts: &[&str]) -> Vec<Chunk> {
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| Chunk {
            id: ChunkId(format!("{:020x}{:04}", id.0.as_u128() >> 48, i)),
            page: i as u32 + 1,
            char_start: 0,
            char_end: text.chars().count() as u32,
            text: text.to_string(),
            context: String::new(),
        })
        .collect()
}

fn scoped(id: DocumentId, name: &str) -> ScopedDocument {
    ScopedDocument {
        id,
        folder: FolderId(1),
        folder_path: "test".into(),
        file_name: name.into(),
        title: None,
        index_generation: 1,
        page_count: 4,
    }
}

fn unit(v: &[f32]) -> Vec<f32> {
    let mut v = v.to_vec();
    block::normalize(&mut v);
    v
}

fn wanted<'a>(terms: &'a [String], vector: Option<&'a [f32]>) -> Wanted<'a> {
    Wanted {
        terms,
        vector: vector.map(|v| (v, MODEL)),
        depth: 20,
    }
}

/// BM25 as the contract defines it (k1 = 1.2, b = 0.75, IDF ln(1 + (N - df + 0.5) / (df + 0.5))):
/// `passages` is the whole scope, each as its words.
fn bm25(terms: &[&str], passage: &[&str], passages: &[Vec<&str>]) -> f32 {
    let n = passages.len() as f32;
    let average = passages.iter().map(Vec::len).sum::<usize>() as f32 / n;
    terms
        .iter()
        .map(|term| {
            let df = passages.iter().filter(|p| p.contains(term)).count() as f32;
            let tf = passage.iter().filter(|w| *w == term).count() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * passage.len() as f32 / average))
        })
        .sum()
}

#[test]
fn keyword_scores_are_bm25_over_the_whole_scope_whichever_document_holds_the_passage() {
    for under in stores() {
        let (a, b) = (DocumentId::new_random(), DocumentId::new_random());
        let texts_a = ["zeppelin hangar roof", "river barge cargo", "zeppelin zeppelin mast"];
        let texts_b = ["zeppelin hangar roof", "cargo manifest list", "quiet meadow"];
        under.publish(a, &texts_a, &vec![unit(&[1.0, 0.0, 0.0, 0.0]); 3], MODEL);
        under.publish(b, &texts_b, &vec![unit(&[0.0, 1.0, 0.0, 0.0]); 3], MODEL);
        let store = under.store();
        let terms = store.terms("Zeppelin hangars");
        assert_eq!(
            terms,
            ["zeppelin", "hangar"],
            "{}: analysed as the passages are",
            under.name
        );

        let docs = [scoped(a, "a.pdf"), scoped(b, "b.pdf")];
        let mut scope = store.open(&docs, &wanted(&terms, None)).unwrap();
        let list = scope.keyword_list();
        assert!(scope.take_skipped().is_empty());
        let all: Vec<Vec<&str>> = texts_a.iter().chain(&texts_b).map(|t| t.split(' ').collect()).collect();
        let expected = |text: &str| bm25(&["zeppelin", "hangar"], &text.split(' ').collect::<Vec<_>>(), &all);
        let got: Vec<(usize, u32, f32)> = list.iter().map(|f| (f.doc, f.located.page, f.score)).collect();
        assert_eq!(got.len(), 3, "{}: {got:?}", under.name);
        for f in &list {
            let text = [&texts_a, &texts_b][f.doc][f.located.page as usize - 1];
            assert!(
                (f.score - expected(text)).abs() < 1e-4,
                "{}: {text:?} scored {} against {}",
                under.name,
                f.score,
                expected(text)
            );
        }
        // The passage both documents hold scores the same in each; ties go by chunk id.
        let same: Vec<&Found> = list.iter().filter(|f| f.located.page == 1).collect();
        assert_eq!(same.len(), 2);
        assert_eq!(same[0].score, same[1].score);
        assert!(same[0].located.chunk_id < same[1].located.chunk_id);
        assert!(list.windows(2).all(|w| w[0].score >= w[1].score));
        let bound = scope.score_bound();
        let most = ["zeppelin", "hangar"]
            .iter()
            .map(|t| {
                let df = all.iter().filter(|p| p.contains(t)).count() as f32;
                (1.0 + (6.0 - df + 0.5) / (df + 0.5)).ln() * 2.2
            })
            .sum::<f32>();
        assert!(
            (bound - most).abs() < 1e-4,
            "{}: bound {bound} against {most}",
            under.name
        );

        // The same passage in a scope of its document alone scores by that scope's statistics;
        // through the wide index, by the library's (which a scope of many documents is most of).
        let alone = store.open(&docs[..1], &wanted(&terms, None)).unwrap().keyword_list();
        let own: Vec<Vec<&str>> = texts_a.iter().map(|t| t.split(' ').collect()).collect();
        let first = alone.iter().find(|f| f.located.page == 1).unwrap();
        let by_scope = match under.name {
            "local, wide index" => expected(texts_a[0]),
            _ => bm25(&["zeppelin", "hangar"], &["zeppelin", "hangar", "roof"], &own),
        };
        assert!((first.score - by_scope).abs() < 1e-4, "{}", under.name);
    }
}

#[test]
fn vector_lists_are_exact_cosine_over_the_questions_model_only_ties_by_chunk_id() {
    for under in stores() {
        let (a, b, other) = (
            DocumentId::new_random(),
            DocumentId::new_random(),
            DocumentId::new_random(),
        );
        let near = unit(&[1.0, 0.1, 0.0, 0.0]);
        under.publish(
            a,
            &["first", "second", "third"],
            &[unit(&[1.0, 0.0, 0.0, 0.0]), near.clone(), unit(&[0.0, 0.0, 1.0, 0.0])],
            MODEL,
        );
        under.publish(
            b,
            &["fourth", "fifth"],
            &[near.clone(), unit(&[-1.0, 0.0, 0.0, 0.0])],
            MODEL,
        );
        // Vectors another model made are never compared with the question's.
        under.publish(other, &["sixth"], &[unit(&[1.0, 0.0, 0.0, 0.0])], "another-model/2");
        let docs = [scoped(a, "a.pdf"), scoped(b, "b.pdf"), scoped(other, "other.pdf")];
        let question = unit(&[1.0, 0.1, 0.0, 0.0]);
        let mut scope = under.store().open(&docs, &wanted(&[], Some(&question))).unwrap();
        let list = scope.vector_list();
        assert!(scope.take_skipped().is_empty());
        assert_eq!(
            scope.keyword_only().iter().copied().collect::<Vec<_>>(),
            [2],
            "{}",
            under.name
        );
        let got: Vec<(usize, u32)> = list.iter().map(|f| (f.doc, f.located.page)).collect();
        // Two passages at cosine 1 (one in each document): the lower chunk id first.
        let tie_first = if chunks(a, &["x", "y"])[1].id.0 < chunks(b, &["x"])[0].id.0 {
            [(0, 2), (1, 1)]
        } else {
            [(1, 1), (0, 2)]
        };
        assert_eq!(got[..2], tie_first, "{}", under.name);
        assert_eq!(got[2..], [(0, 1), (0, 3), (1, 2)], "{}", under.name);
        for f in &list {
            let v = if f.doc == 0 {
                [unit(&[1.0, 0.0, 0.0, 0.0]), near.clone(), unit(&[0.0, 0.0, 1.0, 0.0])][f.located.page as usize - 1]
                    .clone()
            } else {
                [near.clone(), unit(&[-1.0, 0.0, 0.0, 0.0])][f.located.page as usize - 1].clone()
            };
            let cosine: f32 = v.iter().zip(&question).map(|(x, y)| x * y).sum();
            assert!(
                (f.score - cosine).abs() < 1e-5,
                "{}: {} against {cosine}",
                under.name,
                f.score
            );
        }
        // A passage a keyword list found gets its cosine on demand; one of another model's none.
        let third = list.iter().find(|f| f.doc == 0 && f.located.page == 3).unwrap();
        assert_eq!(
            scope.vector_scores(0, std::slice::from_ref(&third.located)),
            [Some(third.score)]
        );
        let sixth = under
            .store()
            .open(&docs, &wanted(&under.store().terms("sixth"), Some(&question)))
            .unwrap()
            .keyword_list();
        assert_eq!(sixth.len(), 1);
        assert_eq!(scope.vector_scores(2, std::slice::from_ref(&sixth[0].located)), [None]);
    }
}

#[test]
fn passages_are_read_back_by_their_key_or_their_chunk_id() {
    for under in stores() {
        let id = DocumentId::new_random();
        under.publish(
            id,
            &["alpha beta", "gamma delta"],
            &vec![unit(&[1.0, 0.0, 0.0, 0.0]); 2],
            MODEL,
        );
        let docs = [scoped(id, "a.pdf")];
        let terms = under.store().terms("gamma");
        let mut scope = under.store().open(&docs, &wanted(&terms, None)).unwrap();
        let hit = scope.keyword_list().remove(0);
        let by_key = scope.passage(0, hit.key, &hit.located.chunk_id).unwrap();
        let by_id = scope.passage(0, None, &hit.located.chunk_id).unwrap();
        assert_eq!(by_key, ("gamma delta".to_string(), String::new()), "{}", under.name);
        assert_eq!(by_id, by_key, "{}", under.name);
        let missing = scope.passage(0, None, "no-such-chunk").unwrap_err();
        assert!(missing.is_damage(), "{}: {missing}", under.name);
        assert_eq!(under.store().warm(&docs), 1);
    }
}

#[test]
fn a_pages_passages_and_the_pages_printing_a_number_are_found_by_page() {
    for under in stores() {
        let id = DocumentId::new_random();
        under.publish(
            id,
            &[
                "Acme annual report",
                "Contents\nOverview 1\nResults 2",
                "Overview\nRevenue grew 17 percent\nAcme | Annual report    1",
                "Results\nIncome rose\n2",
            ],
            &[
                unit(&[1.0, 0.0, 0.0, 0.0]),
                unit(&[0.0, 1.0, 0.0, 0.0]),
                unit(&[0.0, 0.0, 1.0, 0.0]),
                unit(&[0.0, 0.0, 0.0, 1.0]),
            ],
            MODEL,
        );
        let docs = [scoped(id, "a.pdf")];
        let question = unit(&[0.0, 0.0, 0.6, 0.8]);
        let scope = under.store().open(&docs, &wanted(&[], Some(&question))).unwrap();
        let third = scope.page_passages(0, 3).unwrap();
        assert_eq!(third.len(), 1, "{}", under.name);
        assert_eq!(third[0].located.page, 3, "{}", under.name);
        assert!((third[0].score - 0.6).abs() < 1e-3, "{}: {:?}", under.name, third[0]);
        let text = scope.passage(0, third[0].key, &third[0].located.chunk_id).unwrap().0;
        assert!(text.starts_with("Overview"), "{}: {text}", under.name);
        assert!(scope.page_passages(0, 9).unwrap().is_empty(), "{}", under.name);
        // Page 3 prints 1 in its footer and page 4 prints 2. The contents' last line ends with 2
        // too (the search tells them apart by their neighbours); the 17 inside a line is no page
        // number.
        assert_eq!(scope.numbered_pages(0, 1).unwrap(), [3], "{}", under.name);
        assert_eq!(scope.numbered_pages(0, 2).unwrap(), [2, 4], "{}", under.name);
        assert!(scope.numbered_pages(0, 17).unwrap().is_empty(), "{}", under.name);
    }
}

#[test]
fn vectors_of_another_size_from_the_same_model_are_a_clear_error_not_a_silent_fallback() {
    for under in stores() {
        let (good, odd) = (DocumentId::new_random(), DocumentId::new_random());
        under.publish(good, &["kept"], &[unit(&[1.0, 0.0, 0.0, 0.0])], MODEL);
        under.publish(odd, &["odd"], &[unit(&[1.0, 0.0, 0.0, 0.0, 0.0, 0.0])], MODEL);
        let docs = [scoped(good, "good.pdf"), scoped(odd, "odd.pdf")];
        let question = unit(&[1.0, 0.0, 0.0, 0.0]);
        let mut scope = under.store().open(&docs, &wanted(&[], Some(&question))).unwrap();
        let list = scope.vector_list();
        assert_eq!(list.iter().map(|f| f.doc).collect::<Vec<_>>(), [0], "{}", under.name);
        let skipped = scope.take_skipped();
        assert_eq!(skipped.len(), 1, "{}", under.name);
        let (pos, error) = &skipped[0];
        assert_eq!(*pos, 1);
        assert!(
            matches!(
                error,
                IndexError::Dimension {
                    index: 6,
                    question: 4,
                    ..
                }
            ),
            "{}: {error}",
            under.name
        );
        assert!(error.to_string().contains("index the document again"), "{error}");
    }
}

#[test]
fn publishing_again_replaces_a_document_whole_and_deleting_is_idempotent() {
    for under in stores() {
        let id = DocumentId::new_random();
        let store = under.store();
        assert_eq!(runtime().block_on(store.published(id)).unwrap(), None, "{}", under.name);
        let first = under.publish(
            id,
            &["orchard apples", "orchard pears"],
            &vec![unit(&[1.0, 0.0, 0.0, 0.0]); 2],
            MODEL,
        );
        let read = runtime().block_on(store.published(id)).unwrap();
        assert_eq!(
            read.as_ref().map(|m| &m.content_hash),
            Some(&first.content_hash),
            "{}",
            under.name
        );
        assert_eq!(read.map(|m| m.chunk_count), Some(2));

        // Published again with other passages: the old ones are gone, none is mixed in.
        under.publish(id, &["harbour cranes"], &[unit(&[0.0, 1.0, 0.0, 0.0])], MODEL);
        let docs = [scoped(id, "a.pdf")];
        let terms = store.terms("orchard harbour");
        let question = unit(&[1.0, 0.0, 0.0, 0.0]);
        let mut scope = store.open(&docs, &wanted(&terms, Some(&question))).unwrap();
        let words: Vec<String> = scope
            .keyword_list()
            .iter()
            .map(|f| scope.passage(f.doc, f.key, &f.located.chunk_id).unwrap().0)
            .collect();
        assert_eq!(words, ["harbour cranes"], "{}", under.name);
        assert_eq!(scope.vector_list().len(), 1, "{}", under.name);
        assert!(scope.take_skipped().is_empty());

        runtime().block_on(store.delete(id)).unwrap();
        runtime().block_on(store.delete(id)).unwrap();
        assert_eq!(runtime().block_on(store.published(id)).unwrap(), None, "{}", under.name);
        let mut scope = store.open(&docs, &wanted(&terms, Some(&question))).unwrap();
        assert!(scope.keyword_list().is_empty() && scope.vector_list().is_empty());
        let skipped = scope.take_skipped();
        assert_eq!(skipped.len(), 1, "{}", under.name);
        assert!(skipped[0].1.is_damage(), "{}: {}", under.name, skipped[0].1);
    }
}

#[test]
fn a_document_without_vectors_is_searched_by_keyword_only_and_a_bad_publication_publishes_nothing() {
    for under in stores() {
        let (plain, embedded) = (DocumentId::new_random(), DocumentId::new_random());
        let store = under.store();
        let chunks_of_plain = chunks(plain, &["lighthouse keeper"]);
        let mut manifest = under.publish(embedded, &["lighthouse lamp"], &[unit(&[1.0, 0.0, 0.0, 0.0])], MODEL);
        manifest.embedder = None;
        manifest.dimension = None;
        runtime()
            .block_on(store.publish(Publication {
                id: plain,
                manifest: &manifest,
                chunks: &chunks_of_plain,
                vectors: &[],
                term: None,
            }))
            .unwrap();
        let docs = [scoped(plain, "plain.pdf"), scoped(embedded, "embedded.pdf")];
        let terms = store.terms("lighthouse");
        let question = unit(&[1.0, 0.0, 0.0, 0.0]);
        let mut scope = store.open(&docs, &wanted(&terms, Some(&question))).unwrap();
        assert_eq!(
            scope.keyword_only().iter().copied().collect::<Vec<_>>(),
            [0],
            "{}",
            under.name
        );
        assert_eq!(scope.keyword_list().len(), 2, "{}", under.name);
        let vector: Vec<usize> = scope.vector_list().iter().map(|f| f.doc).collect();
        assert_eq!(vector, [1], "{}", under.name);

        // Vectors that do not match the passages: refused, and the document is as it was.
        let other = DocumentId::new_random();
        let two = chunks(other, &["one", "two"]);
        let mut two_manifest = manifest.clone();
        two_manifest.chunk_count = 2;
        two_manifest.embedder = Some(MODEL.into());
        two_manifest.dimension = Some(DIM);
        let refused = runtime()
            .block_on(store.publish(Publication {
                id: other,
                manifest: &two_manifest,
                chunks: &two,
                vectors: &[unit(&[1.0, 0.0, 0.0, 0.0])],
                term: None,
            }))
            .unwrap_err();
        assert!(
            matches!(refused, IndexError::Publication { .. }),
            "{}: {refused}",
            under.name
        );
        assert_eq!(
            runtime().block_on(store.published(other)).unwrap(),
            None,
            "{}",
            under.name
        );
    }
}

#[test]
fn an_index_read_back_is_what_was_published_and_searches_the_same_in_another_store() {
    let stores = stores();
    let id = DocumentId::new_random();
    let mut given = chunks(
        id,
        &["net sales rose in the third quarter", "cash used in investing", "notes"],
    );
    for (chunk, context) in given.iter_mut().zip(["Report / Results", "Report / Cash flows", ""]) {
        chunk.context = context.to_string();
    }
    let vectors = vec![
        unit(&[1.0, 0.2, 0.0, 0.0]),
        unit(&[0.0, 1.0, 0.3, 0.0]),
        unit(&[0.0, 0.0, 1.0, 1.0]),
    ];
    let manifest = stores[0].publish(id, &["x", "y", "z"], &vectors, MODEL);
    runtime()
        .block_on(stores[0].store().publish(Publication {
            id,
            manifest: &manifest,
            chunks: &given,
            vectors: &vectors,
            term: None,
        }))
        .unwrap();
    let read = runtime().block_on(stores[0].store().read_back(id)).unwrap().unwrap();
    assert_eq!(read.chunks, given);
    assert_eq!(read.manifest, manifest);
    for (a, b) in read.vectors.iter().zip(&vectors) {
        assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6));
    }
    // Copied into each other store, and back: the same passages, and the same lists.
    let docs = [scoped(id, "report.pdf")];
    let terms = stores[0].store().terms("cash flows in the quarter");
    let question = unit(&[0.5, 1.0, 0.0, 0.1]);
    let lists = |under: &UnderTest| {
        let mut scope = under.store().open(&docs, &wanted(&terms, Some(&question))).unwrap();
        let keyword = scope.keyword_list();
        let vector = scope.vector_list();
        assert!(scope.take_skipped().is_empty(), "{}", under.name);
        (keyword, vector)
    };
    let (keyword, vector) = lists(&stores[0]);
    assert_eq!(keyword.len(), 2);
    for under in &stores[1..] {
        runtime().block_on(under.store().publish(read.publication(id))).unwrap();
        let again = runtime().block_on(under.store().read_back(id)).unwrap().unwrap();
        assert_eq!(again.chunks, read.chunks, "{}", under.name);
        assert_eq!(again.manifest, read.manifest, "{}", under.name);
        let (k, v) = lists(under);
        for (ours, theirs) in [(&keyword, &k), (&vector, &v)] {
            let place = |l: &[Found]| l.iter().map(|f| f.located.clone()).collect::<Vec<_>>();
            assert_eq!(place(ours), place(theirs), "{}", under.name);
            for (a, b) in ours.iter().zip(theirs.iter()) {
                assert!(
                    (a.score - b.score).abs() < 1e-4,
                    "{}: {} against {}",
                    under.name,
                    a.score,
                    b.score
                );
            }
        }
    }
}

#[test]
fn postgres_reads_a_large_scopes_vector_list_from_its_hnsw_index_and_a_thin_scope_whole() {
    // Every scope counts as large here: the index answers, or, where it holds too few of the
    // scope's passages, every passage is read.
    let exact = PgStore::connect(&test_database()).unwrap();
    let database = test_database();
    let indexed = PgStore::connect(&database).unwrap().with_exact_limit(0);
    let ids: Vec<DocumentId> = (0..3).map(|_| DocumentId::new_random()).collect();
    let texts = ["one", "two", "three", "four", "five", "six", "seven", "eight"];
    for (n, id) in ids.iter().enumerate() {
        let vectors: Vec<Vec<f32>> = (0..texts.len())
            .map(|i| unit(&[1.0, (i + n) as f32 * 0.3, (i * n) as f32 * 0.1, 0.5]))
            .collect();
        for store in [&exact as &dyn IndexStore, &indexed] {
            let chunks = chunks(*id, &texts);
            let meta = PdfMetadata::default();
            let provenance = Provenance {
                content_hash: "0",
                embedder: MODEL,
                chunker: ChunkerSettings::default(),
                metadata: &meta,
            };
            runtime()
                .block_on(publish(store, *id, &chunks, &vectors, DIM, &provenance))
                .unwrap();
        }
    }
    let question = unit(&[1.0, 0.4, 0.2, 0.5]);
    let wanted = |depth| Wanted {
        terms: &[],
        vector: Some((&question, MODEL)),
        depth,
    };
    let all: Vec<ScopedDocument> = ids.iter().map(|id| scoped(*id, "d.pdf")).collect();
    for (docs, depth) in [(&all[..], 4), (&all[..1], 3)] {
        let list = |store: &PgStore| {
            let mut scope = store.open(docs, &wanted(depth)).unwrap();
            assert!(scope.take_skipped().is_empty());
            scope.vector_list()
        };
        let (by_index, by_reading) = (list(&indexed), list(&exact));
        assert_eq!(by_index.len(), depth);
        assert_eq!(by_index, by_reading, "{} documents", docs.len());
    }
    // The index is there, made by the first document that brought vectors of its size.
    on_database(&database, async |client| {
        let found = client
            .query_one(
                "select count(*) from pg_indexes where indexname = 'passages_hnsw_4'",
                &[],
            )
            .await
            .unwrap();
        assert_eq!(found.get::<_, i64>(0), 1);
    });
}

#[test]
fn a_question_of_rare_and_common_words_scores_every_passage_it_lists_by_bm25_exactly() {
    for under in stores() {
        let ids = [DocumentId::new_random(), DocumentId::new_random()];
        let mut all: Vec<Vec<String>> = Vec::new();
        for (d, id) in ids.iter().enumerate() {
            let texts: Vec<String> = (0..250)
                .map(|i| {
                    let n = d * 250 + i;
                    let mut words = vec!["common".to_string(), format!("w{}", i % 7)];
                    words.extend((0..i % 5).map(|_| "pad".to_string()));
                    if n % 20 == 0 {
                        words.push("rare".into());
                    }
                    if n % 40 == 0 {
                        words.push("common".into());
                    }
                    words.join(" ")
                })
                .collect();
            all.extend(
                texts
                    .iter()
                    .map(|t| t.split(' ').map(str::to_string).collect::<Vec<_>>()),
            );
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            under.publish(*id, &refs, &vec![unit(&[1.0, 0.0, 0.0, 0.0]); refs.len()], MODEL);
        }
        let docs = [scoped(ids[0], "a.pdf"), scoped(ids[1], "b.pdf")];
        let terms = under.store().terms("rare common");
        let wanted = Wanted {
            terms: &terms,
            vector: None,
            // Few enough that the passages holding the rare word fill the list (20 candidates
            // are scored for 2 places): the database adds the common word's share to those only.
            depth: 2,
        };
        let list = under.store().open(&docs, &wanted).unwrap().keyword_list();
        assert_eq!(list.len(), 2, "{}", under.name);
        let words: Vec<Vec<&str>> = all.iter().map(|p| p.iter().map(String::as_str).collect()).collect();
        let mut expected: Vec<f32> = words.iter().map(|p| bm25(&["rare", "common"], p, &words)).collect();
        expected.sort_by(|a, b| b.total_cmp(a));
        for (found, want) in list.iter().zip(&expected) {
            let passage = &words[found.doc * 250 + found.located.page as usize - 1];
            let score = bm25(&["rare", "common"], passage, &words);
            assert!(
                (found.score - score).abs() < 1e-4,
                "{}: {} against {score}",
                under.name,
                found.score
            );
            assert!(
                (found.score - want).abs() < 1e-4,
                "{}: {} where the best scores {want}",
                under.name,
                found.score
            );
        }
    }
}
