//! A library in PostgreSQL (`LECTERN_DATABASE_URL`): its catalog, PDFs and indexes are the
//! database's. Search there finds what the indexes on disk find, a deleted document leaves it,
//! an index the database lacks is published again when the indexer starts; and processes with
//! homes of their own share the library: one adds, the other finds and opens; the indexer's role
//! passes to another when its holder dies; a file added twice is one document; secrets are
//! sealed with the library's key; a library moves into a database and back whole; two
//! servers on one database answer every request of eight clients while one of them dies; a server
//! that restarts during an import and a question loses nothing; and TLS to the server is verified.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lectern::catalog::DEFAULT_FOLDER;
use lectern::index::IndexStore;
use lectern::search::{SearchMode, SearchResults};
use lectern::{DocumentStatus, Library, LibraryConfig};

use crate::common::{
    config, corpus_manifest, corpus_pdf, index_all, index_small_corpus, models_dir, on_database, outcomes, runtime,
    search, serve, test_database, write_text_pdf,
};
use crate::proxy::{Authority, Proxy};

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
fn a_library_in_postgres_searches_as_one_on_disk_and_keeps_its_indexes_in_step() {
    let database = test_database();
    let home = tempfile::tempdir().unwrap();
    let shared = open(home.path(), Some(&database));
    index_small_corpus(&shared);
    let documents = shared.documents(None, true).unwrap();
    assert_eq!(documents.len(), 3);

    // The same PDFs in a library on disk: the same passages (their ids come from the content).
    let local = tempfile::tempdir().unwrap();
    let on_disk = open(local.path(), None);
    index_small_corpus(&on_disk);
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
    // The catalog is the database's, not a file of the home's.
    assert!(!home.path().join("library.sqlite").exists());

    // A deleted document leaves the database's indexes and PDFs too.
    let gone = &documents[0];
    shared.delete_document(gone.id).unwrap();
    let store = lectern::index::PgStore::connect(&database).unwrap();
    assert_eq!(runtime().block_on(store.published(gone.id)).unwrap(), None);
    assert!(runtime().block_on(store.published(documents[1].id)).unwrap().is_some());

    // An index the database lost is published again from this machine's copy when the indexer
    // starts; then there is nothing more to publish.
    runtime().block_on(store.delete(documents[1].id)).unwrap();
    let run = index_all(&shared);
    assert_eq!(run.reconciled.shared, 1, "{run:?}");
    let manifest = runtime().block_on(store.published(documents[1].id)).unwrap().unwrap();
    assert_eq!(manifest.content_hash, documents[1].content_hash);
    assert!(manifest.embedder.is_some());
    for question in QUESTIONS {
        let there = search(&shared, question, SearchMode::Hybrid);
        assert!(there.hits.iter().all(|h| h.document != gone.id), "{question}");
    }
    assert_eq!(index_all(&shared).reconciled.shared, 0);
}

/// Files that take a while to index, the longest first.
const FILES: &[&str] = &[
    "text-kb-pdf-risks-56p-objstm.pdf",
    "multicol-acl-paper-naacl06.pdf",
    "text-pdflatex-4-pages.pdf",
    "text-xelatex-4p.pdf",
    "text-word-mac-lorem-ipsum-2p.pdf",
];

