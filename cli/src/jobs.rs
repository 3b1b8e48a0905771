//! `lectern jobs`: add files as an indexing job and follow it by id, from this process or any
//! other (the job and its log are in the catalog), and pause, resume or cancel it.

use std::process::ExitCode;

use lectern::{Error, Job, JobEvent, JobState, Library};

use super::args::JobsCommand;
use super::output::json;
use super::progress::spawn_background_indexer;
use lectern::dates::utc;

pub async fn run(library: &Library, command: JobsCommand) -> Result<ExitCode, Error> {
    match command {
        JobsCommand::Add(args) => {
            let job = library.start_job(&args.paths, &args.folder, "cli")?;
            if !job.state.ended() {
                spawn_background_indexer(library)?;
            }
            if args.json {
                json(&job);
            } else {
                show(&job);
                println!("follow it with `lectern jobs tail {}`", job.id);
            }
        }
        JobsCommand::Ls(flag) => {
            let jobs = library.jobs(lectern::LISTED_JOBS)?;
            if flag.json {
                json(&jobs);
                return Ok(ExitCode::SUCCESS);
            }
            if jobs.is_empty() {
                println!("no jobs yet (`lectern jobs add` starts one)");
            }
            for job in &jobs {
                println!(
                    "{}\t{}\t{}\t{}/{} done, {} failed, {} left\t{}",
                    job.id,
                    job.state.as_str(),
                    utc(job.created_at),
                    job.done,
                    job.documents,
                    job.failed,
                    job.left,
                    job.folder
                );
            }
        }
        JobsCommand::Show { id, json: as_json } => {
            let job = library.job(&id)?;
            if as_json {
                json(&job);
            } else {
                show(&job);
            }
        }
        JobsCommand::Tail { id, after, json } => return tail(library, &id, after, json).await,
        JobsCommand::Pause { id } => show(&library.pause_job(&library.job(&id)?.id)?),
        JobsCommand::Resume { id } => show(&library.resume_job(&library.job(&id)?.id)?),
        JobsCommand::Cancel { id } => show(&library.cancel_job(&library.job(&id)?.id)?),
    }
    Ok(ExitCode::SUCCESS)
}

fn show(job: &Job) {
    println!(
        "{}  {}  into \"{}\"  started {} by {}",
        job.id,
        job.state.as_str(),
        job.folder,
        utc(job.created_at),
        job.holder
    );
    println!(
        "  {} document(s): {} done, {} failed, {} left ({} of them searchable by keyword)",
        job.documents, job.done, job.failed, job.left, job.searchable
    );
    println!("  {} page(s) indexed, {:.1} pages/s", job.pages, job.pages_per_second);
}

/// Prints the job's log after entry `after` as it grows, until the job ends; fails (exit code
/// 1) when the job was cancelled or a document of it failed.
async fn tail(library: &Library, id: &str, mut after: i64, as_json: bool) -> Result<ExitCode, Error> {
    let id = library.job(id)?.id;
    loop {
        let page = library.job_log_page(&id, after)?;
        for event in &page.events {
            print_event(event, as_json);
            after = event.id;
        }
        if let Some(job) = page.ended {
            if !as_json {
                show(&job);
            }
            let failed = job.state == JobState::Cancelled || job.failed > 0;
            return Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS });
        }
        if !page.more {
            tokio::time::sleep(lectern::JOB_LOG_POLL).await;
        }
    }
}

fn print_event(event: &JobEvent, as_json: bool) {
    if as_json {
        if let Ok(line) = serde_json::to_string(event) {
            println!("{line}");
        }
        return;
    }
    let document = event
        .document
        .map(|d| format!(" [{}]", &d.to_string()[..8]))
        .unwrap_or_default();
    println!(
        "#{} {} {}{document} {}",
        event.id,
        utc(event.at),
        event.level.as_str(),
        event.message
    );
}
