//! `lectern-bench index`: indexing figures measured on this machine, each printed beside its baseline:
//! extraction against poppler's `pdftotext`, embedding against sentence-transformers (PyTorch) on
//! the same 256-token inputs and thread counts, end-to-end indexing (to searchable by keyword and
//! to embedded) of the corpus's text files and of the 429-page file, peak memory while indexing
//! it, how fast an interrupted embedding finishes after a restart, and the time of a move.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use crate::args::IndexBenchArgs;
use crate::embedding;
use lectern::catalog::DEFAULT_FOLDER;
use lectern::jobs::{next_event, IndexEvent, RunMode};
use lectern::pdf::{Extracted, PdfReader};
use lectern::{Error, Library, LibraryConfig};

const BIG_FILE: &str = "struct-many-pages-429p-ibm-manual.pdf";
const ONE_PAGE_FILE: &str = "text-pdfspec-simple1-handwritten.pdf";

/// A scratch directory removed when the benchmark ends, however it ends.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A new, empty scratch directory in the system's temporary directory.
    pub fn new() -> anyhow::Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("lectern-bench-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub async fn run(config: LibraryConfig, args: &IndexBenchArgs) -> anyhow::Result<ExitCode> {
    let corpus = args.corpus.clone().unwrap_or_else(|| PathBuf::from("corpus/pdfs"));
    let files = corpus_files(&corpus, args.corpus.is_none())?;
    let scratch = Scratch::new()?;
    println!(
        "lectern-bench index: {} PDFs from {}, {} worker(s)\n",
        files.len(),
        corpus.display(),
        config.workers
    );

    let pages = extraction(&files)?;
    embedding::run(&config, &files, args.chunks, &scratch.0)?;
    let title = format!("{} PDFs", files.len());
    end_to_end(&config, &title, &files, pages, &scratch.0).await?;
    let big = corpus.join(BIG_FILE);
    let whole = end_to_end(&config, BIG_FILE, std::slice::from_ref(&big), 429, &scratch.0).await?;
    peak_memory(&config, &big, &scratch.0)?;
    resume(&config, &big, whole.embedded, &scratch.0).await?;
    moves(&config, &corpus, &scratch.0).await?;
    Ok(ExitCode::SUCCESS)
}

/// The PDFs to measure: the corpus's `text-` files by default, else every PDF in the directory.
fn corpus_files(dir: &Path, text_only: bool) -> anyhow::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(Error::io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .filter(|p| !text_only || p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("text-")))
        .collect();
    files.sort();
    Ok(files)
}

pub fn row(figure: &str, ours: String, baseline: String, ratio: Option<f64>) {
    let ratio = ratio.map_or(String::new(), |r| format!("{r:.2}x"));
    println!("  {figure:<44} {ours:>16} {baseline:>22} {ratio:>8}");
}

pub fn header(title: &str, baseline: &str) {
    println!("{title}");
    println!("  {:<44} {:>16} {:>22} {:>8}", "figure", "lectern", baseline, "ratio");
}

