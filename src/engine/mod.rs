//! [`Engine`]: the core's internal context. It holds what every part of the core shares (the
//! configuration, the catalog, the stored files, the index directories and the open indexes, the
//! loaded models, indexing events, and the cancel flags of running work: documents being indexed,
//! answers being generated) and the few document operations that more than one part needs. The
//! indexer (`jobs/`), the watcher (`watch/`) and the query path (`search/`) take it as an
//! argument; the facade, [`crate::Library`], holds one and delegates to them.

mod answers;
mod chat_model;
mod control;
mod documents;
mod embedding;
mod events;
mod import;
mod installs;
mod ocr;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{broadcast, Notify};

use crate::catalog::{Catalog, DocumentId};
use crate::chunk::Chunker;
use crate::config::LibraryConfig;
use crate::embed::{Embedder, GgufEmbedder};
use crate::error::Error;
use crate::files::FileStore;
use crate::index::{IndexDirs, IndexStore, LocalStore, PgStore};
use crate::llm::Cancel;
use crate::secrets::Secrets;

pub use documents::CANCELLED;
pub use events::{next_event, IndexEvent};
pub use import::{ImportFailure, ImportReport};

/// An open library's shared state. One per open library; share it with `Arc`.
pub struct Engine {
    config: LibraryConfig,
    catalog: Mutex<Catalog>,
    files: FileStore,
    /// The indexes on disk, which the indexer writes.
    indexes: LocalStore,
    /// The database the indexes are shared in and searched from, if the library names one.
    shared: Option<PgStore>,
    events: broadcast::Sender<IndexEvent>,
    cancels: Mutex<HashMap<DocumentId, Arc<AtomicBool>>>,
    paused: AtomicBool,
    /// The documents whose step [`Engine::pause`] stopped (not a person's cancel).
    stopped_by_pause: Mutex<HashSet<DocumentId>>,
    /// Why this process's indexer holds indexing until it can go on by itself (a full disk).
    held: Mutex<Option<String>>,
    answers: Mutex<HashMap<String, Cancel>>,
    installs: Mutex<HashMap<String, Arc<AtomicBool>>>,
    wake: Notify,
    chunker: Mutex<Option<Arc<Chunker>>>,
    embedder: Mutex<Option<Arc<dyn Embedder>>>,
    embedder_id: Mutex<Option<String>>,
    /// The second stage's model: not looked for yet (`None`), or looked for (`Some`, holding it
    /// if it is installed and loaded).
    second_stage: Mutex<Option<Option<Arc<GgufEmbedder>>>>,
    chat_model: Mutex<Option<chat_model::LoadedModel>>,
    secrets: Secrets,
}

