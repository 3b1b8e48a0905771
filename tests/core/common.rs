//! Shared fixtures: temporary libraries, the corpus, and the installed model.

use std::path::PathBuf;

use lectern::catalog::Scope;
use lectern::jobs::RunMode;
use lectern::search::{SearchMode, SearchRequest, SearchResults};
use lectern::{DocumentStatus, Library, LibraryConfig};
use serde::Deserialize;
use tempfile::TempDir;

/// A library in its own temporary directory, removed when dropped.
pub struct TestLibrary {
    pub library: Library,
    pub home: TempDir,
}

impl std::ops::Deref for TestLibrary {
    type Target = Library;
    fn deref(&self) -> &Library {
        &self.library
    }
}

/// The repository's root: the tests are the command line's package's (`cli/`).
pub fn repository() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The directory the test setup installed the model into.
pub fn models_dir() -> PathBuf {
    let dir = std::env::var_os("LECTERN_TEST_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository().join(".models"));
    assert!(
        dir.join("all-MiniLM-L6-v2/model.onnx").is_file(),
        "the embedding model is not installed in {}; run scripts/setup-models.sh {}",
        dir.display(),
        dir.display()
    );
    dir
}

/// The URL of a new, empty database of its own on the test run's PostgreSQL server (which
/// `scripts/postgres.sh run` starts, and the README's test command runs the tests under).
pub fn test_database() -> String {
    let Ok(server) = std::env::var("LECTERN_TEST_DATABASE_URL") else {
        panic!(
            "LECTERN_TEST_DATABASE_URL is not set: run the tests with scripts/test.sh, or under \
             `scripts/postgres.sh run DIR cargo nextest run ...`, which starts a PostgreSQL server for them"
        );
    };
    let name = format!("lectern_test_{}", uuid::Uuid::new_v4().simple());
    on_database(&server, async |client| {
        client.batch_execute(&format!("create database {name}")).await.unwrap();
    });
    let (base, _) = server.rsplit_once('/').unwrap();
    format!("{base}/{name}")
}

/// Runs `query` on a connection of its own to the database at `url`, beside the library (as an
/// administrator, or another program, would).
pub fn on_database<T>(url: &str, query: impl AsyncFnOnce(&tokio_postgres::Client) -> T) -> T {
    runtime().block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        query(&client).await
    })
}

/// The configuration of a fresh library in `home`, using the installed model.
pub fn config(home: &std::path::Path) -> LibraryConfig {
    let mut config = LibraryConfig::new(home.to_path_buf());
    config.models_dir = models_dir();
    config.workers = 2;
    // Each document reads one page by OCR at a time: two documents already fill two cores.
    config.ocr_workers = 1;
    config.reader.program = PathBuf::from(env!("CARGO_BIN_EXE_lectern"));
    // The user's keyring is not the tests' to write in (`tests/core/secrets.rs` brings its own).
    config.keyring = false;
    // The suite runs a second time with each library in a database of its own (scripts/test.sh):
    // one database a home, so that a library opened again is the same library.
    if std::env::var_os("LECTERN_TEST_LIBRARY_IN_DATABASE").is_some() {
        static DATABASES: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());
        let mut databases = DATABASES.lock().unwrap();
        let url = match databases.iter().find(|(h, _)| h == home) {
            Some((_, url)) => url.clone(),
            None => {
                let url = test_database();
                databases.push((home.to_path_buf(), url.clone()));
                url
            }
        };
        config.database_url = Some(url);
        // Its secrets sealed in it, as no keyring answers.
        config.secret_key = Some("the test library's key".into());
    }
    config
}

/// The environment a `lectern` process over the library in `home` needs beside `--home`: its
/// database, when the suite runs with libraries in databases.
pub fn database_env(home: &std::path::Path) -> impl Iterator<Item = (&'static str, String)> {
    let config = config(home);
    let key = config.secret_key.map(|key| ("LECTERN_SECRET_KEY", key));
    config
        .database_url
        .map(|url| ("LECTERN_DATABASE_URL", url))
        .into_iter()
        .chain(key)
}

