//! `lectern-bench search`: query latency and memory of the fan-out on synthetic libraries of
//! real per-document indexes (LanceDB table, tantivy index, vector block) at several folder
//! sizes, filled with real text (the corpus's reference extractions) and synthetic vectors, side by side with one LanceDB table holding the same chunks, scanned flat; and,
//! optionally, on a real library with real questions.
//!
//! The synthetic library is generated once under `--data` and reused: every document of
//! `--chunks` passages, or a mix like a real library's (`--mixed`). Each size is measured in a
//! fresh child process (`--probe`), so that the memory it reports is the query path's own and its
//! first query is one after a restart (with the page cache dropped too, `--drop-caches`); each
//! mode is timed on questions no other mode asked.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::Instant;

use arrow_array::types::Float32Type;
use arrow_array::{FixedSizeListArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use futures::TryStreamExt;
use lancedb::query::{ExecutableQuery, QueryBase};
use lectern::catalog::{Catalog, ChunkId, NewDocument, PdfMetadata, Readied, Scope};
use lectern::chunk::{Chunk, ChunkerSettings};
use lectern::index::{block, IndexDirs, IndexStore, LocalStore};
use lectern::search::eval::read_questions;
use lectern::search::{SearchMode, SearchRequest};
use lectern::{DocumentStatus, Error, Library, LibraryConfig};
use lectern_synthetic::{publish, Provenance};
use serde::{Deserialize, Serialize};

use crate::args::SearchBenchArgs;

const DIMENSION: usize = 384;
const K: usize = 10;
const WORDS_PER_CHUNK: usize = 180;
const TOPICS: u64 = 64;

/// How many passages each synthetic document has.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
enum Shape {
    /// The same number each.
    Uniform(usize),
    /// A real library's mix: most documents of 10-60 passages, one in fifty of 1,000-4,000.
    Mixed,
}

impl Shape {
    fn of(args: &SearchBenchArgs) -> Shape {
        match args.mixed {
            true => Shape::Mixed,
            false => Shape::Uniform(args.chunks),
        }
    }

    /// The passages of document `doc`: the same for every run.
    fn chunks(self, doc: usize) -> usize {
        match self {
            Shape::Uniform(chunks) => chunks,
            Shape::Mixed => {
                let mut rng = Rng(doc as u64 * 6151 + 3);
                match rng.next() % 50 {
                    0 => 1000 + (rng.next() % 3001) as usize,
                    _ => 10 + (rng.next() % 51) as usize,
                }
            }
        }
    }

    /// The passages of the first `docs` documents.
    fn total(self, docs: usize) -> usize {
        (0..docs).map(|doc| self.chunks(doc)).sum()
    }

    fn describe(self) -> String {
        match self {
            Shape::Uniform(chunks) => format!("{chunks} chunks of {DIMENSION}-d per document"),
            Shape::Mixed => {
                format!("a mix of {DIMENSION}-d chunks per document (most 10-60, one in fifty 1,000-4,000)")
            }
        }
    }

    /// How a data directory's name says it.
    fn name(self) -> String {
        match self {
            Shape::Uniform(chunks) => chunks.to_string(),
            Shape::Mixed => "mixed".into(),
        }
    }
}

/// What the generated data directory holds, so a later run can reuse it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct DataSpec {
    sizes: Vec<usize>,
    chunks: usize,
    #[serde(default)]
    mixed: bool,
    texts: PathBuf,
    /// Whether each document has its stored PDF (data made before they had is made again).
    #[serde(default)]
    stored_pdfs: bool,
}

/// One size's figures, as a probe prints them.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Probe {
    documents: usize,
    chunks: usize,
    cold_ms: f64,
    /// Whether the page cache was dropped before the first query.
    #[serde(default)]
    cold_cache: bool,
    hybrid: Latency,
    vector: Latency,
    keyword: Latency,
    lancedb_flat: Option<Latency>,
    rss_before_mb: f64,
    rss_after_mb: f64,
    anon_before_mb: f64,
    anon_after_mb: f64,
    vector_blocks_mb: f64,
    /// The chunk ids and scores found for each timed question, hybrid's then vector's then
    /// keyword's.
    tops: Vec<Top>,
}

