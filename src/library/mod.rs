//! [`Library`]: the one type a client needs, and only a facade. It holds the engine
//! (`engine/`: catalog, files, indexes, models, events) and exposes every operation the CLI and
//! the desktop app offer, handing the work to the part that does it: the indexer (`jobs/`), the
//! watcher (`watch/`), the query path (`search/`), answers (`answer/`). Cloning is cheap; clones
//! share everything.

mod ask;
mod choices;
mod documents;
mod folders;
mod links;
mod models;
mod search;
mod settings;
mod status;

use std::sync::Arc;

use tokio::sync::broadcast;

use crate::config::LibraryConfig;
use crate::engine::{Engine, IndexEvent, Models};
use crate::error::Error;
use crate::index::IndexCache;
use crate::jobs::{IndexRun, RunMode};

pub use ask::{AskOutcome, AskRequest};
pub use choices::{AskChoices, AskPlan};
pub use documents::{ImportFailure, ImportReport};
pub use models::ModelEntry;
pub use settings::{Settings, MAX_K};
pub use status::LibraryStatus;

/// An open library.
#[derive(Clone)]
pub struct Library {
    engine: Arc<Engine>,
}

impl Library {
    /// Opens the library in `config.home`, creating it (with its default folder) if needed.
    pub fn open(config: LibraryConfig) -> Result<Library, Error> {
        Ok(Library {
            engine: Arc::new(Engine::open(config)?),
        })
    }

    pub fn config(&self) -> &LibraryConfig {
        self.engine.config()
    }

    /// Subscribes to indexing events from this process.
    pub fn subscribe(&self) -> broadcast::Receiver<IndexEvent> {
        self.engine.subscribe()
    }

    /// The models, loaded on first use (folder and document commands never need them).
    pub fn models(&self) -> Result<Arc<Models>, Error> {
        self.engine.models()
    }

    /// The indexes kept open for search.
    pub fn search_cache(&self) -> &IndexCache {
        self.engine.open_indexes()
    }

    /// Becomes this library's indexer, reconciles, and indexes queued documents as `mode` says
    /// ([`RunMode`]: until idle, or for ever, waiting for the indexer role if another process has it).
    pub async fn run_indexer(&self, mode: RunMode) -> Result<IndexRun, Error> {
        crate::jobs::run(&self.engine, mode).await
    }
}