/// A `lectern serve` process over `home` (with `args` before the command) on a free loopback
/// port, and its base URL.
pub fn serve(home: &std::path::Path, args: &[&str]) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("--home")
        .arg(home)
        .envs(database_env(home))
        .args(args)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("LECTERN_MODELS", models_dir())
        .env("LECTERN_KEYRING", "off")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let base = loop {
        let line = lines.next().expect("the server said where it listens").unwrap();
        if let Some(rest) = line.split("serving the library at ").nth(1) {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    // The rest of its standard error is read so that it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    (child, base)
}

pub fn library() -> TestLibrary {
    let home = tempfile::tempdir().unwrap();
    let library = Library::open(config(home.path())).unwrap();
    TestLibrary { library, home }
}

/// The repository's `corpus/` (or `$LECTERN_CORPUS`).
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("LECTERN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repository().join("corpus"))
}

pub fn corpus_pdf(name: &str) -> PathBuf {
    corpus_dir().join("pdfs").join(name)
}

/// One entry of the corpus manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct CorpusEntry {
    pub file: String,
    pub category: String,
    pub encrypted: bool,
    pub expect: String,
    pub pages: Option<u64>,
    pub user_password: Option<String>,
}

pub fn corpus_manifest() -> Vec<CorpusEntry> {
    let text = std::fs::read_to_string(corpus_dir().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The best five passages of the whole library for `query` in `mode`.
pub fn search(library: &Library, query: &str, mode: SearchMode) -> SearchResults {
    let request = SearchRequest {
        query: query.into(),
        scope: Scope::default(),
        k: 5,
        mode,
        second_stage: false,
    };
    runtime().block_on(library.search(&request)).unwrap()
}

/// Runs the indexer until the queue is empty.
pub fn index_all(library: &Library) -> lectern::jobs::IndexRun {
    runtime().block_on(library.run_indexer(RunMode::UntilIdle)).unwrap()
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Reads one HTTP request from a test server's connection: its path, its authorization header and
/// its JSON body (null when there is none).
pub fn read_request(stream: &std::net::TcpStream) -> (String, String, serde_json::Value) {
    use std::io::{BufRead, BufReader, Read};
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    let path = request_line.split_whitespace().nth(1).unwrap_or("").to_string();
    let (mut length, mut auth) = (0, String::new());
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let lower = line.to_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap();
        }
        if lower.starts_with("authorization:") {
            auth = line["authorization:".len()..].trim().to_string();
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    (path, auth, serde_json::from_slice(&body).unwrap_or_default())
}

/// Three small corpus PDFs (2, 3 and 1 pages) that real questions are asked about.
pub const SMALL_CORPUS: [&str; 3] = [
    "text-word-mac-lorem-ipsum-2p.pdf",
    "multicol-latex-multicolumn-3p.pdf",
    "text-libreoffice-writer-1p.pdf",
];

/// Adds [`SMALL_CORPUS`] to a new folder "Corpus" of `library` and indexes them.
pub fn index_small_corpus(library: &Library) -> lectern::FolderId {
    let folder = library.create_folder("Corpus").unwrap().id;
    let paths: Vec<_> = SMALL_CORPUS.iter().map(|f| corpus_pdf(f)).collect();
    library.add(&paths, "Corpus").unwrap();
    index_all(library);
    folder
}

/// What of a document an indexer's end state is compared on: status, pages, passages,
/// characters, and the model its vectors are of.
pub type Outcome = (DocumentStatus, Option<u64>, Option<u64>, Option<u64>, Option<String>);

/// Each document of `library` by file name, as indexing left it.
pub fn outcomes(library: &Library) -> std::collections::BTreeMap<String, Outcome> {
    library
        .documents(None, false)
        .unwrap()
        .into_iter()
        .map(|d| {
            let outcome = (d.status, d.page_count, d.chunk_count, d.char_count, d.embedded_with);
            (d.file_name, outcome)
        })
        .collect()
}

/// Writes a one-page PDF holding `lines` of text, each on a line of its own.
pub fn write_text_pdf(path: &std::path::Path, lines: &[&str]) {
    std::fs::write(path, lectern::pdf::text_pdf(lines)).unwrap();
}

/// Makes this thread subject to file permissions even when the tests run as root, until the
/// guard is dropped, by lowering its effective `CAP_DAC_OVERRIDE` and `CAP_DAC_READ_SEARCH`
/// (capabilities are per thread): a directory made unreadable is then unreadable to the code
/// under test, as it is to a user.
pub fn obey_file_permissions() -> impl Drop {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const DAC: u32 = (1 << 1) | (1 << 2);
    fn set_effective(dac: bool) {
        let mut header = Header {
            version: 0x2008_0522,
            pid: 0,
        };
        let mut data = [Data::default(); 2];
        // SAFETY: capget and capset read and write a version-3 header and two data structs.
        unsafe {
            assert_eq!(libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()), 0);
            data[0].effective = if dac {
                data[0].effective | (data[0].permitted & DAC)
            } else {
                data[0].effective & !DAC
            };
            assert_eq!(libc::syscall(libc::SYS_capset, &header, data.as_ptr()), 0);
        }
    }
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            set_effective(true);
        }
    }
    set_effective(false);
    Restore
}