/// The chunk ids and scores of one question's hits.
type Top = Vec<(String, f32)>;

/// How a probe searches: the library's way (its wide index for a large scope), the database's,
/// or opening every document (the baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Store {
    Local,
    Exhaustive,
    Database,
}

impl Store {
    fn name(self) -> &'static str {
        match self {
            Store::Local => "local",
            Store::Exhaustive => "each-doc",
            Store::Database => "postgres",
        }
    }
}

/// The mean share of each of `exhaustive`'s lists that `found`'s list of the same question
/// matches: a passage of both, or one that scores as high as the last of `exhaustive`'s (a tie
/// with it, which scores summed in another order may break the other way).
fn recall(found: &[Top], exhaustive: &[Top]) -> f64 {
    let shares: Vec<f64> = found
        .iter()
        .zip(exhaustive)
        .filter(|(_, e)| !e.is_empty())
        .map(|(f, e)| {
            let last = e.iter().map(|(_, s)| *s).fold(f32::MAX, f32::min);
            let matched = f
                .iter()
                .filter(|(id, s)| e.iter().any(|(i, _)| i == id) || *s >= last - last.abs() * 1e-5)
                .count();
            matched.min(e.len()) as f64 / e.len() as f64
        })
        .collect();
    shares.iter().sum::<f64>() / shares.len().max(1) as f64
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Latency {
    pub p50: f64,
    pub p99: f64,
}

impl Latency {
    pub fn of(mut ms: Vec<f64>) -> Latency {
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| {
            ms.get(((ms.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        Latency {
            p50: at(0.5),
            p99: at(0.99),
        }
    }
}

pub async fn run(config: LibraryConfig, args: &SearchBenchArgs) -> anyhow::Result<ExitCode> {
    let mut sizes = args.sizes.clone();
    sizes.sort_unstable();
    sizes.dedup();
    if let Some(size) = args.probe {
        if let Some(probe) = probe(args, &sizes, size).await? {
            println!("{}", serde_json::to_string(&probe).unwrap_or_default());
        }
        return Ok(ExitCode::SUCCESS);
    }
    ensure_data(args, &sizes).await?;
    if let Some(url) = &args.database_url {
        share(args, &sizes, url).await?;
    }
    println!(
        "query latency (ms, k = {K}, question embedding not counted), {}, {} queries per size and mode",
        Shape::of(args).describe(),
        args.queries
    );
    println!(
        "{:>6} {:>8} {:>8}  {:>15} {:>15} {:>15}  {:>15}  {:>13}  {:>8} {:>15}",
        "docs",
        "chunks",
        "store",
        "hybrid p50/p99",
        "vector p50/p99",
        "keyword p50/p99",
        "LanceDB 1-table",
        "hybrid/Lance",
        "cold",
        "+RSS (heap) MB"
    );
    let exe = std::env::current_exe().map_err(Error::io("current executable"))?;
    let stores: &[Store] = if args.database_url.is_some() {
        &[Store::Local, Store::Exhaustive, Store::Database]
    } else {
        &[Store::Local, Store::Exhaustive]
    };
    for &size in sizes.iter().filter(|s| args.only.is_empty() || args.only.contains(s)) {
        let kept = probe_command(&exe, args, &sizes, size)
            .arg("--probe-keep")
            .stderr(Stdio::inherit())
            .status()
            .map_err(Error::io(&exe))?;
        if !kept.success() {
            return Err(anyhow::anyhow!(
                "the wide index of {size} documents could not be kept ({kept})"
            ));
        }
        let mut tops: Vec<(Store, Vec<Top>)> = Vec::new();
        for &store in stores {
            let mut command = probe_command(&exe, args, &sizes, size);
            command.args(["--queries", &args.queries.to_string()]);
            match (store, &args.database_url) {
                (Store::Database, Some(url)) => {
                    command.args(["--database-url", url, "--probe-database"]);
                }
                (Store::Exhaustive, _) => {
                    command.arg("--probe-exhaustive");
                }
                _ => {}
            }
            command.args(args.drop_caches.then_some("--drop-caches"));
            let output = command.stderr(Stdio::inherit()).output().map_err(Error::io(&exe))?;
            let line = String::from_utf8_lossy(&output.stdout);
            let p: Probe = serde_json::from_str(line.lines().last().unwrap_or_default())
                .map_err(|e| anyhow::anyhow!("the probe for {size} documents failed ({}): {e}", output.status))?;
            let pair = |l: Latency| format!("{:.1} / {:.1}", l.p50, l.p99);
            println!(
                "{:>6} {:>8} {:>8}  {:>15} {:>15} {:>15}  {:>15}  {:>13}  {:>8} {:>15}",
                p.documents,
                p.chunks,
                store.name(),
                pair(p.hybrid),
                pair(p.vector),
                pair(p.keyword),
                p.lancedb_flat.map_or("-".into(), pair),
                p.lancedb_flat.map_or("-".into(), |lance| format!(
                    "{:.2}x / {:.2}x",
                    p.hybrid.p50 / lance.p50,
                    p.hybrid.p99 / lance.p99
                )),
                format!("{:.0} ms{}", p.cold_ms, if p.cold_cache { "" } else { "*" }),
                format!(
                    "{:.0} ({:.0})",
                    p.rss_after_mb - p.rss_before_mb,
                    p.anon_after_mb - p.anon_before_mb
                ),
            );
            tops.push((store, p.tops));
        }
        let of = |s: Store| tops.iter().find(|(t, _)| *t == s).map(|(_, t)| t.as_slice());
        if let (Some(local), Some(exhaustive)) = (of(Store::Local), of(Store::Exhaustive)) {
            let per = local.len() / 3;
            let part = |i: usize, t: &[Top]| t[i * per..(i + 1) * per].to_vec();
            println!(
                "{:>6} recall@{K} of local against each-doc (ties counted): hybrid {:.3}, vector {:.3}, keyword {:.3}",
                "",
                recall(&part(0, local), &part(0, exhaustive)),
                recall(&part(1, local), &part(1, exhaustive)),
                recall(&part(2, local), &part(2, exhaustive)),
            );
        }
    }
    println!(
        "local: the library's way (through its wide index from {} documents); each-doc: every document's index \
         opened and searched (the way before the wide index); cold: the first query after a restart (*: the \
         page cache was not dropped before it); +RSS: resident memory after the timed queries minus before the first (heap: \
         the anonymous part, without mapped index files)",
        lectern::index::WIDE_INDEX_FROM
    );
    if let (Some(questions), Some(folder)) = (&args.questions, &args.folder) {
        real_run(config, questions, folder, args.queries).await?;
    }
    Ok(ExitCode::SUCCESS)
}

/// This program run again to probe `size` of the synthetic library of `sizes`.
fn probe_command(exe: &Path, args: &SearchBenchArgs, sizes: &[usize], size: usize) -> Command {
    let mut command = Command::new(exe);
    command
        .args(["search", "--data"])
        .arg(&args.data)
        .args(["--sizes", &join(sizes), "--chunks", &args.chunks.to_string(), "--texts"])
        .arg(&args.texts)
        .args(["--probe", &size.to_string()])
        .args(args.mixed.then_some("--mixed"))
        .args(args.without_lancedb.then_some("--without-lancedb"));
    command
}

/// Copies the synthetic library into the database at `url` (`lectern library export`), unless
/// it holds it already, and prints how fast it went in.
async fn share(args: &SearchBenchArgs, sizes: &[usize], url: &str) -> anyhow::Result<()> {
    let mut config = LibraryConfig::from_env(None, None)?;
    config.home = home(&data_dir(args, sizes));
    let library = Library::open(config)?;
    let started = Instant::now();
    match library.export(url).await {
        Ok(exported) => {
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "exported {} documents ({} passages) into PostgreSQL in {seconds:.1} s: {:.0} passages/s \
                 (read back from the indexes on disk and written in one transaction each)",
                exported.indexes,
                Shape::of(args).total(exported.indexes),
                Shape::of(args).total(exported.indexes) as f64 / seconds.max(1e-9)
            );
        }
        // A database the benchmark filled before; its probe checks that it holds every document.
        Err(Error::ExportTarget { reason, .. }) => println!("not exported: {reason}"),
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// The synthetic library of `size` documents of `chunks` passages (generated under `data` as
/// this benchmark does, unless it is there), and `count` questions quoting its passages.
pub async fn synthetic_library(
    data: &Path,
    size: usize,
    chunks: usize,
    texts: &Path,
    count: usize,
) -> anyhow::Result<(PathBuf, Vec<String>)> {
    let args = SearchBenchArgs {
        data: data.to_path_buf(),
        sizes: vec![size],
        chunks,
        mixed: false,
        drop_caches: false,
        texts: texts.to_path_buf(),
        queries: count,
        questions: None,
        folder: None,
        database_url: None,
        probe: None,
        probe_database: false,
        only: Vec::new(),
        probe_exhaustive: false,
        probe_keep: false,
        without_lancedb: false,
    };
    ensure_data(&args, &args.sizes).await?;
    let texts = Texts::load(texts)?;
    let questions = questions(count, size, Shape::Uniform(chunks), &texts)
        .into_iter()
        .map(|(q, _)| q)
        .collect();
    Ok((home(&data_dir(&args, &args.sizes)), questions))
}

fn join(sizes: &[usize]) -> String {
    sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// Each set of sizes and chunk count has a directory of its own under `--data`, so that a run
/// with other sizes does not replace the data of another.
fn data_dir(args: &SearchBenchArgs, sizes: &[usize]) -> PathBuf {
    let sizes: Vec<String> = sizes.iter().map(usize::to_string).collect();
    args.data
        .join(format!("{}x{}", sizes.join("-"), Shape::of(args).name()))
}

fn home(data: &Path) -> PathBuf {
    data.join("library")
}

/// The folder holding the documents that take the library from the previous size to `sizes[i]`.
fn part_name(i: usize) -> String {
    format!("part-{}", i + 1)
}

/// Generates the synthetic library and the baseline tables unless `--data` already has them.
async fn ensure_data(args: &SearchBenchArgs, sizes: &[usize]) -> anyhow::Result<()> {
    let spec = DataSpec {
        sizes: sizes.to_vec(),
        chunks: args.chunks,
        mixed: args.mixed,
        texts: args.texts.clone(),
        stored_pdfs: true,
    };
    let data = data_dir(args, sizes);
    let spec_path = data.join("spec.json");
    let same_spec = std::fs::read_to_string(&spec_path)
        .ok()
        .and_then(|t| serde_json::from_str::<DataSpec>(&t).ok())
        .is_some_and(|s| s == spec);
    // A library whose documents an indexer set aside (data made before the documents had their
    // stored PDFs, opened by the app) is made again.
    let all_ready = || {
        Catalog::open(&home(&data).join("library.sqlite"))
            .and_then(|c| c.documents_with_status(DocumentStatus::Ready))
            .is_ok_and(|ready| sizes.iter().max().is_some_and(|&n| ready.len() == n))
    };
    if same_spec && all_ready() {
        return Ok(());
    }
    if data.exists() {
        std::fs::remove_dir_all(&data).map_err(Error::io(&data))?;
    }
    let home = home(&data);
    let mut config = LibraryConfig::from_env(None, None)?;
    config.home = home.clone();
    let library = Library::open(config)?;
    let catalog = Catalog::open(&home.join("library.sqlite"))?;
    let store = LocalStore::new(IndexDirs::new(home.join("indexes")), 1)?;
    let texts = Texts::load(&args.texts)?;
    // The synthetic vectors stand for the library's model's: searched as its own.
    let embedder = library.embedder_id()?;
    let started = Instant::now();
    let mut made = 0;
    for (i, &size) in sizes.iter().enumerate() {
        let folder = library.create_folder(&part_name(i))?;
        for doc in made..size {
            write_document(
                &library,
                &catalog,
                &store,
                folder.id,
                doc,
                Shape::of(args).chunks(doc),
                &texts,
                &embedder,
            )
            .await?;
            if doc % 100 == 99 {
                eprintln!(
                    "generated {} documents ({:.0} s)",
                    doc + 1,
                    started.elapsed().as_secs_f64()
                );
            }
        }
        made = size;
        write_baseline(&data.join(format!("baseline-{size}")), size, Shape::of(args), &texts).await?;
        eprintln!("baseline table of {} chunks written", Shape::of(args).total(size));
    }
    let text = serde_json::to_string(&spec).unwrap_or_default();
    Ok(std::fs::write(&spec_path, text).map_err(Error::io(&spec_path))?)
}

/// The chunks and vectors of synthetic document `doc`: the same for every run.
fn synthetic(doc: usize, chunks: usize, texts: &Texts) -> (Vec<Chunk>, Vec<Vec<f32>>) {
    let mut rng = Rng(doc as u64 * 7919 + 1);
    let topic = topic_centre(doc as u64 % TOPICS);
    let mut out_chunks = Vec::with_capacity(chunks);
    let mut vectors = Vec::with_capacity(chunks);
    let source = texts.pick(doc);
    let offset = (rng.next() % source.len() as u64) as usize;
    for c in 0..chunks {
        let start = offset + c * WORDS_PER_CHUNK;
        let text = (start..start + WORDS_PER_CHUNK)
            .map(|i| source[i % source.len()].as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let page = (c / 3) as u32 + 1;
        let start = (c % 3) as u32 * 1000;
        out_chunks.push(Chunk {
            id: ChunkId(format!(
                "{:024x}",
                u128::from(rng.next()) << 32 | u128::from(rng.next() as u32)
            )),
            page,
            char_start: start,
            char_end: start + text.chars().count() as u32,
            text,
            context: String::new(),
        });
        let mut v: Vec<f32> = topic.iter().map(|t| t * 0.6 + rng.gaussian() * 0.05).collect();
        block::normalize(&mut v);
        vectors.push(v);
    }
    (out_chunks, vectors)
}

fn topic_centre(topic: u64) -> Vec<f32> {
    let mut rng = Rng(topic * 104_729 + 17);
    let mut v: Vec<f32> = (0..DIMENSION).map(|_| rng.gaussian()).collect();
    block::normalize(&mut v);
    v
}

/// Synthetic document `doc`: its catalog record, its index, and a stored PDF showing the start of
/// its text (so an indexer opened on the library finds its file, and a viewer can open it).
#[allow(clippy::too_many_arguments)]
async fn write_document(
    library: &Library,
    catalog: &Catalog,
    store: &dyn IndexStore,
    folder: lectern::FolderId,
    doc: usize,
    chunks: usize,
    texts: &Texts,
    embedder: &str,
) -> anyhow::Result<()> {
    let (chunk_list, vectors) = synthetic(doc, chunks, texts);
    let words: Vec<&str> = chunk_list.first().map_or(Vec::new(), |c| c.text.split(' ').collect());
    let lines: Vec<String> = words.chunks(12).map(|line| line.join(" ")).collect();
    let pdf = lectern::pdf::text_pdf(&lines.iter().map(String::as_str).collect::<Vec<_>>());
    let content_hash = format!("{doc:064x}");
    let stored = library.stored_file_path(&content_hash)?;
    if let Some(parent) = stored.parent() {
        std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
    }
    std::fs::write(&stored, &pdf).map_err(Error::io(&stored))?;
    let row = catalog.insert_document(&NewDocument {
        folder,
        file_name: format!("synthetic-{doc:05}.pdf"),
        byte_size: pdf.len() as u64,
        content_hash,
        origin: None,
    })?;
    let meta = PdfMetadata {
        page_count: chunk_list.last().map_or(0, |c| u64::from(c.page)),
        ..PdfMetadata::default()
    };
    let provenance = Provenance {
        content_hash: &row.content_hash,
        embedder,
        chunker: ChunkerSettings::default(),
        metadata: &meta,
    };
    let manifest = publish(store, row.id, &chunk_list, &vectors, DIMENSION, &provenance).await?;
    let ready = Readied {
        meta: &meta,
        chars: manifest.char_count,
        chunks: manifest.chunk_count,
        note: None,
        embedded_with: Some(embedder),
    };
    catalog.set_ready(row.id, &ready)?;
    Ok(())
}

/// One LanceDB table holding every chunk of the first `size` documents.
async fn write_baseline(dir: &Path, size: usize, shape: Shape, texts: &Texts) -> anyhow::Result<()> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("chunk_id", DataType::Utf8, false),
        Field::new(
            "vector",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, true)), DIMENSION as i32),
            false,
        ),
    ]));
    let db = lancedb::connect(&dir.to_string_lossy())
        .execute()
        .await
        .map_err(lectern::index::IndexError::from)?;
    let mut table = None;
    for start in (0..size).step_by(50) {
        let mut ids = Vec::new();
        let mut vectors = Vec::new();
        for doc in start..(start + 50).min(size) {
            let (c, v) = synthetic(doc, shape.chunks(doc), texts);
            ids.extend(c.into_iter().map(|c| format!("{doc}:{}", c.id.0)));
            vectors.extend(v);
        }
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(StringArray::from(ids)),
                Arc::new(FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
                    vectors
                        .into_iter()
                        .map(|v| Some(v.into_iter().map(Some).collect::<Vec<_>>())),
                    DIMENSION as i32,
                )),
            ],
        )
        .map_err(lectern::index::IndexError::from)?;
        match &table {
            None => {
                table = Some(
                    db.create_table("chunks", batch)
                        .execute()
                        .await
                        .map_err(lectern::index::IndexError::from)?,
                )
            }
            Some(t) => {
                t.add(batch).execute().await.map_err(lectern::index::IndexError::from)?;
            }
        }
    }
    Ok(())
}