#[test]
fn two_processes_with_homes_of_their_own_share_one_library_and_one_takes_over_when_the_other_dies() {
    let database = test_database();
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let paths: Vec<_> = FILES.iter().map(|f| corpus_pdf(f)).collect();

    // The first adds the files; its indexer dies once it has read one of them.
    let added = open(first.path(), Some(&database))
        .add(&paths, DEFAULT_FOLDER)
        .unwrap()
        .added;
    assert_eq!(added.len(), FILES.len());
    let other = open(second.path(), Some(&database));
    let mut indexer = Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("--home")
        .arg(first.path())
        .args(["--database-url", &database, "index"])
        .env("LECTERN_MODELS", models_dir())
        .env("LECTERN_WORKERS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ready = |library: &Library| {
        let docs = library.documents(None, true).unwrap();
        docs.iter().filter(|d| d.status == DocumentStatus::Ready).count()
    };
    let started = Instant::now();
    while ready(&other) == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the first indexer read nothing"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(indexer.id() as i32, libc::SIGKILL) };
    assert!(indexer.wait().unwrap().code().is_none(), "the indexer was killed");
    let at_kill = ready(&other);
    assert!(at_kill < FILES.len(), "the first indexer finished before it was killed");

    // The second, with nothing of the library on its disk, takes the indexer's role over (the
    // database let go of the dead one's lock) and finishes every document: none lost, none twice.
    let run = index_all(&other);
    let docs = other.documents(None, true).unwrap();
    assert_eq!(docs.len(), FILES.len(), "{run:?}");
    assert!(
        docs.iter().all(|d| d.status == DocumentStatus::Ready),
        "{:?}",
        docs.iter()
            .map(|d| (&d.file_name, d.status, &d.reason))
            .collect::<Vec<_>>()
    );

    // What one added, the other finds, and opens: the PDF comes from the database.
    for library in [&other, &open(first.path(), Some(&database))] {
        let found = search(library, "Lorem ipsum dolor sit amet", SearchMode::Hybrid);
        assert!(
            found
                .hits
                .first()
                .is_some_and(|h| h.document_name == "text-word-mac-lorem-ipsum-2p.pdf"),
            "{:?}",
            hits(&found)
        );
        let pdf = library.document_file(found.hits[0].document).unwrap();
        assert!(std::fs::read(pdf).unwrap().starts_with(b"%PDF"));
    }

    // The same file added again, from either side, is the document there is.
    for home in [first.path(), second.path()] {
        let again = open(home, Some(&database)).add(&paths[4..], DEFAULT_FOLDER).unwrap();
        assert!(again.added.is_empty() && again.already_present.len() == 1, "{again:?}");
    }
    assert_eq!(other.documents(None, true).unwrap().len(), FILES.len());
}

