//! What the catalog and the index store share about a PostgreSQL server: reading its URL, naming
//! it in messages without its password, connecting, and a small runtime of their own that drives
//! their connections, so that synchronous code on any thread (inside another runtime or not) can
//! wait for a query.

use std::future::Future;

use tokio_postgres::config::Host;
use tokio_postgres::{Client, Config, NoTls};

/// A database URL read: its configuration and how messages name it.
pub struct Server {
    pub config: Config,
    /// `host:port/database`, no user or password.
    pub name: String,
}

impl Server {
    /// Reads `url` (`postgres://user[:password]@host[:port]/database`); the error says how to
    /// write one.
    pub fn parse(url: &str) -> Result<Server, String> {
        let config: Config = url.parse().map_err(|e: tokio_postgres::Error| {
            format!("the URL cannot be read ({e}); write it as postgres://user@host:port/database")
        })?;
        Ok(Server {
            name: describe(&config),
            config,
        })
    }

    /// A new connection, driven by `runtime`.
    pub async fn connect(&self, runtime: &tokio::runtime::Handle) -> Result<Client, ConnectError> {
        let config = self.config.clone();
        let driver = runtime.clone();
        // Connected on the runtime, which then drives the connection.
        runtime
            .spawn(async move {
                let (client, connection) = config.connect(NoTls).await?;
                driver.spawn(connection);
                Ok(client)
            })
            .await
            .map_err(|e| ConnectError::Stopped(e.to_string()))?
            .map_err(ConnectError::Refused)
    }
}

/// Why a connection could not be made.
pub enum ConnectError {
    /// The server refused it or could not be reached.
    Refused(tokio_postgres::Error),
    /// The runtime stopped before it was made.
    Stopped(String),
}

/// Why a database cannot be used, and which (`host:port/database`, no password).
pub enum Unreached {
    /// The URL cannot be read, or no connection could be started.
    Setup { server: String, reason: String },
    /// The server refused a connection or could not be reached.
    Refused {
        server: String,
        source: tokio_postgres::Error,
    },
}

/// The database at `url`, and a runtime for its connections.
pub fn start(url: &str) -> Result<(Server, Runtime), Unreached> {
    let server = Server::parse(url).map_err(|reason| Unreached::Setup {
        server: "the database URL given".to_string(),
        reason,
    })?;
    let runtime = Runtime::new().map_err(|e| Unreached::Setup {
        server: server.name.clone(),
        reason: format!("its connections cannot be started: {e}"),
    })?;
    Ok((server, runtime))
}

/// One connection to the database at `url`, with its name and the runtime that drives it.
pub fn connect(url: &str) -> Result<(Client, String, Runtime), Unreached> {
    let (server, runtime) = start(url)?;
    let client = open(&server, &runtime)?;
    Ok((client, server.name, runtime))
}

/// A new connection to `server`, made from synchronous code and driven by `runtime`.
pub fn open(server: &Server, runtime: &Runtime) -> Result<Client, Unreached> {
    match runtime.run(server.connect(runtime.handle())) {
        Ok(client) => Ok(client),
        Err(ConnectError::Refused(source)) => Err(Unreached::Refused {
            server: server.name.clone(),
            source,
        }),
        Err(ConnectError::Stopped(reason)) => Err(Unreached::Setup {
            server: server.name.clone(),
            reason,
        }),
    }
}

/// How messages and the app name the database at `url`: `host:port/database`, never a password.
pub fn redacted(url: &str) -> String {
    Server::parse(url).map_or_else(|_| "the database URL given".to_string(), |server| server.name)
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

/// A one-worker runtime for a database's connections, shut down without waiting when dropped.
pub struct Runtime {
    /// `None` only while it is dropped.
    runtime: Option<tokio::runtime::Runtime>,
}

impl Runtime {
    pub fn new() -> std::io::Result<Runtime> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("lectern-postgres")
            .enable_all()
            .build()?;
        Ok(Runtime { runtime: Some(runtime) })
    }

    pub fn handle(&self) -> &tokio::runtime::Handle {
        self.runtime().handle()
    }

    /// Runs `future` to its end from synchronous code, on this runtime and on a thread of its
    /// own, so that it never blocks inside another runtime's task.
    pub fn run<T: Send>(&self, future: impl Future<Output = T> + Send) -> T {
        let runtime = self.runtime();
        std::thread::scope(|s| {
            s.spawn(|| runtime.block_on(future))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        match self.runtime.as_ref() {
            Some(runtime) => runtime,
            None => unreachable!("the runtime is taken only when dropped"),
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // Dropping a runtime waits for its tasks, which an async caller may not do.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
