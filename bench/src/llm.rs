//! `lectern-bench llm`: the built-in model's time to first token and tokens per second, with
//! llama.cpp (the runtime Lectern uses) beside candle's quantised llama on the same prompt tokens,
//! one thread each, in the same run. Candle is built only with the bench's `candle` feature
//! (`cargo run -p lectern-bench --release --features candle -- llm …`): it is a baseline, not
//! part of the product, and the tests' build leaves it out. Then a new question's first token read
//! whole beside the same question after another and its support check, the model having kept the
//! instructions' tokens.

use std::time::{Duration, Instant};

use lectern::answer::context::{frame, passage_block, INSTRUCTIONS};
use lectern::llm::{BuiltinModel, Cancel, GenerateOptions, LanguageModel, Message, Role};
use lectern::{Error, LibraryConfig};

use crate::args::LlmBenchArgs;

/// One runtime's figures, medians over the runs.
struct Figures {
    first_token: Duration,
    tokens_per_second: f64,
    tokens: usize,
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn summarize(runs: Vec<(Duration, Duration, usize)>) -> Figures {
    let tokens = runs.iter().map(|r| r.2).min().unwrap_or(0);
    Figures {
        first_token: Duration::from_secs_f64(median(runs.iter().map(|r| r.0.as_secs_f64()).collect())),
        tokens_per_second: median(
            runs.iter()
                .map(|(first, total, n)| (n.saturating_sub(1)) as f64 / (*total - *first).as_secs_f64().max(1e-9))
                .collect(),
        ),
        tokens,
    }
}

/// A question over a few real passages (the text's `first` 120-word chunk and the three after
/// it), framed and labelled as `lectern ask` puts them.
fn prompt_messages(text: &str, first: usize) -> Vec<Message> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let passages: String = words
        .chunks(120)
        .skip(first)
        .take(4)
        .enumerate()
        .map(|(i, chunk)| passage_block(i + 1, "bench.pdf", i as u32 + 1, "", &chunk.join(" ")))
        .collect();
    let (head, tail) = frame("What are the risks this document describes?");
    vec![
        Message::new(Role::System, INSTRUCTIONS),
        Message::new(Role::User, format!("{head}{passages}{tail}")),
    ]
}