#[test]
fn a_library_in_postgres_seals_its_secrets_with_its_key_and_never_keeps_them_in_clear() {
    let database = test_database();
    let file = "enc-libreoffice-user-openpassword.pdf";
    let password = corpus_manifest()
        .into_iter()
        .find(|e| e.file == file)
        .and_then(|e| e.user_password)
        .unwrap();
    let keyed = |home: &std::path::Path, key: &str| {
        Library::open(LibraryConfig {
            database_url: Some(database.clone()),
            secret_key: Some(key.to_string()),
            ..config(home)
        })
        .unwrap()
    };

    // Without a keyring or a key, the password is refused, not written in clear text.
    let home = tempfile::tempdir().unwrap();
    let bare = open(home.path(), Some(&database));
    let doc = bare.add(&[corpus_pdf(file)], DEFAULT_FOLDER).unwrap().added.remove(0);
    index_all(&bare);
    let refused = bare.unlock(doc.id, &password).unwrap_err();
    assert!(refused.to_string().contains("LECTERN_SECRET_KEY"), "{refused}");
    assert_eq!(
        bare.document(&doc.id.to_string()).unwrap().status,
        DocumentStatus::NeedsPassword
    );
    drop(bare);

    // With a key it is sealed there, and a process elsewhere given the same key reads it.
    keyed(home.path(), "the library's key")
        .unlock(doc.id, &password)
        .unwrap();
    let stored: String = on_database(&database, async |client| {
        client
            .query_one("select password from document_passwords", &[])
            .await
            .unwrap()
            .get(0)
    });
    assert!(
        stored.starts_with("sealed:v2:") && !stored.contains(&password),
        "{stored}"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let other = keyed(elsewhere.path(), "the library's key");
    index_all(&other);
    assert_eq!(
        other.document(&doc.id.to_string()).unwrap().status,
        DocumentStatus::Ready
    );

    // A process given another key is told which key it needs.
    let wrong = lectern::catalog::Catalog::connect(&database, Some("another key")).unwrap();
    let err = wrong.password_for(&doc.content_hash).unwrap_err();
    assert!(err.to_string().contains("LECTERN_SECRET_KEY"), "{err}");
}

#[test]
fn a_library_moves_into_a_database_and_back_whole_without_embedding_again() {
    let home = tempfile::tempdir().unwrap();
    let on_disk = open(home.path(), None);
    index_small_corpus(&on_disk);
    on_disk.create_folder("Corpus/Later").unwrap();
    on_disk
        .create_api_token("colleague", &["Corpus/Later".to_string()])
        .unwrap();
    let documents = on_disk.documents(None, true).unwrap();

    // Into a database: the same folders, documents (their ids too), chats and search results.
    let database = test_database();
    let exported = runtime().block_on(on_disk.export(&database)).unwrap();
    assert_eq!((exported.documents, exported.files, exported.indexes), (3, 3, 3));
    let elsewhere = tempfile::tempdir().unwrap();
    let in_database = open(elsewhere.path(), Some(&database));
    let ids = |library: &Library| -> Vec<_> {
        library
            .documents(None, true)
            .unwrap()
            .into_iter()
            .map(|d| (d.id, d.file_name, d.status))
            .collect()
    };
    assert_eq!(ids(&in_database), ids(&on_disk));
    let paths = |library: &Library| -> Vec<String> { library.folders().unwrap().into_iter().map(|f| f.path).collect() };
    assert_eq!(paths(&in_database), paths(&on_disk));
    assert_eq!(in_database.api_tokens().unwrap(), on_disk.api_tokens().unwrap());
    for question in QUESTIONS {
        let there = search(&in_database, question, SearchMode::Hybrid);
        assert!(!there.hits.is_empty() && there.keyword_only == 0, "{question}");
        assert!(
            same(&there, &search(&on_disk, question, SearchMode::Hybrid)),
            "{question}"
        );
    }
    // Its indexer finds nothing to do: no document is read or embedded again.
    let run = index_all(&in_database);
    assert_eq!(
        (run.reconciled.requeued_missing, run.reconciled.files_missing),
        (0, 0),
        "{run:?}"
    );
    assert!(in_database
        .documents(None, true)
        .unwrap()
        .iter()
        .all(|d| d.status == DocumentStatus::Ready));
    let pdf = in_database.document_file(documents[0].id).unwrap();
    assert!(std::fs::read(pdf).unwrap().starts_with(b"%PDF"));

    // A library that is not new is not copied into.
    let again = runtime().block_on(on_disk.export(&database)).unwrap_err();
    assert!(again.to_string().contains("holds a library already"), "{again}");

    // And back out of the database into a directory.
    let back = tempfile::tempdir().unwrap();
    let target = back.path().join("library");
    let exported = runtime()
        .block_on(in_database.export(target.to_str().unwrap()))
        .unwrap();
    assert_eq!((exported.documents, exported.indexes), (3, 3));
    let returned = open(&target, None);
    assert_eq!(ids(&returned), ids(&on_disk));
    for question in QUESTIONS {
        let here = search(&returned, question, SearchMode::Hybrid);
        assert!(
            same(&here, &search(&on_disk, question, SearchMode::Hybrid)),
            "{question}"
        );
    }
}

#[test]
fn two_servers_on_one_database_serve_eight_clients_while_one_dies_and_lose_nothing() {
    const CLIENTS: usize = 8;
    const REQUESTS: usize = 25;
    let database = test_database();
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let library = open(first.path(), Some(&database));
    index_small_corpus(&library);
    let (_, token) = library.create_api_token("team", &["Corpus".to_string()]).unwrap();
    // Files on a server's machine are added with the whole library's token of its home.
    let whole = library.api_token().unwrap();
    drop(library);
    let url = ["--database-url", database.as_str()];
    let (mut dying, dying_base) = serve(first.path(), &url);
    let (mut living, living_base) = serve(second.path(), &url);
    let http = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap();

    // Files added through the server that dies, as a job (a folder's token follows it).
    let files = tempfile::tempdir().unwrap();
    for i in 0..6 {
        let line = format!("Harbour report {i}: the tide tables and the keeper's log");
        write_text_pdf(&files.path().join(format!("harbour-{i}.pdf")), &[&line]);
    }
    let job: serde_json::Value = http
        .post(format!("{dying_base}/jobs"))
        .bearer_auth(&whole)
        .json(&serde_json::json!({ "folder": "Corpus", "paths": [files.path()] }))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let job = job["id"].as_str().unwrap().to_string();

    // Eight clients take turns between the two servers, as a load balancer would, and send a
    // request whose connection fails to the other server; the first server is killed part way.
    let answered = std::sync::atomic::AtomicUsize::new(0);
    let (mut refused, mut failed_over, mut lost) = (0, 0, Vec::new());
    std::thread::scope(|s| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|client| {
                let (http, token, answered) = (&http, &token, &answered);
                let bases = [dying_base.as_str(), living_base.as_str()];
                s.spawn(move || {
                    let (mut refused, mut failed_over, mut lost) = (0, 0, Vec::new());
                    for i in 0..REQUESTS {
                        let order = [bases[(client + i) % 2], bases[(client + i + 1) % 2]];
                        let mut outcome = None;
                        for (attempt, base) in order.iter().enumerate() {
                            let sent = http
                                .post(format!("{base}/search"))
                                .bearer_auth(token)
                                .json(&serde_json::json!({ "query": "Lorem ipsum dolor sit amet", "k": 5 }))
                                .send();
                            match sent {
                                Ok(reply) if reply.status().is_success() => {
                                    let found: serde_json::Value = reply.json().unwrap();
                                    assert!(!found["hits"].as_array().unwrap().is_empty(), "{found}");
                                    answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                                    failed_over += attempt;
                                    outcome = Some(());
                                    break;
                                }
                                Ok(reply) => {
                                    // Refused cleanly: a status and a message that says why.
                                    let status = reply.status();
                                    let body: serde_json::Value = reply.json().unwrap();
                                    assert!(body["error"]["message"].is_string(), "{status}: {body}");
                                    refused += 1;
                                    outcome = Some(());
                                    break;
                                }
                                Err(_) => continue,
                            }
                        }
                        if outcome.is_none() {
                            lost.push((client, i));
                        }
                    }
                    (refused, failed_over, lost)
                })
            })
            .collect();
        while answered.load(std::sync::atomic::Ordering::SeqCst) < CLIENTS * REQUESTS / 4
            && !clients.iter().all(|c| c.is_finished())
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        dying.kill().unwrap();
        dying.wait().unwrap();
        for client in clients {
            let (r, f, l) = client.join().unwrap();
            (refused, failed_over) = (refused + r, failed_over + f);
            lost.extend(l);
        }
    });
    let answered = answered.into_inner();
    eprintln!(
        "{} requests from {CLIENTS} clients: {answered} answered ({failed_over} by the other server after the \
         first died), {refused} refused, {} lost",
        CLIENTS * REQUESTS,
        lost.len()
    );
    assert!(lost.is_empty(), "requests neither answered nor refused: {lost:?}");
    assert_eq!(answered + refused, CLIENTS * REQUESTS);
    assert!(failed_over > 0, "no request met the dead server");

    // The job the dead server took is finished by the living one: nothing lost.
    let started = Instant::now();
    let job = loop {
        let job: serde_json::Value = http
            .get(format!("{living_base}/jobs/{job}"))
            .bearer_auth(&token)
            .send()
            .unwrap()
            .json()
            .unwrap();
        if job["state"] == "done" {
            break job;
        }
        assert!(started.elapsed() < Duration::from_secs(300), "{job}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(
        (job["documents"].as_u64(), job["done"].as_u64()),
        (Some(6), Some(6)),
        "{job}"
    );
    living.kill().unwrap();
    living.wait().unwrap();
}

