//! Indexing jobs over HTTP: `POST /v1/jobs` adds files on this machine (by path, for the
//! library's own token only: a token limited to folders must not read the server's other files)
//! and `POST /v1/jobs/upload` one uploaded PDF, each into a folder the token sees; `GET
//! /v1/jobs[/ID]` says how they stand, `GET /v1/jobs/ID/log` streams a job's log as server-sent
//! events until it ends, each event's id its entry's, so a client that reconnects with
//! `Last-Event-ID` (or `?after=`) gets what came after; `POST /v1/jobs/ID/{pause,resume,cancel}`.
//! A job is in the catalog: it goes on, and its log can be followed, across a restart.

use std::convert::Infallible;
use std::path::PathBuf;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::{Extension, Json};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::error::Body;
use super::scope::logged;
use super::{blocking, ApiError, Served};
use lectern::catalog::Job;
use lectern::{Access, ErrorCode, Library, JOB_LOG_POLL};

/// The largest PDF one upload may hold.
pub const MAX_UPLOAD: usize = 512 << 20;

/// A job's reply.
fn job_json(job: &Job) -> Value {
    let mut value = json!(job);
    value["object"] = json!("job");
    value
}

/// The reply to a job started, logged under its folder.
fn created(job: &Job) -> impl IntoResponse {
    (
        StatusCode::CREATED,
        logged(format!("folder {}", job.folder)),
        Json(job_json(job)),
    )
}

/// What a job adds: files and directories on the server's machine, into a folder.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobBody {
    folder: String,
    paths: Vec<PathBuf>,
}

/// The folder at `path`, if `access` sees it (one it does not see is not found).
fn check_folder(library: &Library, access: &Access, path: &str) -> Result<String, ApiError> {
    match library.folder(path.trim().trim_matches('/')) {
        Ok(folder) if access.sees(&folder) => Ok(folder.path),
        Err(e) if e.code() != ErrorCode::NotFound => Err(e.into()),
        _ => Err(ApiError::no_such_folder(path)),
    }
}

/// Starts a job adding the files at `paths` on this machine to `folder`: for the whole
/// library's access only (a token limited to folders must not read the server's other files).
pub fn start_by_path(library: &Library, access: &Access, paths: &[PathBuf], folder: &str) -> Result<Job, ApiError> {
    if access.folders.is_some() {
        return Err(ApiError::forbidden(
            "only the library's own token may add files by their path on the server; upload them (POST /v1/jobs/upload)",
        ));
    }
    if paths.is_empty() {
        return Err(ApiError::invalid("paths is empty: name a file or directory to add"));
    }
    let folder = check_folder(library, access, folder)?;
    Ok(library.start_job(paths, &folder, &access.holder)?)
}

/// `POST /v1/jobs`: adds the files at `paths` on this machine to `folder`.
pub async fn create(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Body(body): Body<JobBody>,
) -> Result<impl IntoResponse, ApiError> {
    let library = served.library.clone();
    let job = blocking(move || start_by_path(&library, &access, &body.paths, &body.folder)).await?;
    Ok(created(&job))
}

/// Where an upload goes, and its name.
#[derive(Deserialize)]
pub struct UploadQuery {
    folder: String,
    name: Option<String>,
}

/// `POST /v1/jobs/upload?folder=F&name=N`: adds the PDF in the body to `folder` as `name`.
pub async fn upload(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Query(query): Query<UploadQuery>,
    pdf: Bytes,
) -> Result<impl IntoResponse, ApiError> {
    if pdf.is_empty() {
        return Err(ApiError::invalid("the body is empty: send the PDF's bytes"));
    }
    let name = query
        .name
        .as_deref()
        .and_then(|n| std::path::Path::new(n).file_name())
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "upload.pdf".into());
    let library = served.library.clone();
    let holder = access.holder.clone();
    let job = blocking(move || {
        let folder = check_folder(&library, &access, &query.folder)?;
        let dir = UploadDir::new(&library.config().home)?;
        let path = dir.0.join(&name);
        std::fs::write(&path, &pdf).map_err(lectern::Error::io(&path))?;
        Ok(library.start_job(&[path], &folder, &holder)?)
    })
    .await?;
    Ok(created(&job))
}

/// A directory in the data directory holding an upload until the library has copied it;
/// removed when dropped.
struct UploadDir(PathBuf);

