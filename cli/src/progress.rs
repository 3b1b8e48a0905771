//! `lectern add` and friends: queue documents, then index them here with a progress bar per file,
//! or follow another process's indexing through the catalog, or hand them to a background process.

use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use lectern::jobs::{next_event, IndexEvent, RunMode};
use lectern::{Document, DocumentId, DocumentStatus, Error, Library};
use serde::Serialize;

use super::args::AddArgs;
use super::output;

/// How often the catalog is read when another process is the indexer.
const POLL: Duration = Duration::from_millis(300);

pub async fn add(library: &Library, args: AddArgs) -> Result<ExitCode, Error> {
    let report = library.add(&args.paths, &args.folder)?;
    let code = if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if !args.json {
        for failure in &report.failed {
            eprintln!("skipped {}: {}", failure.path.display(), failure.reason);
        }
        for doc in &report.already_present {
            println!("{} is already in {} (same content)", doc.file_name, args.folder);
        }
        if report.ignored > 0 {
            println!("passed over {} file(s) that are not PDFs", report.ignored);
        }
    }
    if args.no_wait {
        if !report.added.is_empty() {
            spawn_background_indexer(library)?;
        }
        if args.json {
            output::json(&report);
        } else {
            println!(
                "queued {} document(s); they are indexed in the background (`lectern status` shows progress)",
                report.added.len()
            );
        }
        return Ok(code);
    }
    let finished = index_and_follow(library, &report.added, !args.json).await?;
    if args.json {
        #[derive(Serialize)]
        struct Added<'a> {
            #[serde(flatten)]
            report: &'a lectern::ImportReport,
            documents: Vec<Document>,
        }
        output::json(&Added {
            report: &report,
            documents: finished,
        });
    }
    Ok(code)
}

/// Indexes (or follows the indexing of) `docs` with progress bars, then prints why any is not ready.
pub async fn index_and_show(library: &Library, docs: &[Document]) -> Result<ExitCode, Error> {
    index_and_follow(library, docs, true).await?;
    Ok(ExitCode::SUCCESS)
}

async fn index_and_follow(library: &Library, docs: &[Document], show: bool) -> Result<Vec<Document>, Error> {
    if docs.is_empty() {
        return Ok(Vec::new());
    }
    let bars = Bars::new(docs, show);
    let mut events = library.subscribe();
    let indexer = {
        let library = library.clone();
        tokio::spawn(async move { library.run_indexer(RunMode::UntilIdle).await })
    };
    tokio::pin!(indexer);
    let outcome = loop {
        tokio::select! {
            Some(event) = next_event(&mut events) => bars.on_event(&event),
            joined = &mut indexer => break joined.map_err(Error::stopped("the indexer"))?,
        }
    };
    // Why this process's run left documents waiting, or another process's indexer holds them.
    let mut held = None;
    match outcome {
        Ok(run) => held = run.held,
        Err(Error::IndexerBusy) => loop {
            // Another process indexes; follow it through the catalog.
            let current: Vec<Document> = docs
                .iter()
                .filter_map(|d| library.document(&d.id.to_string()).ok())
                .collect();
            for d in &current {
                bars.on_catalog(d);
            }
            // A paused library's queue waits for `lectern index resume`, a held one for space
            // on its disk, not for this process.
            if current.iter().all(|d| d.status.is_settled())
                || library.indexing_paused()?
                || library.indexing_held()?.is_some()
            {
                break;
            }
            tokio::time::sleep(POLL).await;
        },
        Err(e) => {
            bars.abandon();
            return Err(e);
        }
    }
    let finished: Vec<Document> = docs
        .iter()
        .filter_map(|d| library.document(&d.id.to_string()).ok())
        .collect();
    for d in &finished {
        bars.on_catalog(d);
    }
    if show {
        for d in finished.iter().filter(|d| d.status != DocumentStatus::Ready) {
            println!("{}: {}", d.file_name, d.reason.as_deref().unwrap_or(d.status.as_str()));
        }
        if finished.iter().any(|d| d.status == DocumentStatus::Queued) {
            if library.indexing_paused()? {
                println!("indexing is paused; `lectern index resume` goes on");
            }
            if let Some(held) = held.or(library.indexing_held()?) {
                println!("{held}");
            }
        }
    }
    Ok(finished)
}

/// One progress bar per document.
struct Bars {
    _multi: MultiProgress,
    bars: HashMap<DocumentId, ProgressBar>,
}

impl Bars {
    fn new(docs: &[Document], show: bool) -> Bars {
        let target = if show {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let multi = MultiProgress::with_draw_target(target);
        let style = ProgressStyle::with_template("{prefix:40!} [{bar:25}] {pos:>5}/{len:5} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bars = docs
            .iter()
            .map(|d| {
                let bar = multi.add(ProgressBar::new(d.page_count.unwrap_or(0)));
                bar.set_style(style.clone());
                bar.set_prefix(d.file_name.clone());
                bar.set_message("queued");
                (d.id, bar)
            })
            .collect();
        Bars { _multi: multi, bars }
    }

    fn on_event(&self, event: &IndexEvent) {
        let Some(bar) = self.bars.get(&event.document()) else {
            return;
        };
        match event {
            IndexEvent::Queued { .. } => bar.set_message("queued"),
            IndexEvent::Started { .. } => bar.set_message("indexing"),
            IndexEvent::Progress {
                pages_done,
                pages_total,
                ocr_page,
                ..
            } => {
                bar.set_length(*pages_total);
                bar.set_position(*pages_done);
                match ocr_page {
                    Some(page) => bar.set_message(format!("OCR page {page} of {pages_total}")),
                    None => bar.set_message("pages read"),
                }
            }
            IndexEvent::Finished {
                status: DocumentStatus::Ready,
                reused_from,
                ..
            } => {
                let note = if reused_from.is_some() {
                    " (same content as another document: reused)"
                } else {
                    ""
                };
                bar.set_message(format!("searchable by keyword{note}"));
            }
            IndexEvent::Finished { status, .. } => bar.finish_with_message(status.as_str()),
            IndexEvent::Embedding {
                chunks_done,
                chunks_total,
                ..
            } => {
                bar.set_length(*chunks_total);
                bar.set_position(*chunks_done);
                bar.set_message("chunks embedded");
            }
            IndexEvent::Embedded { .. } => bar.finish_with_message("ready"),
            IndexEvent::EmbeddingFailed { reason, .. } => {
                bar.finish_with_message(format!("searchable by keyword; embedding failed: {reason}"));
            }
        }
    }

    fn on_catalog(&self, d: &Document) {
        let Some(bar) = self.bars.get(&d.id) else { return };
        if bar.is_finished() {
            return;
        }
        bar.set_length(d.progress_total);
        bar.set_position(d.progress_done);
        if d.status.is_settled() {
            bar.finish_with_message(d.status.as_str());
        } else {
            bar.set_message(output::status_text(d));
        }
    }

    fn abandon(&self) {
        for bar in self.bars.values() {
            bar.abandon();
        }
    }
}

/// Starts `lectern index` as a detached process that outlives this one.
pub fn spawn_background_indexer(library: &Library) -> Result<(), Error> {
    let home = &library.config().home;
    let exe = std::env::current_exe().map_err(Error::io("the lectern executable"))?;
    let log_path = home.join("indexer.log");
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(Error::io(&log_path))?;
    let log_err = log.try_clone().map_err(Error::io(&log_path))?;
    Command::new(exe)
        .arg("--home")
        .arg(home)
        .arg("index")
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .process_group(0)
        .spawn()
        .map_err(Error::io("the background indexer"))?;
    Ok(())
}