#[test]
fn a_directory_linked_on_one_machine_is_synced_by_that_machine_only() {
    let database = test_database();
    let (home, dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let memo = dir.path().join("memo.pdf");
    write_text_pdf(&memo, &["The harbour's tide tables"]);
    // Written a while ago: a file still being written waits for the next sync.
    let written = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&memo)
        .unwrap()
        .set_modified(written)
        .unwrap();
    let library = open(home.path(), Some(&database));
    let (link, report) = library.link_directory(dir.path(), DEFAULT_FOLDER, false).unwrap();
    assert_eq!(report.added, 1);
    assert_eq!(library.sync_links().len(), 1, "this machine syncs its own link");

    // The same link seen from another machine: its path there is another directory (here, one
    // that is empty), whose sync would remove the document.
    on_database(&database, async |client| {
        client
            .execute(
                "update links set machine = 'another-machine' where id = $1",
                &[&link.id],
            )
            .await
            .unwrap();
    });
    std::fs::remove_file(dir.path().join("memo.pdf")).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a PDF").unwrap();
    assert!(
        library.sync_links().is_empty(),
        "a link of another machine is not synced here"
    );
    assert_eq!(library.documents(None, true).unwrap().len(), 1);
}

#[test]
fn a_library_in_postgres_goes_on_after_the_server_ends_its_connections() {
    let database = test_database();
    let home = tempfile::tempdir().unwrap();
    let library = open(home.path(), Some(&database));
    library.create_folder("Before").unwrap();
    // As a restarted server, or an administrator, ends every connection but its own.
    let ended: i64 = on_database(&database, async |client| {
        client
            .query(
                "select pg_terminate_backend(pid) from pg_stat_activity
                 where datname = current_database() and pid <> pg_backend_pid()",
                &[],
            )
            .await
            .unwrap()
            .len() as i64
    });
    assert!(ended > 0);
    std::thread::sleep(Duration::from_millis(200));
    library.create_folder("After").unwrap();
    let paths: Vec<String> = library.folders().unwrap().into_iter().map(|f| f.path).collect();
    assert!(
        paths.contains(&"Before".to_string()) && paths.contains(&"After".to_string()),
        "{paths:?}"
    );
}

