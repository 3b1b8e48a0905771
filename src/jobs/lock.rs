//! The indexer lock: one process at a time builds indexes for a library. On disk it is an
//! advisory `flock` on `indexer.lock`, released by the kernel when the process dies, however it
//! dies; for a library in a database, where the processes may be on different machines, it is
//! a session-level advisory lock on a connection of its own, released by the server when the
//! connection ends, so that a process that dies hands the role to another within moments.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::Path;

use crate::catalog::CatalogError;
use crate::database::Runtime;
use crate::error::Error;

/// The advisory lock the indexer of a library in a database holds (an arbitrary key, the same
/// in every process).
const INDEXER_LOCK: i64 = 0x6c65_6374_6572_6e04;

/// Held while this process is the library's indexer: the locked file, or the connection
/// holding the database's lock (with the runtime driving it).
pub struct IndexerLock {
    _file: Option<File>,
    _connection: Option<Box<(tokio_postgres::Client, Runtime)>>,
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
            _connection: None,
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
    let (client, server, runtime) = crate::database::connect(url).map_err(CatalogError::from)?;
    // The server lets the lock go when it finds the connection dead: a machine that stopped
    // answering is found out within half a minute, not the system's two hours.
    let taken: bool = runtime
        .run(async {
            client
                .batch_execute(
                    "set tcp_keepalives_idle = 15; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3",
                )
                .await?;
            client
                .query_one("select pg_try_advisory_lock($1)", &[&INDEXER_LOCK])
                .await
        })
        .map_err(|source| CatalogError::Database { server, source })?
        .get(0);
    Ok(taken.then(|| IndexerLock {
        _file: None,
        _connection: Some(Box::new((client, runtime))),
    }))
}
