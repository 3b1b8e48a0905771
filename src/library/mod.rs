//! [`Library`]: the one type a client needs. It owns the data directory (catalog, files, indexes),
//! the models, and the indexing queue, and exposes every operation the CLI and the desktop app
//! offer. Cloning is cheap; clones share everything.

mod ask;
mod documents;
mod folders;
mod links;
mod models;
mod search;
mod settings;
mod status;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{broadcast, Notify};

use crate::catalog::{Catalog, DocumentId};
use crate::chunk::Chunker;
use crate::config::{EmbedderConfig, LibraryConfig};
use crate::embed::{tokenizer_for_batches, EmbedError, Embedder, HttpEmbedder, MiniLm, MINILM_DIR};
use crate::files::FileStore;
use crate::index::IndexDirs;
use crate::jobs::IndexEvent;
use crate::search::{Fields, IndexCache};
use crate::Error;

pub use ask::{AskOutcome, AskRequest};
pub use documents::{ImportFailure, ImportReport};
pub use links::SyncReport;
pub use models::ModelEntry;
pub use settings::{BackendKind, Settings, MAX_K};
pub use status::LibraryStatus;

/// The loaded models: the embedder and the chunker counting with the model's tokenizer.
pub struct Models {
    pub embedder: Box<dyn Embedder>,
    pub chunker: Chunker,
}

/// An open library.
#[derive(Clone)]
pub struct Library {
    shared: Arc<Shared>,
}

struct Shared {
    config: LibraryConfig,
    catalog: Mutex<Catalog>,
    files: FileStore,
    dirs: IndexDirs,
    events: broadcast::Sender<crate::jobs::IndexEvent>,
    cancels: Mutex<HashMap<DocumentId, Arc<AtomicBool>>>,
    wake: Notify,
    models: Mutex<Option<Arc<Models>>>,
    /// The language model last loaded, for the backend and threads it was loaded with.
    chat_model: Mutex<Option<ask::LoadedModel>>,
    search_cache: IndexCache,
    fields: Fields,
    search_threads: usize,
}

impl Library {
    /// Opens the library in `config.home`, creating it (with its default folder) if needed.
    pub fn open(config: LibraryConfig) -> Result<Library, Error> {
        let home = &config.home;
        for dir in [home.clone(), home.join("files"), home.join("indexes")] {
            std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        }
        let catalog = Catalog::open(&home.join("library.sqlite"))?;
        // A search keeps one descriptor open per document it has searched.
        crate::search::raise_open_file_limit();
        let (events, _) = broadcast::channel(4096);
        Ok(Library {
            shared: Arc::new(Shared {
                files: FileStore::new(home.join("files")),
                dirs: IndexDirs::new(home.join("indexes")),
                catalog: Mutex::new(catalog),
                config,
                events,
                cancels: Mutex::new(HashMap::new()),
                wake: Notify::new(),
                models: Mutex::new(None),
                chat_model: Mutex::new(None),
                search_cache: IndexCache::default(),
                fields: Fields::new()?,
                search_threads: std::thread::available_parallelism().map_or(1, |n| n.get().min(4)),
            }),
        })
    }

    pub fn config(&self) -> &LibraryConfig {
        &self.shared.config
    }

    /// Subscribes to indexing events from this process.
    pub fn subscribe(&self) -> broadcast::Receiver<IndexEvent> {
        self.shared.events.subscribe()
    }

    /// The models, loaded on first use (folder and document commands never need them).
    pub fn models(&self) -> Result<Arc<Models>, Error> {
        let mut slot = lock(&self.shared.models);
        if let Some(models) = slot.as_ref() {
            return Ok(models.clone());
        }
        let config = &self.shared.config;
        let minilm_dir = config.models_dir.join(MINILM_DIR);
        // Chunks are counted in MiniLM tokens whichever model embeds them.
        let tokenizer_path = minilm_dir.join("tokenizer.json");
        if !tokenizer_path.is_file() {
            return Err(EmbedError::ModelMissing {
                dir: minilm_dir,
                file: "tokenizer.json".into(),
            }
            .into());
        }
        let tokenizer = tokenizer_for_batches(&tokenizer_path)?;
        let embedder: Box<dyn Embedder> = match &config.embedder {
            EmbedderConfig::MiniLm => Box::new(MiniLm::load(&minilm_dir)?),
            EmbedderConfig::Http {
                api,
                url,
                model,
                api_key,
            } => Box::new(HttpEmbedder::connect(*api, url, model, api_key.clone(), None)?),
        };
        let models = Arc::new(Models {
            embedder,
            chunker: Chunker::new(tokenizer, config.chunker),
        });
        *slot = Some(models.clone());
        Ok(models)
    }

    /// The indexes kept open for search.
    pub fn search_cache(&self) -> &IndexCache {
        &self.shared.search_cache
    }

    pub(crate) fn catalog(&self) -> MutexGuard<'_, Catalog> {
        lock(&self.shared.catalog)
    }

    pub(crate) fn files(&self) -> &FileStore {
        &self.shared.files
    }

    pub(crate) fn dirs(&self) -> &IndexDirs {
        &self.shared.dirs
    }

    pub(crate) fn emit(&self, event: IndexEvent) {
        // No subscriber is not an error.
        let _ = self.shared.events.send(event);
    }

    pub(crate) fn wake(&self) -> &Notify {
        &self.shared.wake
    }

    pub(crate) fn cancels(&self) -> MutexGuard<'_, HashMap<DocumentId, Arc<AtomicBool>>> {
        lock(&self.shared.cancels)
    }
}

/// Locks a mutex, recovering the data if a panicking thread poisoned it (every critical section
/// here leaves the data consistent: the catalog is transactional).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