#[test]
fn a_library_in_postgres_loses_nothing_when_its_server_restarts_during_an_import_and_a_question() {
    let database = test_database();
    let proxy = Proxy::start(&database, None);
    let home = tempfile::tempdir().unwrap();
    let library = open(home.path(), Some(&proxy.url(&database, "127.0.0.1", "")));
    let paths: Vec<_> = FILES.iter().map(|f| corpus_pdf(f)).collect();
    library.add(&paths, DEFAULT_FOLDER).unwrap();
    // Watched from a process of its own, past the proxy.
    let elsewhere = tempfile::tempdir().unwrap();
    let watcher = open(elsewhere.path(), Some(&database));
    let ready = || {
        let docs = watcher.documents(None, true).unwrap();
        docs.iter().filter(|d| d.status == DocumentStatus::Ready).count()
    };

    let (run, at_restart, refused) = std::thread::scope(|s| {
        let indexing = s.spawn(|| runtime().block_on(library.run_indexer(lectern::jobs::RunMode::UntilIdle)));
        let started = Instant::now();
        while ready() == 0 {
            assert!(started.elapsed() < Duration::from_secs(300), "nothing was read");
            std::thread::sleep(Duration::from_millis(20));
        }
        // The server restarts mid-import, and a question comes while it is down.
        proxy.down();
        let at_restart = ready();
        let request = lectern::search::SearchRequest {
            query: "Lorem ipsum dolor sit amet".into(),
            scope: Default::default(),
            k: 5,
            mode: SearchMode::Hybrid,
            second_stage: false,
        };
        let refused = runtime().block_on(library.search(&request)).unwrap_err();
        std::thread::sleep(Duration::from_secs(2));
        proxy.up();
        (indexing.join().unwrap(), at_restart, refused)
    });
    assert!(at_restart < FILES.len(), "the import was over before the restart");
    // The question is told what failed and that it can be asked again.
    let said = refused.to_string();
    assert!(
        said.contains("cannot be reached") && said.contains("ask again"),
        "{said}"
    );
    assert_eq!(refused.code(), lectern::ErrorCode::Unavailable);

    // The import went on: every document as a clean run leaves it, published whole.
    let run = run.unwrap();
    let clean_home = tempfile::tempdir().unwrap();
    let clean = open(clean_home.path(), None);
    clean.add(&paths, DEFAULT_FOLDER).unwrap();
    index_all(&clean);
    assert_eq!(outcomes(&library), outcomes(&clean), "{run:?}");
    assert_eq!(outcomes(&watcher), outcomes(&clean));
    let store = lectern::index::PgStore::connect(&database).unwrap();
    for doc in library.documents(None, true).unwrap() {
        let published = runtime().block_on(store.published(doc.id)).unwrap().unwrap();
        assert_eq!(Some(published.chunk_count), doc.chunk_count, "{}", doc.file_name);
    }
    let found = search(&library, "Lorem ipsum dolor sit amet", SearchMode::Hybrid);
    assert_eq!(
        found.hits.first().map(|h| h.document_name.as_str()),
        Some("text-word-mac-lorem-ipsum-2p.pdf")
    );
}

