//! Indexing jobs (`catalog/jobs.rs`): files added in one call, followed by id by whoever started
//! them (`lectern jobs`, `/v1/jobs`, the MCP tools), paused, resumed or cancelled. The indexer that
//! reads their documents may run in another process; a job is only rows in the catalog.

use std::path::PathBuf;
use std::time::Duration;

use super::Access;
use super::Library;
use crate::catalog::{CatalogError, Job, JobEvent, JobId, JobState, LogLevel};
use crate::error::Error;

/// How many jobs a listing shows unless told otherwise.
pub const LISTED_JOBS: usize = 50;

/// How often a follower of a job's log looks for new entries.
pub const JOB_LOG_POLL: Duration = Duration::from_millis(250);

/// How many entries of a job's log one look reads at most.
const LOG_PAGE: usize = 500;

/// What one look at a job's log found.
pub struct JobLogPage {
    /// The entries after the one asked from, oldest first.
    pub events: Vec<JobEvent>,
    /// More entries are there to read at once.
    pub more: bool,
    /// The job, when it had ended before these entries were read and they are its last:
    /// nothing follows them.
    pub ended: Option<Job>,
}

impl Library {
    /// Starts a job adding the PDFs at `paths` (files, or directories searched recursively) to
    /// the folder at `folder`, for `holder` ("cli", "library" or a token's name). The files are
    /// copied into the library before it returns; this library's indexer, whichever process runs
    /// it, reads them after. Files already in the folder are the job's too, as they stand.
    pub fn start_job(&self, paths: &[PathBuf], folder: &str, holder: &str) -> Result<Job, Error> {
        let (folder, job) = {
            let catalog = self.engine.catalog();
            let folder = catalog.folder_by_path(folder)?.path;
            let job = catalog.create_job(&folder, holder)?;
            (folder, job)
        };
        let report = match self.engine.import_for_job(paths, &folder, &job) {
            Ok(report) => report,
            Err(e) => {
                let catalog = self.engine.catalog();
                catalog.job_added(&job)?;
                catalog.settle_jobs()?;
                return Err(e);
            }
        };
        let catalog = self.engine.catalog();
        for doc in &report.already_present {
            catalog.add_to_job(&job, doc.id)?;
            let message = format!("Already in {folder}: {} ({})", doc.file_name, doc.status.as_str());
            catalog.job_event(&job, LogLevel::Info, Some(doc.id), &message)?;
        }
        for failure in &report.failed {
            let message = format!("Not added: {}: {}", failure.path.display(), failure.reason);
            catalog.job_rejected(&job, &message)?;
        }
        if report.ignored > 0 {
            let message = format!("Passed over {} file(s) that are not PDFs", report.ignored);
            catalog.job_event(&job, LogLevel::Info, None, &message)?;
        }
        catalog.job_added(&job)?;
        catalog.settle_jobs()?;
        Ok(catalog.job(&job)?)
    }

    /// The job `id` names (its whole id or a prefix only it has), as it stands.
    pub fn job(&self, id: &str) -> Result<Job, Error> {
        Ok(self.engine.catalog().job_named(id)?)
    }

    /// The job `id` names for `access`: one in a folder it does not see is not found, as one
    /// that does not exist.
    pub fn job_seen_by(&self, access: &Access, id: &str) -> Result<Job, Error> {
        let job = self.job(id)?;
        if !access.sees_path(&job.folder) {
            return Err(CatalogError::JobNotFound(id.to_string()).into());
        }
        Ok(job)
    }

    /// The latest `limit` jobs, newest first.
    pub fn jobs(&self, limit: usize) -> Result<Vec<Job>, Error> {
        Ok(self.engine.catalog().jobs(limit)?)
    }

    /// The entries of a job's log after entry `after` (0: all), oldest first, at most `limit`.
    pub fn job_events(&self, id: &JobId, after: i64, limit: usize) -> Result<Vec<JobEvent>, Error> {
        Ok(self.engine.catalog().job_events(id, after, limit)?)
    }

    /// The next page of a job's log after entry `after`, as `lectern jobs tail` and
    /// `/v1/jobs/ID/log` follow it.
    pub fn job_log_page(&self, id: &JobId, after: i64) -> Result<JobLogPage, Error> {
        let catalog = self.engine.catalog();
        // Whether it had ended is read before its entries: an entry written before the end
        // (in the same transaction as the end itself) is then among them.
        let job = catalog.job(id)?;
        let events = catalog.job_events(id, after, LOG_PAGE)?;
        let more = events.len() == LOG_PAGE;
        let ended = (job.state.ended() && !more).then_some(job);
        Ok(JobLogPage { events, more, ended })
    }

    /// Starts none of the job's documents until [`Library::resume_job`]; one being read goes on.
    pub fn pause_job(&self, id: &JobId) -> Result<Job, Error> {
        Ok(self.engine.catalog().set_job_paused(id, true)?)
    }

    /// Lets a paused job go on.
    pub fn resume_job(&self, id: &JobId) -> Result<Job, Error> {
        let job = self.engine.catalog().set_job_paused(id, false)?;
        self.engine.wake().notify_one();
        Ok(job)
    }

    /// Stops a job: its documents not yet read are not indexed (they end failed, to be indexed
    /// again by hand); those read stay. A job that has ended is left as it is.
    pub fn cancel_job(&self, id: &JobId) -> Result<Job, Error> {
        let unread = {
            let catalog = self.engine.catalog();
            let job = catalog.job(id)?;
            if job.state.ended() {
                return Ok(job);
            }
            catalog.unread_job_documents(id)?
        };
        for &doc in &unread {
            self.engine.cancel_indexing(doc)?;
        }
        let catalog = self.engine.catalog();
        let message = format!("Cancelled: {} document(s) not read", unread.len());
        catalog.end_job(id, JobState::Cancelled, &message)?;
        Ok(catalog.job(id)?)
    }
}
