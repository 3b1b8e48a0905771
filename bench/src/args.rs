//! The benchmark's command line, parsed with clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Lectern's benchmarks: each prints its figures beside their baseline, measured in one run.
#[derive(Debug, Parser)]
#[command(name = "lectern-bench", about)]
pub struct Cli {
    /// The library's data directory, for the benchmarks that use a real library (default:
    /// $LECTERN_HOME, else the XDG data directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct IndexBenchArgs {
    /// The directory of PDFs to index (default: the `text-` files of the repository's `corpus/pdfs`).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// A JSON file of reference figures from `scripts/bench_sentence_transformers.py`, shown side by side.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Chunks embedded for the embedding-speed figure.
    #[arg(long, default_value_t = 256)]
    pub chunks: usize,
    /// The real-question set whose filings are indexed end to end (skipped when absent).
    #[arg(long, default_value = "../shared/devsets/realqa")]
    pub realqa: PathBuf,
    /// Index only the first N of its filings (all 50 by default).
    #[arg(long)]
    pub filings: Option<usize>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Indexing: extraction against `pdftotext`, embedding against sentence-transformers, end to
    /// end, peak memory while indexing the 429-page file, and the time of a document move.
    Index(IndexBenchArgs),
    /// Query speed and memory on synthetic libraries of 10 to 3,000 documents, against one LanceDB
    /// table holding the same chunks; and on a real library if one is given.
    Search(SearchBenchArgs),
    /// `lectern serve` under load: requests per second of `/v1/search` with concurrent clients
    /// on the synthetic library, their p50/p99 beside the same searches in-process, and the
    /// server's memory at idle.
    Serve(ServeBenchArgs),
    /// Time to first token and tokens per second of the built-in model, llama.cpp beside candle
    /// on the same prompt tokens (candle with `--features candle`).
    Llm(LlmBenchArgs),
    /// End-to-end time of `lectern ask` over a folder of the library in `--home`, extractive and
    /// built-in backends side by side.
    Ask(AskBenchArgs),
    /// Extraction quality and speed on the corpus, file by file: sample phrases, word-level F1
    /// against poppler's `pdftotext`, pages per second beside `pdftotext`, and how many pages
    /// without text OCR reads.
    Extract(ExtractBenchArgs),
    /// The adversarial PDFs: each one's outcome, time and peak memory (worker and app), then
    /// all of them imported with the corpus and indexed, with the app's peak memory.
    Hostile(HostileBenchArgs),
    /// OCR of scanned copies of text PDFs (`scripts/make-scans.py`) at 300 and 200 dpi and
    /// skewed: word F1 against the originals' text, pages per second and peak memory, beside the
    /// `tesseract` command on the same page images.
    Ocr(OcrBenchArgs),
    /// Linked directories: a saved PDF to searchable beside a direct import, the idle watcher's
    /// CPU on a directory of many files, and the cost of a catch-up sync.
    Watch(WatchBenchArgs),
}

