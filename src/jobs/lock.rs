//! The indexer lock: one process at a time builds indexes for a library. On disk it is an
//! advisory `flock` on `indexer.lock`, released by the kernel when the process dies, however it
//! dies; for a library in a database, where the processes may be on different machines, it is
//! a session-level advisory lock on a connection of its own, released by the server when the
//! connection ends, so that a process that dies hands the role to another within moments. That
//! connection may end while the process lives (the server restarted, the network failed), and
//! the lock with it: before each publication the indexer confirms it still holds the lock, takes
//! it again if nobody else took it meanwhile, and gives up the role if somebody did. Each taking
//! begins a term (a number in the database, raised each time) and a publication carries its
//! indexer's: the database refuses one of an older term, and a term cannot begin while a
//! publication is under way, so that two indexers never publish at once, even when a lock is
//! lost between the confirmation and the publication.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Mutex;

use crate::catalog::CatalogError;
use crate::database::Runtime;
use crate::error::Error;

/// The advisory lock the indexer of a library in a database holds (an arbitrary key, the same
/// in every process).
const INDEXER_LOCK: i64 = 0x6c65_6374_6572_6e04;

/// How long the connection holding a database's lock has to answer a check.
const CHECK: std::time::Duration = std::time::Duration::from_secs(10);

/// Held while this process is the library's indexer: the locked file, or the connection
/// holding the database's lock (with the runtime driving it).
pub struct IndexerLock {
    _file: Option<File>,
    held: Option<Held>,
}

/// The database's lock: where the database is, and the connection holding the lock, with the
/// term it began.
struct Held {
    url: String,
    connection: Mutex<Locked>,
}

/// A connection holding the database's lock (with the runtime driving it), and the term its
/// taking began.
struct Locked {
    client: tokio_postgres::Client,
    runtime: Runtime,
    term: i64,
}

impl IndexerLock {
    /// Takes the lock of the library in `home`, or in the database at `database_url` if it has
    /// one; `None` if another process holds it.
    pub fn try_acquire(home: &Path, database_url: Option<&str>) -> Result<Option<IndexerLock>, Error> {
        match database_url {
            Some(url) => in_database(url),
            None => in_file(&home.join("indexer.lock")),
        }
    }

    /// Confirms that this process still holds the lock, as it must before it publishes, and
    /// says the term to publish in (`None` in a file: its lock cannot be lost). A database's lock
    /// is lost with its connection, and is then taken again, in a new term, if no other process
    /// took it meanwhile. [`Error::IndexerBusy`] if one did; the database's error if it cannot
    /// be reached.
    pub fn confirm(&self) -> Result<Option<i64>, Error> {
        let Some(held) = &self.held else {
            return Ok(None);
        };
        let mut connection = held
            .connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Locked { client, runtime, term } = &*connection;
        // The session's lock lives as long as its connection: one that answers (in moments: a
        // network that drops packets must not hold every step here) still holds it.
        let answers = !client.is_closed()
            && runtime
                .run(async { tokio::time::timeout(CHECK, client.simple_query("select 1")).await })
                .is_ok_and(|answer| answer.is_ok());
        if answers {
            return Ok(Some(*term));
        }
        match lock_in_database(&held.url)? {
            Some(again) => {
                let term = again.term;
                *connection = again;
                Ok(Some(term))
            }
            None => Err(Error::IndexerBusy),
        }
    }
}

fn in_file(path: &Path) -> Result<Option<IndexerLock>, Error> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(Error::io(path))?;
    // SAFETY: flock on a file descriptor we own; no memory is shared with the kernel.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(Some(IndexerLock {
            _file: Some(file),
            held: None,
        }));
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(None)
    } else {
        Err(Error::io(path)(err))
    }
}

fn in_database(url: &str) -> Result<Option<IndexerLock>, Error> {
    Ok(lock_in_database(url)?.map(|connection| IndexerLock {
        _file: None,
        held: Some(Held {
            url: url.to_string(),
            connection: Mutex::new(connection),
        }),
    }))
}

/// A new connection to the database at `url` holding the indexer's lock, in a new term, if no
/// other holds it.
fn lock_in_database(url: &str) -> Result<Option<Locked>, Error> {
    let (client, server, runtime) = crate::database::connect(url).map_err(CatalogError::from)?;
    // The server lets the lock go when it finds the connection dead: a machine that stopped
    // answering is found out within half a minute, not the system's two hours.
    let term: Option<i64> = runtime
        .run(async {
            client
                .batch_execute(
                    "set tcp_keepalives_idle = 15; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3",
                )
                .await?;
            let taken: bool = client
                .query_one("select pg_try_advisory_lock($1)", &[&INDEXER_LOCK])
                .await?
                .get(0);
            if !taken {
                return Ok(None);
            }
            // Waits for the publications of the term before to end (`index/postgres/publish.rs`),
            // for a while: one whose machine stopped answering holds its transaction until the
            // server finds the connection dead. Meanwhile the lock is not taken (the connection,
            // dropped, lets it go), and the next look tries again.
            client.batch_execute("set lock_timeout = '30s'").await?;
            match client
                .query_one("update indexer_term set term = term + 1 returning term", &[])
                .await
            {
                Ok(row) => Ok(Some(row.get(0))),
                Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE) => Ok(None),
                Err(e) => Err(e),
            }
        })
        .map_err(|source| CatalogError::database(server, source))?;
    Ok(term.map(|term| Locked { client, runtime, term }))
}