impl Engine {
    /// Opens the library in `config.home`, creating it (with its default folder) if needed.
    pub fn open(config: LibraryConfig) -> Result<Engine, Error> {
        let home = &config.home;
        for dir in [home.clone(), home.join("files"), home.join("indexes")] {
            std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        }
        // Copies of the user's PDFs, and the text of protected ones, are the user's alone. (A
        // file system without Unix permissions keeps its own rules.)
        let _ = std::fs::set_permissions(home, std::os::unix::fs::PermissionsExt::from_mode(0o700));
        // With a database, the catalog is the database's: every process using it sees one library.
        // A data directory holding a library on disk is not taken for a cache of one in a
        // database (whose start would sweep its PDFs and indexes as no document's).
        let on_disk = match config.database_url {
            Some(_) => crate::catalog::documents_in_file(&home.join(crate::catalog::CATALOG_FILE)).unwrap_or(0),
            None => 0,
        };
        if on_disk > 0 {
            return Err(Error::Config {
                name: "LECTERN_DATABASE_URL".into(),
                reason: format!(
                    "the data directory {} holds a library on disk ({on_disk} document(s)), which a library in a \
                     database does not take over: copy it in with `lectern library export --to URL`, then give the URL \
                     with another data directory, or open this one without the URL",
                    home.display()
                ),
            });
        }
        let catalog = match config.database_url.as_deref() {
            Some(url) => Catalog::connect(url, config.secret_key.as_deref())?,
            None => Catalog::open(&home.join(crate::catalog::CATALOG_FILE))?,
        };
        crate::config::one_thread_per_model();
        // A search keeps one descriptor open per document it has searched.
        crate::index::raise_open_file_limit();
        let (events, _) = broadcast::channel(4096);
        Ok(Engine {
            files: FileStore::new(home.join("files")),
            indexes: LocalStore::new(
                IndexDirs::new(home.join("indexes")),
                std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
            )?
            .with_wide_index_from(config.wide_index_from),
            shared: config.database_url.as_deref().map(PgStore::connect).transpose()?,
            catalog: Mutex::new(catalog),
            events,
            cancels: Mutex::new(HashMap::new()),
            paused: AtomicBool::new(false),
            stopped_by_pause: Mutex::new(HashSet::new()),
            held: Mutex::new(None),
            answers: Mutex::new(HashMap::new()),
            installs: Mutex::new(HashMap::new()),
            wake: Notify::new(),
            chunker: Mutex::new(None),
            embedder: Mutex::new(None),
            embedder_id: Mutex::new(None),
            second_stage: Mutex::new(None),
            chat_model: Mutex::new(None),
            // A library in a database given a key keeps its secrets there, sealed, where every
            // process reads them; a keyring is one machine's.
            secrets: Secrets::new(
                &std::fs::canonicalize(home).unwrap_or_else(|_| home.clone()),
                config.keyring && !(config.database_url.is_some() && config.secret_key.is_some()),
            ),
            config,
        })
    }

    pub fn config(&self) -> &LibraryConfig {
        &self.config
    }

    pub fn catalog(&self) -> MutexGuard<'_, Catalog> {
        lock(&self.catalog)
    }

    /// The library's secrets in the system's keyring.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    pub fn files(&self) -> &FileStore {
        &self.files
    }

    pub fn dirs(&self) -> &IndexDirs {
        self.indexes.dirs()
    }

    /// The indexes on disk, which the indexer writes (and search reads without a database).
    pub fn local_store(&self) -> &LocalStore {
        &self.indexes
    }

    /// The documents' indexes, as search reads them: the database's if the library names one.
    pub fn store(&self) -> &dyn IndexStore {
        match &self.shared {
            Some(shared) => shared,
            None => &self.indexes,
        }
    }

    /// The database the indexes are shared in, if the library names one.
    pub fn shared_store(&self) -> Option<&PgStore> {
        self.shared.as_ref()
    }

    /// Subscribes to indexing events from this process.
    pub fn subscribe(&self) -> broadcast::Receiver<IndexEvent> {
        self.events.subscribe()
    }

    pub fn emit(&self, event: IndexEvent) {
        // No subscriber is not an error.
        let _ = self.events.send(event);
    }

    /// Woken when there is new work for the indexer.
    pub fn wake(&self) -> &Notify {
        &self.wake
    }

    /// The cancel flag of every document this process is indexing.
    pub fn cancels(&self) -> MutexGuard<'_, HashMap<DocumentId, Arc<AtomicBool>>> {
        lock(&self.cancels)
    }

    /// Pauses this process's indexing: no step starts, and the steps under way stop between two
    /// pages or batches; a document being read goes back to the queue, one being embedded keeps
    /// the batches it wrote.
    pub fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
        let cancels = self.cancels();
        let mut stopped = lock(&self.stopped_by_pause);
        for (id, flag) in cancels.iter() {
            stopped.insert(*id);
            flag.store(true, Ordering::SeqCst);
        }
    }

    /// Whether the step of `id` that just stopped was stopped by a pause; forgets it either way.
    pub fn stopped_by_pause(&self, id: DocumentId) -> bool {
        lock(&self.stopped_by_pause).remove(&id)
    }

    /// A person's cancel wins over a pause that stopped the same step.
    pub fn not_by_pause(&self, id: DocumentId) {
        lock(&self.stopped_by_pause).remove(&id);
    }

    /// Lets indexing go on after [`Engine::pause`].
    pub fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
        self.wake.notify_one();
    }

    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it (every critical section
/// here leaves the data consistent: the catalog is transactional).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