#[derive(Debug, Args)]
pub struct OcrBenchArgs {
    /// The directory `scripts/make-scans.py` wrote: `scans.json`, the scanned copies and their
    /// page images.
    pub dir: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct HostileBenchArgs {
    /// Import the adversarial files together with every PDF of this directory (`corpus/pdfs`)
    /// and index them all.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// The size of the bulky PDF (large images on every page), in MB of a million bytes.
    #[arg(long, default_value_t = 1000)]
    pub bulky_mb: u64,
}

#[derive(Debug, Clone, Args)]
pub struct WatchBenchArgs {
    /// Files saved (and, for the baseline, imported) one at a time.
    #[arg(long, default_value_t = 5)]
    pub rounds: usize,
    /// Files in the directory the idle watcher watches.
    #[arg(long, default_value_t = 5000)]
    pub files: usize,
    /// Seconds of idle CPU measured, with and without the watcher.
    #[arg(long, default_value_t = 30)]
    pub idle_secs: u64,
}

#[derive(Debug, Clone, Args)]
pub struct ExtractBenchArgs {
    /// The corpus: `manifest.json`, `pdfs/` and `expected/*.pdftotext.txt`.
    #[arg(long, default_value = "corpus")]
    pub corpus: PathBuf,
}

#[derive(Debug, Args)]
pub struct AskBenchArgs {
    /// The folder to ask over (with its subfolders).
    #[arg(long)]
    pub folder: String,
    /// Questions, as `lectern eval` reads them.
    #[arg(long, default_value = "eval/dev.jsonl")]
    pub questions: PathBuf,
    /// How many of the questions to ask.
    #[arg(long, default_value_t = 10)]
    pub count: usize,
    #[arg(long, default_value_t = 5)]
    pub k: usize,
    /// The most tokens an answer may have.
    #[arg(long, default_value_t = 128)]
    pub max_tokens: usize,
    /// Threads for the built-in model.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
}

#[derive(Debug, Clone, Args)]
pub struct LlmBenchArgs {
    /// The GGUF model (default: the built-in model answers use when none is chosen).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Tokens to generate per run.
    #[arg(long, default_value_t = 64)]
    pub tokens: usize,
    /// Runs per runtime (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Passages from this text file make the prompt (default: a corpus reference extraction).
    #[arg(long, default_value = "corpus/expected/text-kb-pdf-risks-56p-objstm.pdftotext.txt")]
    pub text: PathBuf,
}

#[derive(Debug, Args)]
pub struct ServeBenchArgs {
    /// Where the synthetic library is generated (kept for later runs; the search benchmark's).
    #[arg(long, default_value = "/var/tmp/lectern-bench-search")]
    pub data: PathBuf,
    /// Documents in the library.
    #[arg(long, default_value_t = 1000)]
    pub documents: usize,
    /// Clients sending searches at once.
    #[arg(long, default_value_t = 8)]
    pub clients: usize,
    /// Seconds the clients send searches for.
    #[arg(long, default_value_t = 20)]
    pub seconds: u64,
    /// Distinct questions (each asked once before timing, so that every index is open).
    #[arg(long, default_value_t = 100)]
    pub queries: usize,
}

#[derive(Debug, Args)]
pub struct SearchBenchArgs {
    /// Where the synthetic library is generated (kept for later runs).
    #[arg(long, default_value = "/var/tmp/lectern-bench-search")]
    pub data: PathBuf,
    /// Folder sizes, in documents, of the curve.
    #[arg(long, value_delimiter = ',', default_value = "10,100,1000,3000")]
    pub sizes: Vec<usize>,
    /// Measure only these of `--sizes` (the data generated stays that of every size).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<usize>,
    /// Chunks per synthetic document.
    #[arg(long, default_value_t = 300)]
    pub chunks: usize,
    /// Documents of a real library's mix instead of `--chunks` each: most of 10-60 passages,
    /// one in fifty of 1,000-4,000.
    #[arg(long)]
    pub mixed: bool,
    /// Drop the operating system's page cache before each size's first query (needs root; the
    /// table says whether it was dropped).
    #[arg(long)]
    pub drop_caches: bool,
    /// Where the real text that fills synthetic documents comes from (`*.pdftotext.txt`).
    #[arg(long, default_value = "corpus/expected")]
    pub texts: PathBuf,
    /// Timed queries per size.
    #[arg(long, default_value_t = 200)]
    pub queries: usize,
    /// Leave out the one-table LanceDB column (its flat scans take most of a run's time): for
    /// quick loops on latency and recall.
    #[arg(long)]
    pub without_lancedb: bool,
    /// Also time the questions of this file on the real library (`--home`), in `--folder`.
    #[arg(long)]
    pub questions: Option<PathBuf>,
    /// The folder of the real library the questions are asked in.
    #[arg(long)]
    pub folder: Option<String>,
    /// Also time the same searches with the library's indexes in this PostgreSQL database
    /// (`postgres://…`, with pgvector), published there from the synthetic library first.
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
    /// Run one measurement in this process and print it as JSON (used by the benchmark itself).
    #[arg(long, hide = true)]
    pub probe: Option<usize>,
    /// The measurement of `--probe` searches the database of `--database-url`.
    #[arg(long, hide = true)]
    pub probe_database: bool,
    /// The measurement of `--probe` opens every document of the scope, as without a wide index.
    #[arg(long, hide = true)]
    pub probe_exhaustive: bool,
    /// Instead of measuring, `--probe` brings the library's wide index up to date (what the
    /// indexer does by itself), so that the measurement does not count it.
    #[arg(long, hide = true)]
    pub probe_keep: bool,
}
