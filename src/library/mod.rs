//! [`Library`]: the one type a client needs, and only a facade. It holds the engine
//! (`engine/`: catalog, files, indexes, models, events) and exposes every operation the CLI and
//! the desktop app offer, handing the work to the part that does it: the indexer (`jobs/`), the
//! watcher (`watch/`), the question's path (`ask/`), search (`search/`), answers (`answer/`). Cloning is cheap; clones
//! share everything.

mod access;
mod ask;
mod choices;
mod context;
mod documents;
mod export;
mod folders;
mod jobs;
mod links;
mod models;
mod remotes;
mod restore;
mod search;
mod settings;
mod starters;
mod status;
mod strategy;

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::ask::Asker;
use crate::config::LibraryConfig;
use crate::embed::Embedder;
use crate::engine::{Engine, IndexEvent};
use crate::error::Error;
use crate::index::IndexCache;
use crate::jobs::{IndexRun, RunMode};

pub use access::{Access, TOKEN_FILE};
pub use ask::AskOutcome;
pub use choices::{AskAt, AskChoices, AskPlan};
pub use context::{ContextPassage, ContextRequest, ContextWindow};
pub use documents::{ImportFailure, ImportReport};
pub use export::Exported;
pub use jobs::{JobLogPage, JOB_LOG_POLL, LISTED_JOBS};
pub use models::ModelEntry;
pub use remotes::AddedRemote;
pub use restore::{restore_catalog, Restored, RECOVERED_FOLDER};
pub use settings::{Settings, MAX_K};
pub use status::LibraryStatus;

/// An open library.
#[derive(Clone)]
pub struct Library {
    engine: Arc<Engine>,
    /// The question's path (`ask/`).
    asker: Asker,
}

impl Library {
    /// Opens the library in `config.home`, creating it (with its default folder) if needed.
    pub fn open(config: LibraryConfig) -> Result<Library, Error> {
        let engine = Arc::new(Engine::open(config)?);
        Ok(Library {
            asker: Asker::new(engine.clone()),
            engine,
        })
    }

    pub fn config(&self) -> &LibraryConfig {
        self.engine.config()
    }

    /// Subscribes to indexing events from this process.
    pub fn subscribe(&self) -> broadcast::Receiver<IndexEvent> {
        self.engine.subscribe()
    }

    /// The library's embedder, loaded on first use (folder and document commands never need it).
    pub fn embedder(&self) -> Result<Arc<dyn Embedder>, Error> {
        self.engine.embedder()
    }

    /// The identity of the library's embedder ([`Embedder::id`]), which every index's vectors
    /// must have been made by to be searched by meaning; known without loading the model.
    pub fn embedder_id(&self) -> Result<String, Error> {
        self.engine.embedder_id()
    }

    /// Brings the library's wide index (the index over every document that searches of many
    /// documents go through) in line with the documents' indexes, building it once the library is
    /// large enough: what the indexer does after each step.
    pub fn keep_wide_index(&self) -> Result<crate::index::Kept, Error> {
        crate::jobs::keep_wide_index(&self.engine)
    }

    /// The indexes kept open for search.
    pub fn search_cache(&self) -> &IndexCache {
        self.engine.local_store().cache()
    }

    /// Becomes this library's indexer, reconciles, and indexes queued documents as `mode` says
    /// ([`RunMode`]: until idle, or for ever, waiting for the indexer role if another process has it).
    pub async fn run_indexer(&self, mode: RunMode) -> Result<IndexRun, Error> {
        crate::jobs::run(&self.engine, mode).await
    }
}