/// The synthetic questions: a vector near a random chunk, and a few words of mixed frequency.
fn questions(count: usize, documents: usize, shape: Shape, texts: &Texts) -> Vec<(String, Vec<f32>)> {
    let mut rng = Rng(424_242);
    (0..count)
        .map(|_| {
            let doc = (rng.next() % documents as u64) as usize;
            let (c, v) = synthetic(doc, shape.chunks(doc), texts);
            let pick = (rng.next() % c.len().max(1) as u64) as usize;
            let mut q: Vec<f32> = v[pick].iter().map(|x| x + rng.gaussian() * 0.03).collect();
            block::normalize(&mut q);
            // Six consecutive words of the passage, as a person quoting it would type them.
            let words: Vec<&str> = c[pick].text.split(' ').collect();
            let at = (rng.next() % words.len().saturating_sub(6).max(1) as u64) as usize;
            (words[at..(at + 6).min(words.len())].join(" "), q)
        })
        .collect()
}

/// Measures one size in this process.
async fn probe(args: &SearchBenchArgs, sizes: &[usize], size: usize) -> anyhow::Result<Option<Probe>> {
    let parts = sizes.iter().position(|s| *s == size).ok_or_else(|| Error::Config {
        name: "--probe".into(),
        reason: format!("{size} is not one of the sizes"),
    })?;
    let mut config = LibraryConfig::from_env(None, None)?;
    let data = data_dir(args, sizes);
    config.database_url = args.database_url.clone().filter(|_| args.probe_database);
    if args.probe_exhaustive {
        config.wide_index_from = usize::MAX;
    }
    // The library in the database is opened from a data directory of its own, as on another machine.
    config.home = match config.database_url {
        Some(_) => data.join("library-in-database"),
        None => home(&data),
    };
    let library = Library::open(config)?;
    let folders = (0..=parts)
        .map(|i| library.folder(&part_name(i)).map(|f| f.id))
        .collect::<Result<Vec<_>, _>>()?;
    let scope = Scope {
        folders,
        ..Scope::default()
    };
    let texts = Texts::load(&args.texts)?;
    if args.probe_keep {
        // What the indexer does by itself (the first time over data made before there was one,
        // a rebuild of the whole wide index).
        let started = Instant::now();
        let kept = library.keep_wide_index()?;
        eprintln!(
            "wide index of {size} documents: {} covered, {} newly, in {:.1} s",
            kept.total,
            kept.covered,
            started.elapsed().as_secs_f64()
        );
        return Ok(None);
    }
    // Ten to warm up, then a set of its own for each mode.
    let qs = questions(3 * args.queries + 10, size, Shape::of(args), &texts);
    let cold_cache = args.drop_caches && drop_page_cache();
    let rss_before = rss_mb();

    let request = |q: &str, mode| SearchRequest {
        query: q.to_string(),
        scope: scope.clone(),
        k: K,
        mode,
        second_stage: false,
    };
    let started = Instant::now();
    let first = library
        .search_with_vector(&request(&qs[0].0, SearchMode::Hybrid), Some(qs[0].1.clone()))
        .await?;
    let cold_ms = started.elapsed().as_secs_f64() * 1000.0;
    if first.documents_searched != size || !first.skipped.is_empty() {
        return Err(anyhow::anyhow!(
            "searched {} documents and skipped {}, expected {size} and none",
            first.documents_searched,
            first.skipped.len()
        ));
    }
    let (warm, timed) = qs.split_at(10);
    for (text, vector) in warm {
        library
            .search_with_vector(&request(text, SearchMode::Hybrid), Some(vector.clone()))
            .await?;
    }
    let mut latency = Vec::new();
    let mut tops = Vec::new();
    for (mode, timed) in [SearchMode::Hybrid, SearchMode::Vector, SearchMode::Keyword]
        .into_iter()
        .zip(timed.chunks(args.queries))
    {
        let mut ms = Vec::with_capacity(timed.len());
        for (text, vector) in timed {
            let vector = (mode != SearchMode::Keyword).then(|| vector.clone());
            let started = Instant::now();
            let found = library.search_with_vector(&request(text, mode), vector).await?;
            ms.push(started.elapsed().as_secs_f64() * 1000.0);
            tops.push(found.hits.iter().map(|h| (h.chunk_id.clone(), h.score)).collect());
        }
        latency.push(Latency::of(ms));
    }
    let rss_after = rss_mb();
    let (_, block_bytes) = library.search_cache().usage();

    let lancedb_flat = match args.without_lancedb {
        true => None,
        false => Some(lancedb_flat(&data, size, &qs[..10 + args.queries]).await?),
    };
    Ok(Some(Probe {
        documents: size,
        chunks: Shape::of(args).total(size),
        cold_ms,
        cold_cache,
        hybrid: latency[0],
        vector: latency[1],
        keyword: latency[2],
        lancedb_flat,
        rss_before_mb: rss_before.0,
        rss_after_mb: rss_after.0,
        anon_before_mb: rss_before.1,
        anon_after_mb: rss_after.1,
        vector_blocks_mb: block_bytes as f64 / 1e6,
        tops,
    }))
}