#[test]
fn a_library_in_postgres_over_tls_verifies_its_server_and_says_how_to_trust_one() {
    let database = test_database();
    let authority = Authority::new();
    let proxy = Proxy::start(&database, Some(&authority));
    let trusted = format!("sslmode=verify-full&sslrootcert={}", authority.pem_file.display());

    // Its authority named, the server is trusted: the library works over TLS, every connection
    // of it (the catalog's, the index store's, the indexer's lock) encrypted.
    let home = tempfile::tempdir().unwrap();
    let library = open(home.path(), Some(&proxy.url(&database, "localhost", &trusted)));
    index_small_corpus(&library);
    assert!(outcomes(&library).values().all(|d| d.0 == DocumentStatus::Ready));
    let found = search(&library, "Lorem ipsum dolor sit amet", SearchMode::Hybrid);
    assert!(!found.hits.is_empty());
    assert!(proxy.handshakes() >= 3, "{}", proxy.handshakes());

    // A server whose authority this machine does not know, or whose certificate names another
    // host, is refused, with what to do.
    for (host, query, says) in [
        ("localhost", "sslmode=require".to_string(), "sslrootcert="),
        ("127.0.0.1", trusted.clone(), "issued for another name"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let config = LibraryConfig {
            database_url: Some(proxy.url(&database, host, &query)),
            ..config(home.path())
        };
        let err = Library::open(config).map(|_| ()).unwrap_err().to_string();
        assert!(
            err.contains("not one this machine trusts") && err.contains(says),
            "{host}?{query}: {err}"
        );
    }

    // Asked for TLS, a server that offers none is refused rather than spoken to in clear text.
    let plain = Proxy::start(&database, None);
    let home = tempfile::tempdir().unwrap();
    let config = LibraryConfig {
        database_url: Some(plain.url(&database, "localhost", &trusted)),
        ..config(home.path())
    };
    let err = Library::open(config).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("does not support TLS"), "{err}");
}

