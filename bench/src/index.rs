//! `lectern-bench index`: indexing figures measured on this machine, each printed beside its baseline:
//! extraction against poppler's `pdftotext`, embedding against sentence-transformers (PyTorch) on
//! the same 256-token inputs and thread counts, end-to-end indexing (to searchable by keyword and
//! to embedded) of the corpus's text files and of the 429-page file, embedding a library again
//! after a change of model while it answers, peak memory while indexing the 429-page file, how
//! fast an interrupted embedding finishes after a restart, the time of a move, and real filings
//! end to end (`filings.rs`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::args::IndexBenchArgs;
use crate::hostile::peak_memory_of;
use crate::{embedding, filings};
use lectern::catalog::{Scope, DEFAULT_FOLDER};
use lectern::jobs::{next_event, IndexEvent, RunMode};
use lectern::pdf::{Extracted, PdfReader};
use lectern::search::{SearchMode, SearchRequest};
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
    re_embedding(&config, &files, &scratch.0).await?;
    let big = corpus.join(BIG_FILE);
    let whole = end_to_end(&config, BIG_FILE, std::slice::from_ref(&big), 429, &scratch.0).await?;
    peak_memory(&config, &big, &scratch.0)?;
    resume(&config, &big, whole.embedded, &scratch.0).await?;
    moves(&config, &corpus, &scratch.0).await?;
    filings::run(&config, &args.realqa, args.filings, &scratch.0)?;
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
    let searchable = Arc::new(Mutex::new(0.0));
    let watcher = {
        let searchable = searchable.clone();
        tokio::spawn(async move {
            while let Some(event) = next_event(&mut events).await {
                if matches!(event, IndexEvent::Finished { .. }) {
                    *searchable.lock().unwrap_or_else(PoisonError::into_inner) = start.elapsed().as_secs_f64();
                }
            }
        })
    };
    library.run_indexer(RunMode::UntilIdle).await?;
    let embedded = start.elapsed().as_secs_f64();
    watcher.abort();
    let searchable = *searchable.lock().unwrap_or_else(PoisonError::into_inner);
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

/// A library of `files` indexed, then made to look as one made by another model before the
/// upgrade (manifests of format 4 naming the model only): the time its indexer takes to embed it
/// again, with hybrid questions asked all along, how many were answered and how fast.
async fn re_embedding(config: &LibraryConfig, files: &[PathBuf], scratch: &Path) -> anyhow::Result<()> {
    let mut config = config.clone();
    config.home = scratch.join("re-embedding");
    let library = Library::open(config.clone())?;
    library.add(files, DEFAULT_FOLDER)?;
    library.run_indexer(RunMode::UntilIdle).await?;
    let docs = library.documents(None, false)?;
    for doc in &docs {
        let path = config
            .home
            .join("indexes")
            .join(doc.id.to_string())
            .join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
        let mut manifest: serde_json::Value = serde_json::from_str(&text)?;
        manifest["format_version"] = serde_json::json!(4);
        manifest["embedder"] = serde_json::json!("all-MiniLM-L6-v2");
        std::fs::write(&path, manifest.to_string()).map_err(Error::io(&path))?;
    }
    drop(library);
    let library = Library::open(config)?;
    let chunks: u64 = docs.iter().filter_map(|d| d.chunk_count).sum();
    let start = Instant::now();
    let indexer = {
        let library = library.clone();
        tokio::spawn(async move { library.run_indexer(RunMode::UntilIdle).await })
    };
    let questions = [
        "how is the text laid out on the page",
        "fonts and encodings",
        "what is a PDF file",
    ];
    let (mut asked, mut answered, mut latencies) = (0usize, 0usize, Vec::new());
    while !indexer.is_finished() {
        let request = SearchRequest {
            query: questions[asked % questions.len()].into(),
            scope: Scope::default(),
            k: 5,
            mode: SearchMode::Hybrid,
            second_stage: false,
        };
        let asked_at = Instant::now();
        let results = library.search(&request).await?;
        latencies.push(asked_at.elapsed().as_secs_f64() * 1000.0);
        asked += 1;
        answered += usize::from(!results.hits.is_empty());
    }
    indexer.await??;
    let seconds = start.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    let p50 = latencies.get(latencies.len() / 2).copied().unwrap_or(0.0);
    header("embedding again after a change of model, questions asked meanwhile", "");
    row(
        "seconds to embed the library again",
        format!("{seconds:.1}"),
        format!("{} docs, {chunks} chunks", docs.len()),
        None,
    );
    row(
        "the same for 100 such documents",
        format!("{:.0}", seconds * 100.0 / docs.len().max(1) as f64),
        "(in proportion)".into(),
        None,
    );
    row(
        "questions answered meanwhile",
        format!("{answered} of {asked}"),
        format!("p50 {p50:.0} ms"),
        None,
    );
    println!();
    Ok(())
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

/// Peak resident memory of a `lectern index` process indexing the 429-page file alone, read from
/// its own `VmHWM` while it runs: the `ru_maxrss` that `wait4` reports for a child starts from
/// the parent's resident set at the spawn, which is this benchmark's, models and all.
fn peak_memory(config: &LibraryConfig, big: &Path, scratch: &Path) -> anyhow::Result<()> {
    let home = scratch.join("peak-memory");
    let mut child_config = config.clone();
    child_config.home = home.clone();
    Library::open(child_config)?.add(&[big.to_path_buf()], DEFAULT_FOLDER)?;
    let mut child = lectern_index(config, &home)?;
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    while child.try_wait().map_err(Error::io("lectern index"))?.is_none() {
        peak = peak.max(peak_memory_of(&status));
        std::thread::sleep(Duration::from_millis(20));
    }
    header(&format!("memory while indexing {BIG_FILE}"), "");
    row("peak RSS", format!("{} MB", peak >> 20), String::new(), None);
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
    println!();
    Ok(())
}