/// The one-table LanceDB baseline's latency: a flat scan of the size's table for each question
/// (the first ten to warm up).
async fn lancedb_flat(data: &Path, size: usize, questions: &[(String, Vec<f32>)]) -> anyhow::Result<Latency> {
    let db = lancedb::connect(&data.join(format!("baseline-{size}")).to_string_lossy())
        .execute()
        .await
        .map_err(lectern::index::IndexError::from)?;
    let table = db
        .open_table("chunks")
        .execute()
        .await
        .map_err(lectern::index::IndexError::from)?;
    let mut ms = Vec::with_capacity(questions.len());
    for (i, (_, vector)) in questions.iter().enumerate() {
        let started = Instant::now();
        let batches: Vec<RecordBatch> = table
            .query()
            .nearest_to(vector.as_slice())
            .map_err(lectern::index::IndexError::from)?
            .distance_type(lancedb::DistanceType::Cosine)
            .bypass_vector_index()
            .limit(K)
            .execute()
            .await
            .map_err(lectern::index::IndexError::from)?
            .try_collect()
            .await
            .map_err(lectern::index::IndexError::from)?;
        if i >= 10 {
            ms.push(started.elapsed().as_secs_f64() * 1000.0);
        }
        if batches.iter().map(RecordBatch::num_rows).sum::<usize>() != K {
            return Err(anyhow::anyhow!("the baseline table returned fewer rows than asked"));
        }
    }
    Ok(Latency::of(ms))
}

