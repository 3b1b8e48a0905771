//! Indexing jobs (`catalog/jobs.rs`, `library/jobs.rs`, `serve/jobs.rs`): files added as one job are followed by id to the end, with their log; a paused
//! job starts nothing until resumed and a cancelled one reads no more; over `lectern serve` a job
//! started by path or upload is followed as server-sent events, and a client that reconnects
//! after the server was killed and started again, with the last event id it saw, loses nothing.

use std::io::{BufRead, BufReader};

use std::time::{Duration, Instant};

use lectern::{JobState, Library};
use reqwest::blocking::Client;
use serde_json::{json, Value};

use crate::common::{index_all, library, serve, write_text_pdf};

/// Writes `n` one-page PDFs, each about its own subject, into `dir`.
fn write_pdfs(dir: &std::path::Path, n: usize) {
    for i in 0..n {
        let line = format!("Report {i} on the harbour's tide tables and the keeper's log");
        write_text_pdf(&dir.join(format!("report-{i:02}.pdf")), &[&line]);
    }
}

fn messages(library: &Library, id: &lectern::JobId) -> Vec<String> {
    library
        .job_events(id, 0, 1000)
        .unwrap()
        .into_iter()
        .map(|e| e.message)
        .collect()
}

#[test]
fn a_job_is_followed_by_id_until_every_file_is_indexed_or_has_failed() {
    let t = library();
    let dir = tempfile::tempdir().unwrap();
    write_pdfs(dir.path(), 2);
    std::fs::write(dir.path().join("notes.txt"), "not a PDF").unwrap();
    std::fs::write(dir.path().join("broken.pdf"), b"%PDF-1.7\n1 0 obj << /Type /Catalog").unwrap();
    let missing = dir.path().join("gone.pdf");

    let job = t
        .start_job(
            &[dir.path().to_path_buf(), missing],
            lectern::catalog::DEFAULT_FOLDER,
            "cli",
        )
        .unwrap();
    assert_eq!(job.state, JobState::Running);
    assert!(job.left >= 2, "{job:?}");
    // A prefix names it, as a document's does.
    assert_eq!(t.job(&job.id.0[..10]).unwrap().id, job.id);

    index_all(&t);
    let done = t.job(&job.id.0).unwrap();
    assert_eq!(done.state, JobState::Done, "{done:?}");
    assert_eq!((done.done, done.failed, done.left), (2, 2, 0), "{done:?}");
    assert_eq!(done.pages, 2);
    assert!(done.ended_at.is_some() && done.pages_per_second > 0.0, "{done:?}");

    let log = t.job_events(&job.id, 0, 1000).unwrap();
    assert!(log.windows(2).all(|w| w[0].id < w[1].id), "{log:?}");
    let said = messages(&t, &job.id);
    for expected in [
        "Added from",
        "Not added",
        "gone.pdf",
        "Passed over 1 file(s)",
        "Ready",
        "Done: 2 of",
    ] {
        assert!(said.iter().any(|m| m.contains(expected)), "{expected:?} in {said:#?}");
    }
    // The broken file fails at import or at reading: either way the job counts it.
    let last = said.last().unwrap();
    assert!(
        last.starts_with("Done: 2 of") && last.contains(", 2 failed"),
        "{said:#?}"
    );
    // What came after an entry a client saw, and nothing before it.
    let seen = log[2].id;
    let rest = t.job_events(&job.id, seen, 1000).unwrap();
    assert_eq!(rest, log[3..].to_vec());

    // Adding the same files again: a job of documents already there, done at once.
    let again = t
        .start_job(&[dir.path().to_path_buf()], lectern::catalog::DEFAULT_FOLDER, "cli")
        .unwrap();
    assert_eq!(again.state, JobState::Done, "{again:?}");
    assert!(messages(&t, &again.id).iter().any(|m| m.starts_with("Already in")));
    assert_eq!(t.jobs(10).unwrap()[0].id, again.id);
}

