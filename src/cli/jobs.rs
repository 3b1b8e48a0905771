//! `lectern jobs`: add files as an indexing job and follow it by id, from this process or any
//! other (the job and its log are in the catalog), and pause, resume or cancel it.

use std::process::ExitCode;
use std::time::Duration;

use lectern::{Error, Job, JobEvent, JobState, Library};

use super::args::JobsCommand;
use super::output::{format_time, json};
use super::progress::spawn_background_indexer;

/// How often `tail` looks for new entries.
const FOLLOW: Duration = Duration::from_millis(250);

/// How many entries one look reads at most.
const BATCH: usize = 500;

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
            } else if jobs.is_empty() {
                println!("no jobs yet (`lectern jobs add` starts one)");
            }
            for job in jobs.iter().filter(|_| !flag.json) {
                println!(
                    "{}\t{}\t{}\t{}/{} done, {} failed, {} left\t{}",
                    job.id,
                    job.state.as_str(),
                    format_time(job.created_at),
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
        format_time(job.created_at),
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
        // Whether it had ended is read before its entries: an entry written before the end
        // is then among them.
        let ended = library.job(&id.0)?.state.ended();
        let events = library.job_events(&id, after, BATCH)?;
        for event in &events {
            print_event(event, as_json);
            after = event.id;
        }
        if events.len() == BATCH {
            continue;
        }
        if ended {
            let job = library.job(&id.0)?;
            if !as_json {
                show(&job);
            }
            let failed = job.state == JobState::Cancelled || job.failed > 0;
            return Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS });
        }
        tokio::time::sleep(FOLLOW).await;
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
        format_time(event.at),
        event.level.as_str(),
        event.message
    );
}
