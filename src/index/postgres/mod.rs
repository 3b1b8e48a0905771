//! The PostgreSQL store: every document's passages, keyword postings and vectors (pgvector) in
//! one database, so that any number of processes on any number of machines search the same
//! indexes. The schema is versioned (`schema.rs`); a document is published in one transaction
//! (`publish.rs`); a question reads one snapshot of its scope, keyword lists scored by BM25 with
//! the scope's statistics summed in SQL and vector lists by exact cosine (`scope.rs`).
//!
//! The store owns a small runtime that drives its connections, so that its synchronous search
//! side can be called from any thread, inside another runtime or not.

mod bm25;
mod pool;
mod publish;
mod schema;
mod scope;
mod vector;

use std::collections::HashMap;
use std::future::Future;

use futures::future::BoxFuture;

use super::store::{DocumentIndex, IndexStore, Publication, ScopeSearch, Wanted};
use super::{IndexError, Manifest};
use crate::catalog::{DocumentId, ScopedDocument};
use crate::database::{Runtime, Unreached};
use pool::Pool;

/// The passages in scope past which a vector list is read from the HNSW index, by default.
const EXACT_LIMIT: i64 = 50_000;

/// The indexes of a library in a PostgreSQL database with pgvector.
pub struct PgStore {
    pool: Pool,
    /// Past this many passages in a question's scope, its vector list is read from the HNSW
    /// index of their dimension (approximate, as the local store's int8 candidates are) rather
    /// than by reading every one.
    exact_limit: i64,
    /// Drives the connections.
    runtime: Runtime,
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user[:password]@host[:port]/database`) and
    /// brings its schema up to date.
    pub fn connect(url: &str) -> Result<PgStore, IndexError> {
        let (server, runtime) = crate::database::start(url).map_err(|unreached| match unreached {
            Unreached::Setup { server, reason } => IndexError::DatabaseSetup { server, reason },
            Unreached::Refused { server, source } => IndexError::database(server, "connect", source),
        })?;
        let store = PgStore {
            pool: Pool::new(server, runtime.handle().clone()),
            exact_limit: EXACT_LIMIT,
            runtime,
        };
        store.run(async { schema::migrate(&mut *store.pool.get().await?, store.pool.server()).await })?;
        Ok(store)
    }

    /// This store, reading vector lists from the HNSW index past `passages` passages in scope
    /// (50,000 by default).
    pub fn with_exact_limit(mut self, passages: i64) -> PgStore {
        self.exact_limit = passages;
        self
    }

    /// The manifests of the published indexes of `ids`, read in one query (a library's start
    /// compares them with its indexes on disk).
    pub async fn published_of(&self, ids: &[DocumentId]) -> Result<HashMap<DocumentId, Manifest>, IndexError> {
        publish::published_of(&self.pool, ids).await
    }

    /// Where the database is, for messages: host, port and database, no password.
    pub fn server(&self) -> &str {
        self.pool.server()
    }

    /// Runs `future` to its end from synchronous code, on the store's runtime.
    pub fn run<T: Send>(&self, future: impl Future<Output = T> + Send) -> T {
        self.runtime.run(future)
    }
}

impl IndexStore for PgStore {
    fn publish<'a>(&'a self, publication: Publication<'a>) -> BoxFuture<'a, Result<(), IndexError>> {
        Box::pin(publish::publish(&self.pool, publication))
    }

    fn delete(&self, id: DocumentId) -> BoxFuture<'_, Result<(), IndexError>> {
        Box::pin(publish::delete(&self.pool, id))
    }

    fn published(&self, id: DocumentId) -> BoxFuture<'_, Result<Option<Manifest>, IndexError>> {
        Box::pin(publish::published(&self.pool, id))
    }

    fn read_back(&self, id: DocumentId) -> BoxFuture<'_, Result<Option<DocumentIndex>, IndexError>> {
        Box::pin(publish::read_back(&self.pool, id))
    }

    fn open<'s>(
        &'s self,
        docs: &[ScopedDocument],
        wanted: &Wanted<'_>,
    ) -> Result<Box<dyn ScopeSearch + 's>, IndexError> {
        let scope = self.run(scope::PgScope::open(self, docs, wanted))?;
        Ok(Box::new(scope))
    }

    fn warm(&self, docs: &[ScopedDocument]) -> usize {
        // Nothing is opened per document; the database keeps what it reads in its own cache.
        docs.len()
    }

    fn forget(&self, _id: DocumentId) {}
}
