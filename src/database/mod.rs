//! What the catalog and the index store share about a PostgreSQL server: reading its URL, naming
//! it in messages without its password, connecting (over verified TLS where the URL asks for it,
//! `tls.rs`), telling a server that went away from one that refused a statement, and a small
//! runtime of their own that drives their connections, so that synchronous code on any thread
//! (inside another runtime or not) can wait for a query.

mod tls;

use std::future::Future;
use std::sync::{Arc, OnceLock};

use tokio_postgres::config::{Host, SslMode};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, Config, NoTls};

/// How long a connection attempt may take, unless the URL says (`connect_timeout`).
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// A database URL read: its configuration and how messages name it.
pub struct Server {
    pub config: Config,
    /// `host:port/database`, no user or password.
    pub name: String,
    /// Where the authorities its certificate must chain to come from.
    roots: tls::Roots,
    /// The TLS configuration, made at the first connection that may use TLS.
    tls: OnceLock<Result<Arc<rustls::ClientConfig>, String>>,
}

impl Server {
    /// Reads `url` (`postgres://user[:password]@host[:port]/database[?sslmode=…&sslrootcert=…]`);
    /// the error says how to write one.
    pub fn parse(url: &str) -> Result<Server, String> {
        let (url, roots) = tls::split_url(url);
        let mut config: Config = url.parse().map_err(|e: tokio_postgres::Error| {
            format!("the URL cannot be read ({e}); write it as postgres://user@host:port/database")
        })?;
        // A server that does not answer (a machine gone, a network that drops packets) is given
        // up on in moments rather than at the system's TCP timeout, minutes later.
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        Ok(Server {
            name: describe(&config),
            config,
            roots,
            tls: OnceLock::new(),
        })
    }

    /// A new connection, driven by `runtime`: in clear text only where the URL's `sslmode` allows
    /// it, encrypted and verified otherwise.
    pub async fn connect(&self, runtime: &tokio::runtime::Handle) -> Result<Client, ConnectError> {
        let config = self.config.clone();
        let tls = match config.get_ssl_mode() {
            SslMode::Disable => None,
            _ => Some(tls::Tls(
                self.tls
                    .get_or_init(|| tls::client_config(&self.roots))
                    .clone()
                    .map_err(ConnectError::Setup)?,
            )),
        };
        let driver = runtime.clone();
        // Connected on the runtime, which then drives the connection.
        let connected = runtime
            .spawn(async move {
                match tls {
                    Some(tls) => {
                        let (client, connection) = config.connect(tls).await?;
                        driver.spawn(connection);
                        Ok(client)
                    }
                    None => {
                        let (client, connection) = config.connect(NoTls).await?;
                        driver.spawn(connection);
                        Ok(client)
                    }
                }
            })
            .await
            .map_err(|e| ConnectError::Setup(format!("connecting stopped: {e}")))?;
        connected.map_err(|e| match tls::distrust(&e) {
            Some(hint) => ConnectError::Setup(format!(
                "its certificate is not one this machine trusts ({}): {hint}",
                said(&e)
            )),
            None => ConnectError::Refused(e),
        })
    }
}

/// Why a connection could not be made.
pub enum ConnectError {
    /// The server refused it or could not be reached.
    Refused(tokio_postgres::Error),
    /// It could not be attempted, or the server's certificate is not trusted: why, and what to do.
    Setup(String),
}

/// Whether `error` says the server went away or cannot be reached (it restarted, shut down, ended
/// the connection, or the network failed) rather than that it refused what was asked: what comes
/// right again by itself, so that work waits for the server instead of failing.
pub fn went_away(error: &tokio_postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    match error.code() {
        Some(code) => {
            let code = code.code();
            // Class 08: connection exception (but a protocol violation is what was sent); 57P01-57P03:
            // shut down, crashed, starting up.
            (code.starts_with("08") && code != SqlState::PROTOCOL_VIOLATION.code())
                || [
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                ]
                .iter()
                .any(|state| state.code() == code)
        }
        // No answer from the server: the connection or the network failed.
        None => std::error::Error::source(error).is_some_and(|source| source.is::<std::io::Error>()),
    }
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

/// `error` with what caused it: tokio-postgres says only "error performing TLS handshake" or
/// "error communicating with the server", and keeps the why in its source.
pub fn said(error: &tokio_postgres::Error) -> String {
    let mut said = error.to_string();
    let mut next = std::error::Error::source(error);
    while let Some(cause) = next {
        said = format!("{said}: {cause}");
        next = cause.source();
    }
    said
}

/// Whether `error`, or an error that caused it, is a database's that went away ([`went_away`]).
pub fn away_in(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(e) = next {
        if e.downcast_ref::<tokio_postgres::Error>().is_some_and(went_away) {
            return true;
        }
        next = e.source();
    }
    false
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
        Err(ConnectError::Setup(reason)) => Err(Unreached::Setup {
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
