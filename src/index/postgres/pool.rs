//! The store's connections: opened on its runtime when needed, kept for the next caller when
//! given back whole, and closed when broken.

use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use tokio::runtime::Handle;
use tokio_postgres::Client;

use crate::database::{ConnectError, Server};
use crate::index::IndexError;

/// How many idle connections are kept.
const IDLE: usize = 8;

/// Connections to one database.
pub struct Pool {
    server: Server,
    runtime: Handle,
    idle: Mutex<Vec<Client>>,
}

impl Pool {
    pub fn new(server: Server, runtime: Handle) -> Pool {
        Pool {
            server,
            runtime,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Host, port and database, for messages.
    pub fn server(&self) -> &str {
        &self.server.name
    }

    /// A connection: an idle one, or a new one.
    pub async fn get(&self) -> Result<Pooled<'_>, IndexError> {
        while let Some(client) = self.lock().pop() {
            if !client.is_closed() {
                return Ok(Pooled {
                    pool: self,
                    client: Some(client),
                });
            }
        }
        let client = match self.server.connect(&self.runtime).await {
            Ok(client) => client,
            Err(ConnectError::Refused(e)) => return Err(self.failed("connect")(e)),
            Err(ConnectError::Setup(reason)) => {
                return Err(IndexError::DatabaseSetup {
                    server: self.server.name.clone(),
                    reason,
                })
            }
        };
        Ok(Pooled {
            pool: self,
            client: Some(client),
        })
    }

    /// Wraps a database error with what was being done.
    pub fn failed(&self, what: &'static str) -> impl Fn(tokio_postgres::Error) -> IndexError + '_ {
        move |source| IndexError::database(self.server.name.clone(), what, source)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Client>> {
        self.idle.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A connection lent by the pool, given back when dropped.
pub struct Pooled<'p> {
    pool: &'p Pool,
    client: Option<Client>,
}

impl Deref for Pooled<'_> {
    type Target = Client;

    fn deref(&self) -> &Client {
        match &self.client {
            Some(client) => client,
            None => unreachable!("a pooled connection is taken only when dropped"),
        }
    }
}

impl DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut Client {
        match &mut self.client {
            Some(client) => client,
            None => unreachable!("a pooled connection is taken only when dropped"),
        }
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            let mut idle = self.pool.lock();
            if !client.is_closed() && idle.len() < IDLE {
                idle.push(client);
            }
        }
    }
}
