//! Each document's log: what happened to it and when (added, moved, read, ready, embedded,
//! failed and why), in words, for the app's info panel and `lectern doc log`. A document keeps
//! its latest entries only.

use super::sql::args;
use serde::{Deserialize, Serialize};

use super::{now_millis, Catalog, CatalogError, DocumentId};

/// How many entries a document keeps.
const KEPT: i64 = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    Info,
    Warning,
    Error,
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Info => "info",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
        }
    }

    pub(super) fn parse(s: &str) -> LogLevel {
        match s {
            "warning" => LogLevel::Warning,
            "error" => LogLevel::Error,
            _ => LogLevel::Info,
        }
    }
}

/// One entry of a document's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LogEntry {
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    pub level: LogLevel,
    pub message: String,
}

impl Catalog {
    /// Adds an entry to a document's log, dropping the oldest beyond the ones kept.
    /// Under the write lock, as every writer of a log is: entries are numbered in the order they
    /// are committed, so that a reader that saw entry N misses none before it (a job's log
    /// copies these by a trigger, and is read from after the last entry a client saw).
    pub fn log(&self, id: DocumentId, level: LogLevel, message: &str) -> Result<(), CatalogError> {
        let id = id.to_string();
        self.db.transaction(|| {
            self.db.execute(
                "INSERT INTO document_log (document_id, at, level, message) VALUES (?1, ?2, ?3, ?4)",
                args![id, now_millis(), level.as_str(), message],
            )?;
            self.db.execute(
                "DELETE FROM document_log WHERE document_id = ?1 AND id <= (
                     SELECT id FROM document_log WHERE document_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
                args![id, KEPT],
            )?;
            Ok(())
        })
    }

    /// A document's log, oldest first.
    pub fn document_log(&self, id: DocumentId) -> Result<Vec<LogEntry>, CatalogError> {
        self.db.query(
            "SELECT at, level, message FROM document_log WHERE document_id = ?1 ORDER BY id",
            args![id.to_string()],
            |r| {
                Ok(LogEntry {
                    at: r.get(0)?,
                    level: LogLevel::parse(&r.get::<String>(1)?),
                    message: r.get(2)?,
                })
            },
        )
    }
}