#[test]
fn a_paused_job_starts_nothing_until_resumed_and_a_cancelled_one_reads_no_more() {
    let t = library();
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    write_text_pdf(&a.path().join("a.pdf"), &["The first job's only page"]);
    write_text_pdf(&b.path().join("b.pdf"), &["The second job's only page"]);
    write_text_pdf(&c.path().join("c.pdf"), &["The third job's only page"]);
    let folder = lectern::catalog::DEFAULT_FOLDER;
    let first = t.start_job(&[a.path().to_path_buf()], folder, "cli").unwrap();
    let second = t.start_job(&[b.path().to_path_buf()], folder, "cli").unwrap();
    assert_eq!(t.pause_job(&first.id).unwrap().state, JobState::Paused);

    index_all(&t);
    let paused = t.job(&first.id.0).unwrap();
    assert_eq!(
        (paused.state, paused.done, paused.left),
        (JobState::Paused, 0, 1),
        "{paused:?}"
    );
    assert_eq!(t.job(&second.id.0).unwrap().state, JobState::Done);

    assert_eq!(t.resume_job(&first.id).unwrap().state, JobState::Running);
    index_all(&t);
    let resumed = t.job(&first.id.0).unwrap();
    assert_eq!((resumed.state, resumed.done), (JobState::Done, 1), "{resumed:?}");
    let said = messages(&t, &first.id);
    assert!(
        said.contains(&"Paused".to_string()) && said.contains(&"Resumed".to_string()),
        "{said:#?}"
    );

    let third = t.start_job(&[c.path().to_path_buf()], folder, "cli").unwrap();
    let cancelled = t.cancel_job(&third.id).unwrap();
    assert_eq!(
        (cancelled.state, cancelled.failed, cancelled.left),
        (JobState::Cancelled, 1, 0)
    );
    index_all(&t);
    let doc = t
        .documents(Some(folder), false)
        .unwrap()
        .into_iter()
        .find(|d| d.file_name == "c.pdf")
        .unwrap();
    assert_eq!(doc.status, lectern::DocumentStatus::Failed, "{doc:?}");
    assert_eq!(
        messages(&t, &third.id).last().unwrap(),
        "Cancelled: 1 document(s) not read"
    );
    // An ended job stays as it ended.
    assert_eq!(t.cancel_job(&first.id).unwrap().state, JobState::Done);
}

/// Reads a job's log as server-sent events, from after `last` (sent as `Last-Event-ID`), until
/// `stop` says so or the stream ends: the ids of the `log` events, and the `end` event's job.
fn follow(
    http: &Client,
    base: &str,
    token: &str,
    job: &str,
    last: Option<i64>,
    stop: impl Fn(&Value) -> bool,
) -> (Vec<i64>, Option<Value>) {
    let mut request = http.get(format!("{base}/jobs/{job}/log")).bearer_auth(token);
    if let Some(last) = last {
        request = request.header("Last-Event-ID", last.to_string());
    }
    let reply = request.send().unwrap();
    assert_eq!(reply.status(), 200);
    let (mut ids, mut event, mut id) = (Vec::new(), String::new(), None);
    for line in BufReader::new(reply).lines() {
        let line = line.unwrap();
        if let Some(value) = line.strip_prefix("event: ") {
            event = value.to_string();
        } else if let Some(value) = line.strip_prefix("id: ") {
            id = value.parse().ok();
        } else if let Some(data) = line.strip_prefix("data: ") {
            if event == "end" {
                return (ids, Some(serde_json::from_str(data).unwrap()));
            }
            if event == "log" {
                ids.push(id.unwrap());
                let entry: Value = serde_json::from_str(data).unwrap();
                assert_eq!(entry["id"], json!(id.unwrap()));
                if stop(&entry) {
                    return (ids, None);
                }
            }
        }
    }
    (ids, None)
}