impl UploadDir {
    fn new(home: &std::path::Path) -> Result<UploadDir, lectern::Error> {
        let dir = home.join(format!(".upload-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir(&dir).map_err(lectern::Error::io(&dir))?;
        Ok(UploadDir(dir))
    }
}

impl Drop for UploadDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `GET /v1/jobs`: the latest jobs in folders the token sees, newest first.
pub async fn list(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
) -> Result<impl IntoResponse, ApiError> {
    let library = served.library.clone();
    let jobs = blocking(move || Ok(library.jobs(lectern::LISTED_JOBS)?)).await?;
    let data: Vec<Value> = jobs
        .iter()
        .filter(|j| access.sees_path(&j.folder))
        .map(job_json)
        .collect();
    Ok((logged("jobs"), Json(json!({ "object": "list", "data": data }))))
}

/// `GET /v1/jobs/{id}`: how a job stands.
pub async fn show(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    let library = served.library.clone();
    let job = blocking(move || Ok(library.job_seen_by(&access, &id)?)).await?;
    Ok((logged(format!("job {}", job.id)), Json(job_json(&job))))
}

/// What a job is asked to do.
#[derive(Clone, Copy)]
pub enum Action {
    Pause,
    Resume,
    Cancel,
}

/// `POST /v1/jobs/{id}/{pause,resume,cancel}`.
pub async fn act(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Path((id, action)): Path<(String, String)>,
) -> Result<impl IntoResponse, ApiError> {
    let action = match action.as_str() {
        "pause" => Action::Pause,
        "resume" => Action::Resume,
        "cancel" => Action::Cancel,
        other => {
            return Err(ApiError::invalid(format!(
                "{other:?} is not something a job does: pause, resume or cancel"
            )))
        }
    };
    let library = served.library.clone();
    let job = blocking(move || {
        let job = library.job_seen_by(&access, &id)?;
        Ok(match action {
            Action::Pause => library.pause_job(&job.id)?,
            Action::Resume => library.resume_job(&job.id)?,
            Action::Cancel => library.cancel_job(&job.id)?,
        })
    })
    .await?;
    Ok((logged(format!("job {}", job.id)), Json(job_json(&job))))
}

/// Where a followed log starts.
#[derive(Deserialize)]
pub struct LogQuery {
    after: Option<i64>,
}

/// `GET /v1/jobs/{id}/log`: the job's log as server-sent events (`event: log`, the entry as
/// JSON, its id as the event's), from after `Last-Event-ID` or `?after=` (else the start), until
/// the job ends; then `event: end` with the job.
pub async fn log(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Path(id): Path<String>,
    Query(query): Query<LogQuery>,
    headers: HeaderMap,
) -> Result<impl IntoResponse, ApiError> {
    let last_seen = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok());
    let mut after = last_seen.or(query.after).unwrap_or(0);
    let library = served.library.clone();
    let job = {
        let library = library.clone();
        blocking(move || Ok(library.job_seen_by(&access, &id)?)).await?
    };
    let label = format!("job {}", job.id);
    let (out, mut sent) = mpsc::channel::<Event>(64);
    tokio::spawn(async move {
        loop {
            let (id, reader) = (job.id.clone(), library.clone());
            let page = match blocking(move || Ok(reader.job_log_page(&id, after)?)).await {
                Ok(page) => page,
                Err(e) => {
                    let _ = out
                        .send(Event::default().event("error").data(e.body().to_string()))
                        .await;
                    return;
                }
            };
            for event in &page.events {
                let sse = Event::default()
                    .id(event.id.to_string())
                    .event("log")
                    .data(json!(event).to_string());
                if out.send(sse).await.is_err() {
                    return;
                }
                after = event.id;
            }
            if let Some(job) = page.ended {
                let _ = out
                    .send(Event::default().event("end").data(job_json(&job).to_string()))
                    .await;
                return;
            }
            if !page.more {
                tokio::select! {
                    () = tokio::time::sleep(JOB_LOG_POLL) => {}
                    () = out.closed() => return,
                }
            }
        }
    });
    let stream = futures::stream::poll_fn(move |cx| sent.poll_recv(cx)).map(Ok::<_, Infallible>);
    Ok((logged(label), Sse::new(stream).keep_alive(KeepAlive::default())).into_response())
}