/// Latency of real questions on a real library (`--home`), question embedding not counted.
async fn real_run(config: LibraryConfig, questions: &Path, folder: &str, rounds: usize) -> anyhow::Result<()> {
    let library = Library::open(config.clone())?;
    let scope = Scope {
        folders: vec![library.folder(folder)?.id],
        ..Scope::default()
    };
    let docs = library.documents_in_scope(&scope)?;
    let qs = read_questions(questions)?;
    let mut embedded = Vec::new();
    for q in &qs {
        embedded.push((q.question.clone(), library.embed_query(&q.question).await?));
    }
    let chunks: u64 = docs.len() as u64;
    println!(
        "\nreal library: {} ready documents in {folder}, {} questions from {}",
        chunks,
        qs.len(),
        questions.display()
    );
    let request = |text: &str, mode| SearchRequest {
        query: text.to_string(),
        scope: scope.clone(),
        k: K,
        mode,
        second_stage: false,
    };
    let repeat = (rounds / qs.len().max(1)).max(1);
    for mode in SearchMode::ALL {
        let mut ms = Vec::new();
        for round in 0..=repeat {
            for (text, vector) in &embedded {
                let request = request(text, mode);
                let started = Instant::now();
                library.search_with_vector(&request, Some(vector.clone())).await?;
                if round > 0 {
                    ms.push(started.elapsed().as_secs_f64() * 1000.0);
                }
            }
        }
        let l = Latency::of(ms);
        println!("  {:<8} p50 {:.1} ms, p99 {:.1} ms", mode.as_str(), l.p50, l.p99);
    }
    // The same questions through the library's wide index and through every document's index.
    let through = Library::open(LibraryConfig {
        wide_index_from: 1,
        ..config.clone()
    })?;
    through.keep_wide_index()?;
    let every = Library::open(LibraryConfig {
        wide_index_from: usize::MAX,
        ..config
    })?;
    for mode in SearchMode::ALL {
        let (mut found, mut exhaustive) = (Vec::new(), Vec::new());
        for (text, vector) in &embedded {
            let request = request(text, mode);
            for (library, tops) in [(&through, &mut found), (&every, &mut exhaustive)] {
                let hits = library.search_with_vector(&request, Some(vector.clone())).await?.hits;
                tops.push(hits.into_iter().map(|h| (h.chunk_id, h.score)).collect::<Top>());
            }
        }
        println!(
            "  {:<8} recall@{K} of the wide index against each document's index (ties counted): {:.3}",
            mode.as_str(),
            recall(&found, &exhaustive)
        );
    }
    Ok(())
}