#[test]
fn a_job_over_http_is_followed_across_a_restart_of_the_server_and_loses_no_event() {
    let t = library();
    t.create_folder("Team").unwrap();
    t.create_folder("Private").unwrap();
    let token = t.api_token().unwrap();
    let (_, limited) = t.create_api_token("colleague", &["Team".to_string()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_pdfs(dir.path(), 12);
    let home = t.home.path().to_path_buf();
    let http = Client::builder().timeout(Duration::from_secs(300)).build().unwrap();

    let (mut server, base) = serve(&home, &[]);
    let started: Value = http
        .post(format!("{base}/jobs"))
        .bearer_auth(&token)
        .json(&json!({ "folder": "Team", "paths": [dir.path()] }))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(started["object"], "job", "{started}");
    assert_eq!(started["documents"], 12, "{started}");
    let job = started["id"].as_str().unwrap().to_string();

    // The server dies under the client once the first document is read, the others not yet.
    let read = |entry: &Value| entry["message"].as_str().unwrap().starts_with("Ready");
    let (first, ended) = follow(&http, &base, &token, &job, None, read);
    assert!(ended.is_none() && first.len() >= 13, "{first:?}");
    server.kill().unwrap();
    server.wait().unwrap();
    let killed = t.job(&job).unwrap();
    assert!(
        killed.done < 12 && killed.left > 0,
        "the server was killed part way: {killed:?}"
    );

    let (mut server, base) = serve(&home, &[]);
    let (rest, ended) = follow(&http, &base, &token, &job, first.last().copied(), |_| false);
    let ended = ended.expect("the log ends with the job");
    assert_eq!(ended["state"], "done", "{ended}");
    assert_eq!(ended["done"], 12, "{ended}");

    // Every entry of the job's log, once, in order: nothing lost across the restart.
    let seen: Vec<i64> = first.iter().chain(&rest).copied().collect();
    let all: Vec<i64> = t
        .job_events(&lectern::JobId(job.clone()), 0, 10_000)
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(seen, all);

    let show: Value = http
        .get(format!("{base}/jobs/{job}"))
        .bearer_auth(&token)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(
        (show["state"].as_str(), show["left"].as_u64()),
        (Some("done"), Some(0)),
        "{show}"
    );

    // A token limited to a folder uploads into it, may not add the server's files by path,
    // and sees no job outside its folder.
    let pdf = lectern::pdf::text_pdf(&["An uploaded note on the tide"]);
    let upload = http
        .post(format!("{base}/jobs/upload?folder=Team&name=note.pdf"))
        .bearer_auth(&limited)
        .header("Content-Type", "application/pdf")
        .body(pdf.clone())
        .send()
        .unwrap();
    assert_eq!(upload.status(), 201);
    let uploaded: Value = upload.json().unwrap();
    assert_eq!(uploaded["documents"], 1, "{uploaded}");
    let by_path = http
        .post(format!("{base}/jobs"))
        .bearer_auth(&limited)
        .json(&json!({ "folder": "Team", "paths": [dir.path()] }))
        .send()
        .unwrap();
    assert_eq!(by_path.status(), 403);
    let elsewhere = http
        .post(format!("{base}/jobs/upload?folder=Private&name=note.pdf"))
        .bearer_auth(&limited)
        .body(pdf)
        .send()
        .unwrap();
    assert_eq!(elsewhere.status(), 404);
    let private: Value = http
        .post(format!("{base}/jobs/upload?folder=Private&name=mine.pdf"))
        .bearer_auth(&token)
        .body(lectern::pdf::text_pdf(&["A private note"]))
        .send()
        .unwrap()
        .json()
        .unwrap();
    let hidden = http
        .get(format!("{base}/jobs/{}", private["id"].as_str().unwrap()))
        .bearer_auth(&limited)
        .send()
        .unwrap();
    assert_eq!(hidden.status(), 404);
    let listed: Value = http
        .get(format!("{base}/jobs"))
        .bearer_auth(&limited)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert!(
        listed["data"].as_array().unwrap().iter().all(|j| j["folder"] == "Team"),
        "{listed}"
    );

    // The uploaded note is indexed by the server and can be searched.
    let deadline = Instant::now() + Duration::from_secs(120);
    let upload_id = uploaded["id"].as_str().unwrap();
    while t.job(upload_id).unwrap().state != JobState::Done {
        assert!(Instant::now() < deadline, "the upload was not indexed");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(!std::fs::read_dir(&home).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".upload-")));
    server.kill().unwrap();
    server.wait().unwrap();
}
