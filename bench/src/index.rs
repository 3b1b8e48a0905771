//! `lectern-bench index`: indexing figures measured on this machine, each printed beside its baseline:
//! extraction against poppler's `pdftotext`, embedding against sentence-transformers (PyTorch) on
//! the same 256-token inputs and thread counts, end-to-end indexing, peak memory while indexing
//! the 429-page file, and the time of a document move.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use lectern::catalog::DEFAULT_FOLDER;
use lectern::chunk::{Chunker, ChunkerSettings};
use lectern::embed::{tokenizer_for_batches, Embedder, MiniLm, MINILM_DIR};
use lectern::jobs::RunMode;
use lectern::pdf::{Extracted, PdfReader};
use lectern::{Error, Library, LibraryConfig};
use serde::Deserialize;

use crate::args::IndexBenchArgs;

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
    embedding(&config, &files, args.chunks, &scratch.0)?;
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

fn row(figure: &str, ours: String, baseline: String, ratio: Option<f64>) {
    let ratio = ratio.map_or(String::new(), |r| format!("{r:.2}x"));
    println!("  {figure:<44} {ours:>16} {baseline:>22} {ratio:>8}");
}

fn header(title: &str, baseline: &str) {
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

#[derive(Deserialize)]
struct Baseline {
    chunks_per_second: f64,
    runtime: String,
}

/// Chunks per second on 256-token inputs, beside sentence-transformers on the same inputs.
fn embedding(config: &LibraryConfig, files: &[PathBuf], wanted: usize, scratch: &Path) -> anyhow::Result<()> {
    let model_dir = config.models_dir.join(MINILM_DIR);
    let model = MiniLm::load(&model_dir)?;
    let tokenizer = tokenizer_for_batches(&model_dir.join("tokenizer.json"))?;
    // 254 tokens of text plus the model's two special tokens.
    let chunker = Chunker::new(
        tokenizer,
        ChunkerSettings {
            max_tokens: 254,
            overlap_tokens: 0,
        },
    );
    // The files' text as one stream cut into full windows, so every input is 256 tokens long.
    let mut stream = String::new();
    for file in files {
        let mut extraction = PdfReader::default().extract(file, None);
        while let Some(Ok(step)) = extraction.next_step() {
            if let Extracted::Page { text, .. } = step {
                stream.push_str(&text);
                stream.push('\n');
            }
        }
    }
    let mut texts: Vec<String> = chunker
        .chunk_page("bench", 1, &stream)
        .into_iter()
        .map(|c| c.text)
        .collect();
    texts.pop();
    texts.truncate(wanted);
    let inputs = scratch.join("inputs.json");
    let json = serde_json::to_string(&texts)?;
    std::fs::write(&inputs, json).map_err(Error::io(&inputs))?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    header(
        &format!("embedding all-MiniLM-L6-v2, {} inputs of about 256 tokens", texts.len()),
        "sentence-transformers",
    );
    let mut runtime_name = None;
    model.embed(&refs[..refs.len().min(16)])?;
    for threads in [1usize, 2] {
        // Lectern uses cores by indexing documents side by side, one model thread each: run
        // `threads` embedders at once, each on its share of the inputs.
        let start = Instant::now();
        let share = refs.len().div_ceil(threads);
        std::thread::scope(|scope| -> anyhow::Result<()> {
            let handles: Vec<_> = refs
                .chunks(share)
                .map(|part| scope.spawn(|| model.embed(part)))
                .collect();
            for handle in handles {
                handle
                    .join()
                    .map_err(|_| anyhow::anyhow!("an embedding thread panicked"))??;
            }
            Ok(())
        })?;
        let ours = texts.len() as f64 / start.elapsed().as_secs_f64();
        let baseline = python_baseline(&model_dir, &inputs, threads);
        let label = format!("chunks per second, {threads} core(s)");
        match baseline {
            Ok(b) => {
                row(
                    &label,
                    format!("{ours:.1}"),
                    format!("{:.1}", b.chunks_per_second),
                    Some(ours / b.chunks_per_second),
                );
                runtime_name = Some(b.runtime);
            }
            Err(reason) => row(&label, format!("{ours:.1}"), reason, None),
        }
    }
    println!("  lectern: candle, one model thread per worker, workers side by side");
    if let Some(name) = runtime_name {
        println!("  baseline: {name}, torch.set_num_threads(cores)");
    }
    println!();
    Ok(())
}

fn python_baseline(model_dir: &Path, inputs: &Path, threads: usize) -> Result<Baseline, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/bench_sentence_transformers.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(model_dir)
        .arg(inputs)
        .arg(threads.to_string())
        .stderr(Stdio::null())
        .output()
        .map_err(|_| "python3 missing".to_string())?;
    if !output.status.success() {
        return Err("not installed".into());
    }
    serde_json::from_slice(&output.stdout).map_err(|_| "unreadable".to_string())
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