#[test]
fn an_indexer_whose_lock_went_with_its_connection_takes_it_again_or_gives_the_role_up() {
    use lectern::index::{IndexError, Publication};
    use lectern::jobs::IndexerLock;
    let database = test_database();
    // A library in the database with a document indexed: its index is published again below.
    let library_home = tempfile::tempdir().unwrap();
    let library = open(library_home.path(), Some(&database));
    library
        .add(&[corpus_pdf("text-pdflatex-4-pages.pdf")], DEFAULT_FOLDER)
        .unwrap();
    index_all(&library);
    let id = library.documents(None, true).unwrap()[0].id;
    let store = lectern::index::PgStore::connect(&database).unwrap();
    let index = runtime().block_on(store.read_back(id)).unwrap().unwrap();
    let publish = |term: Option<i64>| {
        let publication = Publication {
            term,
            ..index.publication(id)
        };
        runtime().block_on(store.publish(publication))
    };

    let proxy = Proxy::start(&database, None);
    let (home, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = IndexerLock::try_acquire(home.path(), Some(&proxy.url(&database, "127.0.0.1", "")))
        .unwrap()
        .expect("nobody holds the lock yet");
    let term = first.confirm().unwrap();
    assert!(term.is_some(), "a lock in a database begins a term");
    publish(term).unwrap();
    let take = || IndexerLock::try_acquire(elsewhere.path(), Some(&database)).unwrap();
    assert!(take().is_none());
    // The server ends the holder's connection until the server has let the lock go.
    let drop_connection = || {
        proxy.down();
        let started = Instant::now();
        loop {
            match take() {
                Some(lock) => break lock,
                None => assert!(started.elapsed() < Duration::from_secs(30), "the lock was never let go"),
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };

    // Nobody took the lock meanwhile: the holder takes it again, in a new term, before it
    // publishes.
    drop(drop_connection());
    proxy.up();
    let again = first.confirm().unwrap();
    assert!(again > term, "{again:?} after {term:?}");
    assert!(take().is_none());
    publish(again).unwrap();

    // Another process took it meanwhile: the holder gives the role up rather than publish, and
    // a publication of its term, had it been confirmed a moment before, is refused.
    let second = drop_connection();
    proxy.up();
    assert!(matches!(first.confirm(), Err(lectern::Error::IndexerBusy)));
    let refused = publish(again).unwrap_err();
    assert!(matches!(refused, IndexError::Superseded { .. }), "{refused}");
    assert!(
        refused
            .to_string()
            .contains("another process became the library's indexer"),
        "{refused}"
    );
    let newest = second.confirm().unwrap();
    publish(newest).unwrap();
    assert_eq!(
        runtime().block_on(store.published(id)).unwrap().map(|m| m.chunk_count),
        library.documents(None, true).unwrap()[0].chunk_count,
        "the index as it was"
    );

    // A publication under way (its transaction holds the term's row, shared) keeps the next term
    // from beginning until it ends: none of an old term commits once a new one began.
    drop(second);
    let (held, release) = (std::sync::mpsc::channel(), std::sync::mpsc::channel::<()>());
    let publishing = {
        let (database, held) = (database.clone(), held.0);
        std::thread::spawn(move || {
            on_database(&database, async |client| {
                client
                    .batch_execute("begin; select term from indexer_term for share")
                    .await
                    .unwrap();
                held.send(()).unwrap();
                // On the thread blocked in `block_on`: the connection runs on the runtime's.
                release.1.recv().unwrap();
                client.batch_execute("commit").await.unwrap();
            })
        })
    };
    held.1.recv().unwrap();
    let taking = {
        let database = database.clone();
        std::thread::spawn(move || {
            IndexerLock::try_acquire(std::path::Path::new("/nonexistent"), Some(&database)).unwrap()
        })
    };
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        !taking.is_finished(),
        "the next term waits for the publication under way"
    );
    release.0.send(()).unwrap();
    let third = taking.join().unwrap().expect("taken once the publication ended");
    publishing.join().unwrap();
    assert!(third.confirm().unwrap() > newest);
}

/// `secret` sealed as Lectern sealed secrets before Argon2id (`sealed:v1:`): ChaCha20-Poly1305
/// under the key string's SHA-256, a random nonce, both in hex.
fn sealed_the_old_way(key: &str, secret: &str) -> String {
    use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305};
    use sha2::Digest;
    let key = LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &sha2::Sha256::digest(key.as_bytes())).unwrap());
    let nonce = [7u8; 12];
    let mut sealed = secret.as_bytes().to_vec();
    key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::empty(), &mut sealed)
        .unwrap();
    format!("sealed:v1:{}{}", hex::encode(nonce), hex::encode(sealed))
}

#[test]
fn a_secret_sealed_the_old_way_opens_and_is_sealed_again_by_the_first_process_given_the_key() {
    let database = test_database();
    let stored = |hash: &str| -> String {
        on_database(&database, async |client| {
            client
                .query_one(
                    "select password from document_passwords where content_hash = $1",
                    &[&hash],
                )
                .await
                .unwrap()
                .get(0)
        })
    };
    let catalog = lectern::catalog::Catalog::connect(&database, Some("the library's key")).unwrap();
    catalog.store_password("new", Some("sealed anew")).unwrap();
    catalog.store_password("old", Some("to be replaced")).unwrap();
    on_database(&database, async |client| {
        client
            .execute(
                "update document_passwords set password = $1 where content_hash = 'old'",
                &[&sealed_the_old_way("the library's key", "hunter2")],
            )
            .await
            .unwrap();
    });
    drop(catalog);

    // A process given another key opens neither, and changes nothing.
    let wrong = lectern::catalog::Catalog::connect(&database, Some("another key")).unwrap();
    assert!(wrong.password_for("old").is_err());
    assert!(stored("old").starts_with("sealed:v1:"));
    drop(wrong);

    // The library's key opens the old one, and seals it again with Argon2id's key.
    let keyed = lectern::catalog::Catalog::connect(&database, Some("the library's key")).unwrap();
    assert!(stored("old").starts_with("sealed:v2:"), "{}", stored("old"));
    assert_eq!(keyed.password_for("old").unwrap(), Some(Some("hunter2".to_string())));
    assert_eq!(
        keyed.password_for("new").unwrap(),
        Some(Some("sealed anew".to_string()))
    );
}