pub fn run(config: LibraryConfig, args: LlmBenchArgs) -> anyhow::Result<()> {
    let path = match &args.model {
        Some(path) => path.clone(),
        None => lectern::models::ModelStore::new(&config.models_dir).chat_model_path(None)?,
    };
    let text = std::fs::read_to_string(&args.text).map_err(Error::io(&args.text))?;
    let llama = BuiltinModel::load(&path, 1)?;
    let prompt = llama.render(&prompt_messages(&text, 0))?;
    let tokens = llama.tokenize(&prompt);
    let options = GenerateOptions {
        max_tokens: args.tokens,
        temperature: 0.0,
    };
    println!(
        "model {}, prompt of {} tokens, {} tokens generated, greedy, 1 thread, median of {} runs",
        path.display(),
        tokens.len(),
        args.tokens,
        args.runs
    );

    let mut runs = Vec::new();
    let mut sample = String::new();
    for _ in 0..args.runs {
        // A model of its own each run: a model keeps its last prompt's tokens read.
        let model = BuiltinModel::load(&path, 1)?;
        let started = Instant::now();
        let mut first = None;
        let mut pieces = 0;
        sample.clear();
        model.generate_from_tokens(&tokens, &options, &Cancel::new(), &mut |piece| {
            first.get_or_insert_with(|| started.elapsed());
            pieces += 1;
            sample.push_str(piece);
        })?;
        runs.push((first.unwrap_or_default(), started.elapsed(), pieces));
    }
    let llama_figures = summarize(runs);

    println!("\n  runtime          first token   tokens/s   tokens");
    print_figures("llama.cpp", &llama_figures);
    #[cfg(feature = "candle")]
    {
        let ids: Vec<u32> = tokens.iter().map(|t| t.0 as u32).collect();
        let mut runs = Vec::new();
        for _ in 0..args.runs {
            runs.push(candle::run(&path, &ids, args.tokens).map_err(|e| anyhow::anyhow!("candle: {e}"))?);
        }
        let candle_figures = summarize(runs);
        print_figures("candle 0.9", &candle_figures);
        println!(
            "\n  llama.cpp / candle: first token {:.2}x faster, generation {:.2}x faster",
            candle_figures.first_token.as_secs_f64() / llama_figures.first_token.as_secs_f64().max(1e-9),
            llama_figures.tokens_per_second / candle_figures.tokens_per_second.max(1e-9)
        );
    }
    #[cfg(not(feature = "candle"))]
    println!("  candle 0.9     (baseline built with --features candle)");

    // A new question after another: the instructions' tokens are kept from the last prompt.
    let other = llama.tokenize(&llama.render(&prompt_messages(&text, 4))?);
    let kept = tokens.iter().zip(&other).take_while(|(a, b)| a == b).count();
    let first_token = |model: &BuiltinModel| -> anyhow::Result<Duration> {
        let started = Instant::now();
        let mut first = None;
        let one = GenerateOptions {
            max_tokens: 1,
            temperature: 0.0,
        };
        model.generate_from_tokens(&other, &one, &Cancel::new(), &mut |_| {
            first.get_or_insert_with(|| started.elapsed());
        })?;
        Ok(first.unwrap_or_else(|| started.elapsed()))
    };
    let check = [
        Message::new(Role::System, "Reply with one word: yes or no."),
        Message::new(Role::User, "Is the answer stated in the excerpts?"),
    ];
    let (mut whole, mut after) = (Vec::new(), Vec::new());
    for _ in 0..args.runs {
        whole.push(first_token(&BuiltinModel::load(&path, 1)?)?.as_secs_f64());
        // The question before, then its support check (other instructions), as an answer goes.
        llama.generate_from_tokens(&tokens, &options, &Cancel::new(), &mut |_| {})?;
        llama.generate(&check, &options, &Cancel::new(), &mut |_| {})?;
        after.push(first_token(&llama)?.as_secs_f64());
    }
    let (whole, after) = (median(whole), median(after));
    println!(
        "\n  a new question of {} tokens, first token: read whole {:.0} ms, after another question and its check {:.0} ms \
         ({kept} tokens kept; {:.2}x)",
        other.len(),
        whole * 1000.0,
        after * 1000.0,
        whole / after.max(1e-9)
    );
    println!("\n  llama.cpp answered: {}", sample.trim().replace('\n', " "));
    Ok(())
}

fn print_figures(name: &str, f: &Figures) {
    println!(
        "  {name:<14} {:>10.0} ms {:>10.1} {:>8}",
        f.first_token.as_secs_f64() * 1000.0,
        f.tokens_per_second,
        f.tokens
    );
}

/// The baseline: candle's quantised llama.
#[cfg(feature = "candle")]
mod candle {
    use std::path::Path;
    use std::time::{Duration, Instant};

    use candle_core::quantized::gguf_file;
    use candle_core::{Device, Tensor};
    use candle_transformers::models::quantized_llama::ModelWeights;

    /// One greedy generation: (time to first token, total time, tokens generated).
    pub fn run(path: &Path, prompt: &[u32], tokens: usize) -> candle_core::Result<(Duration, Duration, usize)> {
        let mut file = std::fs::File::open(path)?;
        let content = gguf_file::Content::read(&mut file)?;
        let device = Device::Cpu;
        let mut model = ModelWeights::from_gguf(content, &mut file, &device)?;
        let started = Instant::now();
        let input = Tensor::new(prompt, &device)?.unsqueeze(0)?;
        let mut logits = model.forward(&input, 0)?;
        let mut first = None;
        let mut generated = 0;
        for position in prompt.len()..prompt.len() + tokens {
            let next = logits.squeeze(0)?.argmax(0)?.to_scalar::<u32>()?;
            first.get_or_insert_with(|| started.elapsed());
            generated += 1;
            if generated == tokens {
                break;
            }
            logits = model.forward(&Tensor::new(&[next], &device)?.unsqueeze(0)?, position)?;
        }
        Ok((first.unwrap_or_default(), started.elapsed(), generated))
    }
}