/// Resident memory of this process, in MB: all of it, and the part that is anonymous (heap)
/// rather than mapped files.
/// Writes back and drops the operating system's page cache, as a machine that just started has
/// none; false where that is not allowed (not root, or in a container that forbids it).
fn drop_page_cache() -> bool {
    let synced = Command::new("sync").status().is_ok_and(|s| s.success());
    synced && std::fs::write("/proc/sys/vm/drop_caches", "3\n").is_ok()
}

fn rss_mb() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("RssAnon:"))
}

/// SplitMix64: a small deterministic generator, enough for synthetic data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn gaussian(&mut self) -> f32 {
        let (u, v) = (self.uniform().max(1e-12), self.uniform());
        ((-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()) as f32
    }
}

/// Real text to fill synthetic documents with, so that keyword indexes have the vocabulary and
/// term frequencies of real documents: the words of the corpus's reference extractions.
struct Texts {
    sources: Vec<Vec<String>>,
}

impl Texts {
    fn load(dir: &Path) -> anyhow::Result<Texts> {
        let entries = std::fs::read_dir(dir).map_err(Error::io(dir))?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".pdftotext.txt"))
            .collect();
        paths.sort();
        let mut sources = Vec::new();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
            let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
            // Long enough that a document is not one page repeated.
            if words.len() >= 1_000 {
                sources.push(words);
            }
        }
        if sources.is_empty() {
            return Err(Error::NotFound(dir.join("*.pdftotext.txt")).into());
        }
        Ok(Texts { sources })
    }

    /// The words synthetic document `doc` is cut from.
    fn pick(&self, doc: usize) -> &[String] {
        &self.sources[doc % self.sources.len()]
    }
}
