//! Indexing jobs: the files one call added, followed by id until every one of them is indexed
//! or has failed. A job lives in the catalog, so it outlives the process that started it, and
//! its log (`job_events`) is made of its own entries (what was imported, what was refused, how
//! it ended) and a copy of each of its documents' log entries, made by a trigger on the
//! documents' log while the job runs (migration 14), so that no writer of a document's log can
//! forget its jobs. Event ids only grow, so a client that saw event N asks for what came after N.

use super::sql::args;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{now_millis, Catalog, CatalogError, DocumentId, LogLevel};

/// A job's id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobId(pub String);

impl JobId {
    fn new_random() -> JobId {
        JobId(format!("job-{}", Uuid::new_v4().simple()))
    }
}

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Its documents are read and embedded as the indexer gets to them.
    Running,
    /// None of its documents is started until it is resumed (one being read goes on).
    Paused,
    /// Stopped by hand: the documents it had not read were not indexed.
    Cancelled,
    /// Every document of it is indexed or has failed.
    Done,
}

impl JobState {
    /// Its name, as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Running => "running",
            JobState::Paused => "paused",
            JobState::Cancelled => "cancelled",
            JobState::Done => "done",
        }
    }

    fn parse(s: &str) -> JobState {
        match s {
            "paused" => JobState::Paused,
            "cancelled" => JobState::Cancelled,
            "done" => JobState::Done,
            _ => JobState::Running,
        }
    }

    /// Whether the job has ended (done or cancelled).
    pub fn ended(self) -> bool {
        matches!(self, JobState::Cancelled | JobState::Done)
    }
}

/// A job and how far it has come.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: JobId,
    /// The folder its documents were added to.
    pub folder: String,
    /// Who started it: "library", a token's name, or "cli".
    pub holder: String,
    pub state: JobState,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    pub ended_at: Option<i64>,
    /// Its documents (files already in the folder included; deleted ones no longer count).
    pub documents: u64,
    /// Documents searchable by meaning and by keyword.
    pub done: u64,
    /// Files refused at import and documents that failed (a damaged PDF, a scan without OCR, a
    /// missing password).
    pub failed: u64,
    /// Documents waiting, being read, or searchable by keyword and still being embedded.
    pub left: u64,
    /// Of `left`, those already searchable by keyword.
    pub searchable: u64,
    /// Pages of its documents indexed so far.
    pub pages: u64,
    /// Pages indexed per second since the job started (until it ended).
    pub pages_per_second: f64,
}

/// One entry of a job's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobEvent {
    /// Grows with every entry of every job: what a client saw last.
    pub id: i64,
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    pub level: LogLevel,
    /// The document it is about, if any.
    pub document: Option<DocumentId>,
    pub message: String,
}

/// How long a job's files may take to be added before it is ended as if they were.
const ADDING_GRACE_MILLIS: i64 = 60 * 60 * 1000;

/// The counts of a job's documents, by where they stand.
const COUNTS: &str = "SELECT COUNT(d.id),
        CAST(COALESCE(SUM(CASE WHEN d.status = 'ready' AND d.embedded_with IS NOT NULL THEN 1 ELSE 0 END), 0) AS BIGINT),
        CAST(COALESCE(SUM(CASE WHEN d.status IN ('failed', 'needs_ocr', 'needs_password') THEN 1 ELSE 0 END), 0) AS BIGINT),
        CAST(COALESCE(SUM(CASE WHEN d.status IN ('queued', 'indexing') OR (d.status = 'ready' AND d.embedded_with IS NULL)
            THEN 1 ELSE 0 END), 0) AS BIGINT),
        CAST(COALESCE(SUM(CASE WHEN d.status = 'ready' AND d.embedded_with IS NULL THEN 1 ELSE 0 END), 0) AS BIGINT),
        CAST(COALESCE(SUM(CASE WHEN d.status = 'ready' THEN COALESCE(d.page_count, 0) ELSE 0 END), 0) AS BIGINT)
    FROM job_documents j JOIN documents d ON d.id = j.document_id WHERE j.job_id = ?1";

impl Catalog {
    /// Starts a job adding files to `folder` for `holder`; no indexer ends it for having nothing
    /// left to do until its files are added ([`Catalog::job_added`]).
    pub fn create_job(&self, folder: &str, holder: &str) -> Result<JobId, CatalogError> {
        let id = JobId::new_random();
        self.db.execute(
            "INSERT INTO jobs (id, folder, holder, created_at, state, adding) VALUES (?1, ?2, ?3, ?4, 'running', ?5)",
            args![id.0, folder, holder, now_millis(), true],
        )?;
        Ok(id)
    }

