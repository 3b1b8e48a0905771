//! The end-to-end figure of `lectern-bench index` on real filings: realqa's annual and quarterly
//! reports (read from `../shared/devsets/realqa`, never copied; skipped when absent) indexed by a
//! `lectern index` process, at int8 and, as the baseline, at f32 on the same chunks: pages per
//! second to searchable by keyword and to embedded, chunks per page, and the process's peak
//! resident memory, read from its own `VmHWM` while it runs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lectern::catalog::{DocumentStatus, DEFAULT_FOLDER};
use lectern::embed::Precision;
use lectern::{Error, Library, LibraryConfig};
use serde::Deserialize;

use crate::hostile::peak_memory_of;
use crate::index::{header, row};

/// A document of realqa's manifest.
#[derive(Deserialize)]
struct Entry {
    file: String,
    source: String,
    pages: u64,
}

/// What one run measured.
struct Run {
    searchable: f64,
    embedded: f64,
    chunks: u64,
    peak: u64,
}

/// Indexes realqa's filings (the first `limit`, if given) at int8 and at f32, and prints the two
/// side by side.
pub fn run(config: &LibraryConfig, realqa: &Path, limit: Option<usize>, scratch: &Path) -> anyhow::Result<()> {
    let manifest = realqa.join("manifest.json");
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        println!("real filings: skipped ({} is absent)\n", manifest.display());
        return Ok(());
    };
    let entries: Vec<Entry> = serde_json::from_str(&text)?;
    let filings: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.source == "financebench")
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    let files: Vec<PathBuf> = filings.iter().map(|e| realqa.join("pdfs").join(&e.file)).collect();
    let pages: u64 = filings.iter().map(|e| e.pages).sum();
    let int8 = indexed_by_process(config, &files, Precision::Int8, scratch)?;
    let f32 = indexed_by_process(config, &files, Precision::F32, scratch)?;
    header(
        &format!(
            "indexing end to end: {} realqa filings, {pages} pages, by `lectern index`",
            files.len()
        ),
        "f32, same chunks",
    );
    let per_second = |seconds: f64| pages as f64 / seconds;
    let speed = |ours: f64, theirs: f64| (format!("{ours:.1}"), format!("{theirs:.1}"), Some(ours / theirs));
    for (figure, (ours, theirs, ratio)) in [
        (
            "pages per second to searchable by keyword",
            speed(per_second(int8.searchable), per_second(f32.searchable)),
        ),
        (
            "pages per second to embedded",
            speed(per_second(int8.embedded), per_second(f32.embedded)),
        ),
        (
            "chunks embedded per second",
            speed(int8.chunks as f64 / int8.embedded, f32.chunks as f64 / f32.embedded),
        ),
    ] {
        row(figure, ours, theirs, ratio);
    }
    row(
        "chunks per page",
        format!("{:.2}", int8.chunks as f64 / pages as f64),
        format!("{:.2}", f32.chunks as f64 / pages as f64),
        None,
    );
    row(
        "peak RSS of the process",
        format!("{} MiB", int8.peak >> 20),
        format!("{} MiB", f32.peak >> 20),
        None,
    );
    println!("  int8: this machine's default is {}\n", Precision::for_this_machine());
    Ok(())
}

/// A new library of `files` indexed by a `lectern index` process embedding at `precision`.
fn indexed_by_process(
    config: &LibraryConfig,
    files: &[PathBuf],
    precision: Precision,
    scratch: &Path,
) -> anyhow::Result<Run> {
    let mut config = config.clone();
    config.home = scratch.join(format!("filings-{precision}"));
    let library = Library::open(config.clone())?;
    library.add(files, DEFAULT_FOLDER)?;
    let exe = std::env::current_exe()?.with_file_name("lectern");
    let start = Instant::now();
    let mut child = Command::new(exe)
        .arg("--home")
        .arg(&config.home)
        .arg("index")
        .env("LECTERN_MODELS", &config.models_dir)
        .env("LECTERN_EMBEDDER", format!("minilm-{precision}"))
        .stdout(Stdio::null())
        .spawn()
        .map_err(Error::io("lectern index"))?;
    let status = format!("/proc/{}/status", child.id());
    let (mut peak, mut searchable) = (0u64, None);
    while child.try_wait().map_err(Error::io("lectern index"))?.is_none() {
        peak = peak.max(peak_memory_of(&status));
        if searchable.is_none() {
            let docs = library.documents(None, false)?;
            if docs
                .iter()
                .all(|d| d.status != DocumentStatus::Queued && d.status != DocumentStatus::Indexing)
            {
                searchable = Some(start.elapsed().as_secs_f64());
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let embedded = start.elapsed().as_secs_f64();
    let chunks = library
        .documents(None, false)?
        .iter()
        .filter_map(|d| d.chunk_count)
        .sum();
    Ok(Run {
        searchable: searchable.unwrap_or(embedded),
        embedded,
        chunks,
        peak,
    })
}
