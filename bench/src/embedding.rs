//! The embedding figures of `lectern-bench index`: chunks per second on 256-token inputs, with
//! Lectern's model on ONNX Runtime beside sentence-transformers (PyTorch), same texts, same run;
//! and how closely the int8 products' vectors agree with the f32 ones.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use lectern::chunk::{Chunker, ChunkerSettings};
use lectern::embed::{tokenizer_for_batches, Embedder, MiniLm, Parallelism, Precision, MINILM_DIR, TOKENIZER_FILE};
use lectern::pdf::{Extracted, PdfReader};
use lectern::{Error, LibraryConfig};
use serde::Deserialize;

use crate::index::{header, row};

#[derive(Deserialize)]
struct Baseline {
    chunks_per_second: f64,
    runtime: String,
}

/// Chunks per second on 256-token inputs from `files`, beside sentence-transformers.
pub fn run(config: &LibraryConfig, files: &[std::path::PathBuf], wanted: usize, scratch: &Path) -> anyhow::Result<()> {
    let model_dir = config.models_dir.join(MINILM_DIR);
    let texts = full_windows(&model_dir, files, wanted)?;
    let inputs = scratch.join("inputs.json");
    std::fs::write(&inputs, serde_json::to_string(&texts)?).map_err(Error::io(&inputs))?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    header(
        &format!("embedding all-MiniLM-L6-v2, {} inputs of about 256 tokens", texts.len()),
        "sentence-transformers",
    );
    let mut runtime_name = None;
    let mut lectern_vectors = Vec::new();
    for threads in [1usize, 2] {
        for (precision, layout) in [Precision::F32, Precision::Int8]
            .into_iter()
            .flat_map(|p| layouts(threads).into_iter().map(move |l| (p, l)))
        {
            let model = MiniLm::load(&model_dir, layout, precision)?;
            let (speed, vectors) = chunks_per_second(&refs, layout.sessions, |part| Ok(model.embed(part)?))?;
            lectern_vectors.retain(|(p, _)| *p != precision);
            lectern_vectors.push((precision, vectors));
            let label = format!(
                "lectern {precision} chunks/s, {threads} core(s): {} x {} thread(s)",
                layout.sessions, layout.threads
            );
            match python_baseline(&model_dir, &inputs, threads) {
                Ok(b) => {
                    row(
                        &label,
                        format!("{speed:.1}"),
                        format!("{:.1}", b.chunks_per_second),
                        Some(speed / b.chunks_per_second),
                    );
                    runtime_name = Some(b.runtime);
                }
                Err(reason) => row(&label, format!("{speed:.1}"), reason, None),
            }
        }
    }
    let vectors_of = |wanted: Precision| lectern_vectors.iter().find(|(p, _)| *p == wanted).map(|(_, v)| v);
    if let (Some(f32_vectors), Some(int8_vectors)) = (vectors_of(Precision::F32), vectors_of(Precision::Int8)) {
        let agreement: Vec<f32> = int8_vectors
            .iter()
            .zip(f32_vectors)
            .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum())
            .collect();
        let mean = agreement.iter().sum::<f32>() / agreement.len().max(1) as f32;
        let min = agreement.iter().copied().fold(f32::INFINITY, f32::min);
        println!("  cosine of lectern int8's and f32's vectors: mean {mean:.5}, lowest {min:.5}");
    }
    println!(
        "  lectern: all-MiniLM-L6-v2 on ONNX Runtime 1.31 (the int8 export's graph; f32: its f32 weights, int8: \
         integer products); sessions side by side x threads each; this machine's default: {}",
        Precision::for_this_machine()
    );
    if let Some(name) = runtime_name {
        println!("  baseline: {name}, torch.set_num_threads(cores)");
    }
    println!();
    Ok(())
}

/// The ways to spend `threads` cores: one session on all of them, or one session on each.
fn layouts(threads: usize) -> Vec<Parallelism> {
    let mut layouts = vec![Parallelism { sessions: 1, threads }];
    if threads > 1 {
        layouts.push(Parallelism {
            sessions: threads,
            threads: 1,
        });
    }
    layouts
}

/// Embeds `texts` split among `side_by_side` threads: chunks per second and the vectors, in order.
fn chunks_per_second(
    texts: &[&str],
    side_by_side: usize,
    embed: impl Fn(&[&str]) -> anyhow::Result<Vec<Vec<f32>>> + Sync,
) -> anyhow::Result<(f64, Vec<Vec<f32>>)> {
    embed(&texts[..texts.len().min(16)])?;
    let start = Instant::now();
    let share = texts.len().div_ceil(side_by_side.max(1)).max(1);
    let parts = std::thread::scope(|scope| -> anyhow::Result<Vec<Vec<Vec<f32>>>> {
        let handles: Vec<_> = texts.chunks(share).map(|part| scope.spawn(|| embed(part))).collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| anyhow::anyhow!("an embedding thread panicked"))?)
            .collect()
    })?;
    let speed = texts.len() as f64 / start.elapsed().as_secs_f64();
    Ok((speed, parts.concat()))
}

/// The files' text as one stream cut into full windows, so that every input is 256 tokens long.
fn full_windows(model_dir: &Path, files: &[std::path::PathBuf], wanted: usize) -> anyhow::Result<Vec<String>> {
    // 254 tokens of text plus the model's two special tokens.
    let chunker = Chunker::new(
        tokenizer_for_batches(&model_dir.join(TOKENIZER_FILE))?,
        ChunkerSettings {
            max_tokens: 254,
            overlap_tokens: 0,
        },
    );
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
    Ok(texts)
}

fn python_baseline(model_dir: &Path, inputs: &Path, threads: usize) -> Result<Baseline, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/bench_sentence_transformers.py");
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
