//! `lectern-bench ask`: the end-to-end time of a question, from the question to the last word of
//! the stored answer (embedding, fan-out search, answer, chat kept), over a folder of the library
//! in `--home`, with the extractive and the built-in backends in the same run. The chats it makes
//! are deleted again.

use std::sync::Arc;
use std::time::Instant;

use lectern::answer::{AnswerEvent, AnswerKind};
use lectern::catalog::Scope;
use lectern::llm::{Backend, Cancel, LanguageModel};
use lectern::search::eval::read_questions;
use lectern::{AskRequest, Library, LibraryConfig};
use tokio::sync::mpsc;

use crate::args::AskBenchArgs;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0)
}

pub async fn run(config: LibraryConfig, args: &AskBenchArgs) -> anyhow::Result<()> {
    let (defaults, models_dir) = (config.backend_defaults.clone(), config.models_dir.clone());
    let library = Library::open(config)?;
    let folder = library.folder(&args.folder)?;
    let scope = Scope {
        folders: vec![folder.id],
        ..Scope::default()
    };
    let documents = library.documents_in_scope(&scope)?.len();
    let questions = read_questions(&args.questions)?;
    let questions: Vec<String> = questions.into_iter().take(args.count).map(|q| q.question).collect();
    println!(
        "lectern ask over {} ({documents} ready documents), {} questions from {}, k = {}, built-in model on {} thread(s)",
        args.folder,
        questions.len(),
        args.questions.display(),
        args.k,
        args.threads
    );
    println!("\n  backend       load      first question   median   p90      first text (median)   answers");
    for name in ["extractive", "builtin"] {
        let backend = Backend::from_settings(name, None, None, None, &defaults, &models_dir)?;
        let threads = args.threads;
        let started = Instant::now();
        let model: Option<Arc<dyn LanguageModel>> =
            tokio::task::spawn_blocking(move || backend.connect(threads)).await??;
        let load_ms = started.elapsed().as_secs_f64() * 1000.0;
        let (mut total, mut first_text, mut kinds) = (Vec::new(), Vec::new(), Vec::new());
        for question in &questions {
            let mut request = AskRequest::new(question.clone());
            request.scope = Some(scope.clone());
            request.k = args.k;
            request.settings.generate.max_tokens = args.max_tokens;
            let (sender, mut events) = mpsc::unbounded_channel();
            let started = Instant::now();
            let watcher = tokio::spawn(async move {
                let mut first = None;
                while let Some(event) = events.recv().await {
                    if matches!(event, AnswerEvent::Text { .. }) {
                        first.get_or_insert_with(|| started.elapsed().as_secs_f64() * 1000.0);
                    }
                }
                first
            });
            let outcome = library
                .ask(&request, model.clone(), &Cancel::new(), Some(sender))
                .await?;
            total.push(started.elapsed().as_secs_f64() * 1000.0);
            first_text.push(watcher.await.ok().flatten().unwrap_or(0.0));
            kinds.push(outcome.answer.kind);
            library.delete_chat(outcome.chat.id)?;
        }
        let first_question = total.first().copied().unwrap_or(0.0);
        let mut warm = total[1.min(total.len())..].to_vec();
        warm.sort_by(f64::total_cmp);
        first_text.sort_by(f64::total_cmp);
        let count = |k: AnswerKind| kinds.iter().filter(|&&x| x == k).count();
        println!(
            "  {name:<11} {load_ms:>6.0} ms {first_question:>12.0} ms {:>8.0} ms {:>6.0} ms {:>14.0} ms          {} generated, {} extractive, {} not found",
            percentile(&warm, 0.5),
            percentile(&warm, 0.9),
            percentile(&first_text, 0.5),
            count(AnswerKind::Generated),
            count(AnswerKind::Extractive),
            count(AnswerKind::NotFound),
        );
    }
    println!("\n  first question: includes opening every index of the folder; median and p90: the others.");
    Ok(())
}