    /// Every file of `job` was added: from now on it ends when nothing is left to do.
    pub fn job_added(&self, job: &JobId) -> Result<(), CatalogError> {
        self.db
            .execute("UPDATE jobs SET adding = ?2 WHERE id = ?1", args![&job.0, false])?;
        Ok(())
    }

    /// Makes `document` one of `job`'s; from now on its log entries are the job's too.
    pub fn add_to_job(&self, job: &JobId, document: DocumentId) -> Result<(), CatalogError> {
        self.db.execute(
            "INSERT INTO job_documents (job_id, document_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            args![job.0, document.to_string()],
        )?;
        Ok(())
    }

    /// Copies `document`'s log so far into `job`'s (for a document added to it as it was made).
    pub fn copy_log_to_job(&self, job: &JobId, document: DocumentId) -> Result<(), CatalogError> {
        self.db.transaction(|| {
            self.db.execute(
                "INSERT INTO job_events (job_id, at, level, document_id, message)
                 SELECT CAST(?1 AS TEXT), at, level, document_id, message FROM document_log WHERE document_id = ?2 ORDER BY id",
                args![job.0, document.to_string()],
            )
        })?;
        Ok(())
    }

    /// Adds an entry of the job's own to its log.
    pub fn job_event(
        &self,
        job: &JobId,
        level: LogLevel,
        document: Option<DocumentId>,
        message: &str,
    ) -> Result<(), CatalogError> {
        // Under the write lock, as the documents' log is (`log.rs`).
        self.db.transaction(|| {
            self.db.execute(
                "INSERT INTO job_events (job_id, at, level, document_id, message) VALUES (?1, ?2, ?3, ?4, ?5)",
                args![
                    job.0,
                    now_millis(),
                    level.as_str(),
                    document.map(|d| d.to_string()),
                    message
                ],
            )
        })?;
        Ok(())
    }

    /// Counts a file `job` could not import.
    pub fn job_rejected(&self, job: &JobId, reason: &str) -> Result<(), CatalogError> {
        self.db
            .execute("UPDATE jobs SET rejected = rejected + 1 WHERE id = ?1", args![&job.0])?;
        self.job_event(job, LogLevel::Error, None, reason)
    }