/// Pages per second extracted, beside `pdftotext` on the same files.
fn extraction(files: &[PathBuf]) -> anyhow::Result<u64> {
    let start = Instant::now();
    let mut pages = 0u64;
    for file in files {
        let mut extraction = PdfReader::default().extract(file, None);
        while let Some(step) = extraction.next_step() {
            if let Ok(Extracted::Page { .. }) = step {
                pages += 1;
            }
        }
    }
    let ours = pages as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let poppler_ok = files.iter().all(|f| {
        Command::new("pdftotext")
            .arg(f)
            .arg("-")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    let poppler = pages as f64 / start.elapsed().as_secs_f64();
    header("extraction", "pdftotext (poppler)");
    if poppler_ok {
        row(
            "pages per second",
            format!("{ours:.0}"),
            format!("{poppler:.0}"),
            Some(ours / poppler),
        );
    } else {
        row(
            "pages per second",
            format!("{ours:.0}"),
            "pdftotext missing".into(),
            None,
        );
    }
    println!();
    Ok(pages)
}

/// When each step of indexing ended, measured from the start of a run.
struct Timeline {
    /// The last document became searchable by keyword.
    searchable: f64,
    /// The last document was embedded (the run ended).
    embedded: f64,
}

/// Runs the indexer of `library` until idle, noting when the last document became searchable by
/// keyword and when the run ended.
async fn timed_run(library: &Library) -> anyhow::Result<Timeline> {
    let mut events = library.subscribe();
    let start = Instant::now();
    let watcher = tokio::spawn(async move {
        let mut searchable = 0.0;
        while let Some(event) = next_event(&mut events).await {
            if matches!(event, IndexEvent::Finished { .. }) {
                searchable = start.elapsed().as_secs_f64();
            }
        }
        searchable
    });
    library.run_indexer(RunMode::UntilIdle).await?;
    let embedded = start.elapsed().as_secs_f64();
    // The subscription ends with the library; the last reading ended before the run did.
    let searchable = tokio::time::timeout(Duration::from_millis(200), watcher)
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or(embedded);
    Ok(Timeline { searchable, embedded })
}

/// Indexing `files` end to end in a fresh library: pages per second to searchable by keyword and
/// to embedded, documents per minute.
async fn end_to_end(
    config: &LibraryConfig,
    title: &str,
    files: &[PathBuf],
    pages: u64,
    scratch: &Path,
) -> anyhow::Result<Timeline> {
    let mut config = config.clone();
    config.home = scratch.join(format!("end-to-end-{}", uuid::Uuid::new_v4()));
    let library = Library::open(config)?;
    library.add(files, DEFAULT_FOLDER)?;
    let timeline = {
        let library = library.clone();
        timed_run(&library).await?
    };
    let docs = library.documents(None, false)?;
    let chunks: u64 = docs.iter().filter_map(|d| d.chunk_count).sum();
    header(&format!("indexing end to end: {title}"), "");
    let per_second = |what: u64, seconds: f64| format!("{:.1}", what as f64 / seconds);
    row(
        "pages per second to searchable by keyword",
        per_second(pages, timeline.searchable),
        String::new(),
        None,
    );
    row(
        "pages per second to embedded",
        per_second(pages, timeline.embedded),
        String::new(),
        None,
    );
    row(
        "chunks embedded per second",
        per_second(chunks, timeline.embedded),
        String::new(),
        None,
    );
    row(
        "documents per minute (embedded)",
        format!("{:.1}", docs.len() as f64 * 60.0 / timeline.embedded),
        String::new(),
        None,
    );
    row(
        "total",
        format!("{:.1} s", timeline.embedded),
        format!("{} docs, {pages} pages, {chunks} chunks", docs.len()),
        None,
    );
    println!();
    Ok(timeline)
}

/// A `lectern index` process embedding `big` is killed two thirds of the way; the time the next
/// run takes to finish, beside the time of a whole run (`whole`, seconds).
async fn resume(config: &LibraryConfig, big: &Path, whole: f64, scratch: &Path) -> anyhow::Result<()> {
    let home = scratch.join("resume");
    let mut child_config = config.clone();
    child_config.home = home.clone();
    let library = Library::open(child_config.clone())?;
    let id = library.add(&[big.to_path_buf()], DEFAULT_FOLDER)?.added[0].id;
    let mut child = lectern_index(config, &home)?;
    let total = loop {
        let doc = library.document(&id.to_string())?;
        if doc.embed_total > 0 && doc.embed_done * 3 >= doc.embed_total * 2 {
            break doc.embed_total;
        }
        if child.try_wait().map_err(Error::io("lectern index"))?.is_some() {
            anyhow::bail!("lectern index ended before it could be interrupted");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // SAFETY: sending a signal to our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait();
    let library = Library::open(child_config)?;
    let timeline = timed_run(&library).await?;
    header(
        &format!("resume after restart: {BIG_FILE}, killed at 2/3 embedded"),
        "whole run",
    );
    row(
        "seconds to finish after the restart",
        format!("{:.1}", timeline.embedded),
        format!("{whole:.1}"),
        Some(timeline.embedded / whole),
    );
    println!("  {total} chunks; the restart goes on from the last batch written\n");
    Ok(())
}

/// Starts `lectern index` (built beside this program) on the library in `home`.
fn lectern_index(config: &LibraryConfig, home: &Path) -> anyhow::Result<std::process::Child> {
    let exe = std::env::current_exe()?.with_file_name("lectern");
    Ok(Command::new(exe)
        .arg("--home")
        .arg(home)
        .arg("index")
        .env("LECTERN_MODELS", &config.models_dir)
        .stdout(Stdio::null())
        .spawn()
        .map_err(Error::io("lectern index"))?)
}

/// Peak resident memory of a `lectern index` process indexing the 429-page file alone.
fn peak_memory(config: &LibraryConfig, big: &Path, scratch: &Path) -> anyhow::Result<()> {
    let home = scratch.join("peak-memory");
    let mut child_config = config.clone();
    child_config.home = home.clone();
    Library::open(child_config)?.add(&[big.to_path_buf()], DEFAULT_FOLDER)?;
    let child = lectern_index(config, &home)?;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child process, with valid pointers to locals.
    let waited = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    header(&format!("memory while indexing {BIG_FILE}"), "");
    if waited > 0 {
        row(
            "peak RSS",
            format!("{} MB", usage.ru_maxrss / 1024),
            String::new(),
            None,
        );
    } else {
        row("peak RSS", "not measured".into(), String::new(), None);
    }
    println!();
    Ok(())
}

/// The median time of a document move, for a 429-page and a 1-page document.
async fn moves(config: &LibraryConfig, corpus: &Path, scratch: &Path) -> anyhow::Result<()> {
    let mut config = config.clone();
    config.home = scratch.join("peak-memory");
    let library = Library::open(config)?;
    library.add(&[corpus.join(ONE_PAGE_FILE)], DEFAULT_FOLDER)?;
    library.run_indexer(RunMode::UntilIdle).await?;
    library.create_folder("Elsewhere")?;
    header("moving a document between folders (median of 101)", "");
    for doc in library.documents(None, false)? {
        let mut times: Vec<Duration> = (0..101)
            .map(|i| {
                let target = if i % 2 == 0 { "Elsewhere" } else { DEFAULT_FOLDER };
                let start = Instant::now();
                library.move_document(doc.id, target).map(|_| start.elapsed())
            })
            .collect::<Result<_, _>>()?;
        times.sort();
        let pages = doc.page_count.unwrap_or(0);
        row(
            &format!("{pages}-page document"),
            format!("{:.3} ms", times[50].as_secs_f64() * 1000.0),
            String::new(),
            None,
        );
    }
    Ok(())
}
