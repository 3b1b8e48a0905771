//! `lectern-bench index`: indexing figures measured on this machine, each printed beside its baseline:
//! extraction against poppler's `pdftotext`, embedding against sentence-transformers (PyTorch) on
//! the same 256-token inputs and thread counts, end-to-end indexing, peak memory while indexing
//! the 429-page file, and the time of a document move.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use crate::args::IndexBenchArgs;
use crate::embedding;
use lectern::catalog::DEFAULT_FOLDER;
use lectern::jobs::RunMode;
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
    end_to_end(&config, &files, pages, &scratch.0).await?;
    peak_memory(&config, &corpus.join(BIG_FILE), &scratch.0)?;
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

/// Indexing the files end to end in a fresh library.
async fn end_to_end(config: &LibraryConfig, files: &[PathBuf], pages: u64, scratch: &Path) -> anyhow::Result<()> {
    let mut config = config.clone();
    config.home = scratch.join("end-to-end");
    let library = Library::open(config)?;
    library.add(files, DEFAULT_FOLDER)?;
    let start = Instant::now();
    library.run_indexer(RunMode::UntilIdle).await?;
    let seconds = start.elapsed().as_secs_f64();
    let docs = library.documents(None, false)?;
    let chunks: u64 = docs.iter().filter_map(|d| d.chunk_count).sum();
    header("indexing end to end (extract, chunk, embed, write)", "");
    row(
        "documents per minute",
        format!("{:.1}", docs.len() as f64 * 60.0 / seconds),
        String::new(),
        None,
    );
    row(
        "pages per second",
        format!("{:.1}", pages as f64 / seconds),
        String::new(),
        None,
    );
    row(
        "chunks per second",
        format!("{:.1}", chunks as f64 / seconds),
        String::new(),
        None,
    );
    row(
        "total",
        format!("{seconds:.1} s"),
        format!("{} docs, {chunks} chunks", docs.len()),
        None,
    );
    println!();
    Ok(())
}

/// Peak resident memory of a `lectern index` process indexing the 429-page file alone.
fn peak_memory(config: &LibraryConfig, big: &Path, scratch: &Path) -> anyhow::Result<()> {
    let home = scratch.join("peak-memory");
    let mut child_config = config.clone();
    child_config.home = home.clone();
    Library::open(child_config)?.add(&[big.to_path_buf()], DEFAULT_FOLDER)?;
    // `lectern` is built beside this program.
    let exe = std::env::current_exe()?.with_file_name("lectern");
    let child = Command::new(exe)
        .arg("--home")
        .arg(&home)
        .arg("index")
        .env("LECTERN_MODELS", &config.models_dir)
        .stdout(Stdio::null())
        .spawn()
        .map_err(Error::io("lectern index"))?;
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