    /// The job with this id.
    pub fn job(&self, id: &JobId) -> Result<Job, CatalogError> {
        let row = self.db.query_opt(
            "SELECT folder, holder, created_at, state, ended_at, rejected FROM jobs WHERE id = ?1",
            args![&id.0],
            |r| {
                Ok((
                    r.get::<String>(0)?,
                    r.get::<String>(1)?,
                    r.get::<i64>(2)?,
                    r.get::<String>(3)?,
                    r.get::<Option<i64>>(4)?,
                    r.get::<i64>(5)?,
                ))
            },
        )?;
        let Some((folder, holder, created_at, state, ended_at, rejected)) = row else {
            return Err(CatalogError::JobNotFound(id.0.clone()));
        };
        let counts: [i64; 6] = self.db.query_one(COUNTS, args![&id.0], |r| {
            Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?])
        })?;
        let [documents, done, failed, left, searchable, pages] = counts.map(|n| n.max(0) as u64);
        let seconds = (ended_at.unwrap_or_else(now_millis) - created_at).max(1) as f64 / 1000.0;
        Ok(Job {
            id: id.clone(),
            folder,
            holder,
            state: JobState::parse(&state),
            created_at,
            ended_at,
            documents,
            done,
            failed: failed + rejected.max(0) as u64,
            left,
            searchable,
            pages,
            pages_per_second: pages as f64 / seconds,
        })
    }

    /// The job `id` names: its whole id, or the only one that starts with it.
    pub fn job_named(&self, id: &str) -> Result<Job, CatalogError> {
        let wanted = id.trim();
        let ids: Vec<String> = self.db.query(
            "SELECT id FROM jobs WHERE id = ?1 OR (?1 <> '' AND substr(id, 1, length(CAST(?1 AS TEXT))) = ?1)",
            args![wanted],
            |r| r.get(0),
        )?;
        match <[String; 1]>::try_from(ids) {
            Ok([id]) => self.job(&JobId(id)),
            Err(ids) if ids.iter().any(|i| i == wanted) => self.job(&JobId(wanted.to_string())),
            Err(_) => Err(CatalogError::JobNotFound(wanted.to_string())),
        }
    }

    /// The latest `limit` jobs, newest first.
    pub fn jobs(&self, limit: usize) -> Result<Vec<Job>, CatalogError> {
        let ids: Vec<String> = self.db.query(
            "SELECT id FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT ?1",
            args![limit],
            |r| r.get(0),
        )?;
        ids.into_iter().map(|id| self.job(&JobId(id))).collect()
    }

    /// The entries of `job`'s log after the entry `after` (0: from the start), oldest first, at
    /// most `limit` of them.
    pub fn job_events(&self, job: &JobId, after: i64, limit: usize) -> Result<Vec<JobEvent>, CatalogError> {
        self.db.query(
            "SELECT id, at, level, document_id, message FROM job_events
             WHERE job_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
            args![&job.0, after, limit],
            |r| {
                Ok(JobEvent {
                    id: r.get(0)?,
                    at: r.get(1)?,
                    level: LogLevel::parse(&r.get::<String>(2)?),
                    document: r.get::<Option<String>>(3)?.and_then(|d| d.parse().ok()),
                    message: r.get(4)?,
                })
            },
        )
    }

    /// Pauses or resumes a job that has not ended; returns it as it is now.
    pub fn set_job_paused(&self, id: &JobId, paused: bool) -> Result<Job, CatalogError> {
        let (from, to) = if paused {
            (JobState::Running, JobState::Paused)
        } else {
            (JobState::Paused, JobState::Running)
        };
        let changed = self.db.execute(
            "UPDATE jobs SET state = ?1 WHERE id = ?2 AND state = ?3",
            args![to.as_str(), id.0, from.as_str()],
        )?;
        if changed > 0 {
            let said = if paused { "Paused" } else { "Resumed" };
            self.job_event(id, LogLevel::Info, None, said)?;
        }
        self.job(id)
    }

    /// The documents of `job` not yet read: waiting or being read.
    pub fn unread_job_documents(&self, job: &JobId) -> Result<Vec<DocumentId>, CatalogError> {
        let ids = self.db.query(
            "SELECT d.id FROM job_documents j JOIN documents d ON d.id = j.document_id
             WHERE j.job_id = ?1 AND d.status IN ('queued', 'indexing') ORDER BY d.added_at, d.id",
            args![&job.0],
            |r| r.get::<String>(0),
        )?;
        Ok(ids.into_iter().filter_map(|id| id.parse().ok()).collect())
    }

    /// Ends a job that has not ended as `state` (done or cancelled), with `message` as its last
    /// log entry. Returns whether it ended now.
    /// The two are one transaction: a reader that sees the job ended sees its last entry.
    pub fn end_job(&self, id: &JobId, state: JobState, message: &str) -> Result<bool, CatalogError> {
        self.locked(|catalog| {
            let ended = catalog.db.execute(
                "UPDATE jobs SET state = ?1, ended_at = ?2 WHERE id = ?3 AND ended_at IS NULL",
                args![state.as_str(), now_millis(), id.0],
            )? > 0;
            if ended {
                catalog.job_event(id, LogLevel::Info, None, message)?;
            }
            Ok(ended)
        })
    }

    /// Ends, as done, every job with nothing left to do, each with a last entry saying how it
    /// went. Called by the indexer after each step and when it starts, and when a job starts.
    pub fn settle_jobs(&self) -> Result<(), CatalogError> {
        // A job whose files are being added has nothing left to do only until they are; one
        // whose adder died long ago is over.
        let open: Vec<String> = self.db.query(
            "SELECT id FROM jobs WHERE ended_at IS NULL AND (NOT adding OR created_at < ?1)",
            args![now_millis() - ADDING_GRACE_MILLIS],
            |r| r.get(0),
        )?;
        for id in open.into_iter().map(JobId) {
            let job = self.job(&id)?;
            if job.left == 0 {
                let message = format!(
                    "Done: {} of {} document(s) indexed, {} failed, {} page(s)",
                    job.done, job.documents, job.failed, job.pages
                );
                self.end_job(&id, JobState::Done, &message)?;
            }
        }
        Ok(())
    }

    /// Whether `document` belongs to a paused job (and so is not to be started).
    pub fn in_paused_job(&self, document: DocumentId) -> Result<bool, CatalogError> {
        self.db.query_one(
            "SELECT EXISTS (SELECT 1 FROM job_documents j JOIN jobs ON jobs.id = j.job_id
             WHERE j.document_id = ?1 AND jobs.state = 'paused')",
            args![document.to_string()],
            |r| r.get(0),
        )
    }
}
