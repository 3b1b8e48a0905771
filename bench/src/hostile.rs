//! `lectern-bench hostile`: the adversarial PDFs of `lectern_synthetic::hostile` and the large ones
//! of `lectern_synthetic::large` (3,000 pages; a gigabyte), each read by a PDF worker under the
//! app's limits, with its outcome, time, the worker's peak memory and this
//! process's (the app's side of the pipe); then all of them imported together with the corpus
//! into one library and indexed, with this process's peak memory beside the goal of 1 GB.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use lectern::catalog::DEFAULT_FOLDER;
use lectern::jobs::RunMode;
use lectern::pdf::{Extracted, PdfReader};
use lectern::{DocumentStatus, Error, Library, LibraryConfig};
use lectern_synthetic::hostile::{self, Outcome};
use lectern_synthetic::large;

use crate::args::HostileBenchArgs;
use crate::index::Scratch;

/// A file the bench reads: its name, how it is written, and what reading it must end in.
struct Case {
    name: String,
    source: Source,
    expected: Expected,
}

enum Source {
    Made(fn() -> Vec<u8>),
    /// `large::long_document` of this many pages.
    Pages(usize),
    /// `large::write_bulky` of this many megabytes (of a million bytes), written as it is made.
    Megabytes(u64),
}

impl Source {
    fn write(&self, path: &Path) -> std::io::Result<()> {
        match self {
            Source::Made(make) => std::fs::write(path, make()),
            Source::Pages(pages) => std::fs::write(path, large::long_document(*pages)),
            Source::Megabytes(mb) => {
                let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
                large::write_bulky(&mut out, mb * 1_000_000)
            }
        }
    }
}

enum Expected {
    Is(Outcome),
    /// Read within the worker's memory limit, or refused with the limit (memory or size) named.
    ReadOrOverLimit,
}

/// The adversarial files, then a document of 3,000 pages and one of `bulky_mb` megabytes.
fn cases(bulky_mb: u64) -> Vec<Case> {
    let mut cases: Vec<Case> = hostile::all()
        .into_iter()
        .map(|file| Case {
            name: file.name.to_string(),
            source: Source::Made(file.make),
            expected: Expected::Is(file.outcome),
        })
        .collect();
    cases.push(Case {
        name: "long-3000-pages.pdf".into(),
        source: Source::Pages(3000),
        expected: Expected::Is(Outcome::Read),
    });
    cases.push(Case {
        name: format!("bulky-{bulky_mb}-mb.pdf"),
        source: Source::Megabytes(bulky_mb),
        expected: Expected::ReadOrOverLimit,
    });
    cases
}

pub async fn run(config: LibraryConfig, args: &HostileBenchArgs) -> anyhow::Result<ExitCode> {
    let scratch = Scratch::new()?;
    let scratch = &scratch.0;
    let reader = config.reader.clone();
    println!(
        "lectern-bench hostile: worker limits {} MB of memory, {} s of reading\n",
        reader.limits.max_memory >> 20,
        reader.limits.timeout.as_secs()
    );
    println!(
        "{:<30} {:>9} {:>8} {:>12} {:>10}  outcome",
        "file", "on disk", "time", "worker peak", "app peak"
    );
    let mut files = Vec::new();
    let mut as_expected = true;
    for case in cases(args.bulky_mb) {
        let path = scratch.join(&case.name);
        case.source.write(&path).map_err(Error::io(&path))?;
        let size = std::fs::metadata(&path).map_err(Error::io(&path))?.len();
        reset_peak_memory();
        let began = Instant::now();
        let (outcome, worker_peak) = read(&reader, &path);
        let time = began.elapsed();
        let expected = match (&case.expected, &outcome) {
            (Expected::Is(Outcome::Read) | Expected::ReadOrOverLimit, Ok(_)) => true,
            (Expected::Is(Outcome::Refused(words)), Err(reason)) => reason.contains(words),
            (Expected::ReadOrOverLimit, Err(reason)) => {
                reason.contains("MB of memory") || reason.contains("more than the limit")
            }
            _ => false,
        };
        as_expected &= expected;
        println!(
            "{:<30} {:>7} K {:>6.1} s {:>9} MB {:>7} MB  {}{}",
            case.name,
            size >> 10,
            time.as_secs_f64(),
            worker_peak.map_or("-".into(), |b| (b >> 20).to_string()),
            peak_memory() >> 20,
            match &outcome {
                Ok(pages) => format!("read, {pages} page(s)"),
                Err(reason) => format!("failed: {reason}"),
            },
            if expected { "" } else { "  (NOT AS EXPECTED)" }
        );
        files.push(path);
    }
    if let Some(corpus) = &args.corpus {
        import_all(config, scratch, files, corpus).await?;
    }
    Ok(if as_expected {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Reads `path` in a worker: its page count or why it failed, and the worker's peak memory.
fn read(reader: &PdfReader, path: &Path) -> (Result<u64, String>, Option<u64>) {
    let mut extraction = reader.extract(path, None);
    let mut pages = 0;
    let outcome = loop {
        match extraction.next_step() {
            Some(Ok(Extracted::Page { .. })) => pages += 1,
            Some(Ok(_)) => {}
            Some(Err(e)) => break Err(e.to_string()),
            None => break Ok(pages),
        }
    };
    (outcome, extraction.worker_peak_memory())
}

/// Imports the adversarial files with every PDF of `corpus` into a fresh library and indexes
/// them, printing how the documents ended and this process's peak memory.
async fn import_all(
    mut config: LibraryConfig,
    scratch: &Path,
    mut files: Vec<PathBuf>,
    corpus: &Path,
) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(corpus).map_err(Error::io(corpus))? {
        let path = entry.map_err(Error::io(corpus))?.path();
        if path.extension().is_some_and(|e| e == "pdf") {
            files.push(path);
        }
    }
    config.home = scratch.join("library");
    let library = Library::open(config)?;
    reset_peak_memory();
    let began = Instant::now();
    let report = library.add(&files, DEFAULT_FOLDER)?;
    library.run_indexer(RunMode::UntilIdle).await?;
    let time = began.elapsed();
    let documents = library.documents(None, true)?;
    let count = |status: DocumentStatus| documents.iter().filter(|d| d.status == status).count();
    println!(
        "\nimport of {} files ({} refused at the door), indexed in {:.0} s: {} ready, {} failed, {} need OCR, {} need a password",
        files.len(),
        report.failed.len(),
        time.as_secs_f64(),
        count(DocumentStatus::Ready),
        count(DocumentStatus::Failed),
        count(DocumentStatus::NeedsOcr),
        count(DocumentStatus::NeedsPassword),
    );
    println!(
        "peak memory of this process (the app's side) while importing and indexing: {} MB (goal: at most 1024 MB)",
        peak_memory() >> 20
    );
    Ok(())
}

/// Starts this process's peak resident set again from its current size (Linux `clear_refs`).
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// This process's peak resident set since the last reset, in bytes.
fn peak_memory() -> u64 {
    peak_memory_of("/proc/self/status")
}

/// The peak resident set (`VmHWM`) a `/proc/<pid>/status` file states, in bytes; 0 if it is gone.
pub fn peak_memory_of(status: impl AsRef<std::path::Path>) -> u64 {
    std::fs::read_to_string(status)
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb << 10)
}
