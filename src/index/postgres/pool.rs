//! The store's connections: opened on its runtime when needed, kept for the next caller when
//! given back whole, and closed when broken.

use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use tokio::runtime::Handle;
use tokio_postgres::config::Host;
use tokio_postgres::{Client, Config, NoTls};

use crate::index::IndexError;

/// How many idle connections are kept.
const IDLE: usize = 8;

/// Connections to one database.
pub struct Pool {
    config: Config,
    server: String,
    runtime: Handle,
    idle: Mutex<Vec<Client>>,
}

impl Pool {
    pub fn new(config: Config, runtime: Handle) -> Pool {
        Pool {
            server: describe(&config),
            config,
            runtime,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Host, port and database, for messages.
    pub fn server(&self) -> &str {
        &self.server
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
        let config = self.config.clone();
        let runtime = self.runtime.clone();
        // Connected on the store's runtime, which then drives the connection.
        let connected = self
            .runtime
            .spawn(async move {
                let (client, connection) = config.connect(NoTls).await?;
                runtime.spawn(connection);
                Ok::<_, tokio_postgres::Error>(client)
            })
            .await
            .map_err(|e| IndexError::DatabaseSetup {
                server: self.server.clone(),
                reason: format!("connecting stopped: {e}"),
            })?;
        let client = connected.map_err(self.failed("connect"))?;
        Ok(Pooled {
            pool: self,
            client: Some(client),
        })
    }

    /// Wraps a database error with what was being done.
    pub fn failed(&self, what: &'static str) -> impl Fn(tokio_postgres::Error) -> IndexError + '_ {
        move |source| IndexError::Database {
            server: self.server.clone(),
            what,
            source,
        }
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

/// `host:port/database` of `config`, without user or password.
pub fn describe(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(name)) => name.clone(),
        Some(Host::Unix(path)) => path.display().to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!("{host}:{port}/{}", config.get_dbname().unwrap_or("postgres"))
}
