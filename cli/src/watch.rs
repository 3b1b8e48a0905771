//! `lectern watch`: link directories to folders, list and unlink them, catch up once, or keep
//! watching and indexing until interrupted.

use std::process::ExitCode;

use lectern::catalog::Link;
use lectern::jobs::RunMode;
use lectern::{Error, Library, SyncReport};

use super::args::WatchCommand;
use super::output;

fn print_report(path: &str, report: &SyncReport) {
    if !report.available {
        println!("{path}: not there (an unplugged drive?); its documents are kept");
        return;
    }
    println!(
        "{path}: {} added, {} renamed, {} changed, {} removed, {} kept, {} still being written",
        report.added, report.renamed, report.changed, report.removed, report.kept, report.pending
    );
    for (file, why) in &report.failed {
        println!("  failed: {file}: {why}");
    }
}

fn print_links(library: &Library, links: &[Link]) -> Result<(), Error> {
    if links.is_empty() {
        println!("no linked directories; `lectern watch add DIR --folder F` links one");
    }
    for link in links {
        let folder = library
            .folders()?
            .into_iter()
            .find(|f| f.id == link.folder)
            .map(|f| f.path);
        let synced = link.last_sync.map_or_else(
            || "never synced".to_string(),
            |ms| format!("synced {}", lectern::dates::utc(ms)),
        );
        println!(
            "#{:<3} {} -> {}  ({synced}{}{}, {} pending, {} failed)",
            link.id,
            link.path,
            folder.unwrap_or_default(),
            if link.available { "" } else { ", directory missing" },
            if link.keep_deleted {
                ", keeps deleted files' documents"
            } else {
                ""
            },
            link.pending,
            link.failed.len()
        );
        for (file, why) in &link.failed {
            println!("       failed: {file}: {why}");
        }
    }
    Ok(())
}

pub async fn run(library: &Library, command: &WatchCommand) -> Result<ExitCode, Error> {
    match command {
        WatchCommand::Add {
            dir,
            folder,
            keep_deleted,
        } => {
            let (link, report) = library.link_directory(dir, folder, *keep_deleted)?;
            print_report(&link.path, &report);
            println!("linked; `lectern watch run` (or the app) keeps it in sync and indexes it");
        }
        WatchCommand::Ls(flag) if flag.json => output::json(&library.links()?),
        WatchCommand::Ls(_) => print_links(library, &library.links()?)?,
        WatchCommand::Rm { link } => {
            let link = library.unlink(library.find_link(link)?.id)?;
            println!("unlinked {}; its folder keeps its documents", link.path);
        }
        WatchCommand::Sync => {
            for (link, report) in library.sync_links() {
                match report {
                    Ok(report) => print_report(&link.path, &report),
                    Err(e) => println!("{}: {e}", link.path),
                }
            }
        }
        WatchCommand::Run => {
            let _watcher = library.watch()?;
            println!("watching {} linked director(ies); Ctrl-C stops", library.links()?.len());
            library.run_indexer(RunMode::Forever).await?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
