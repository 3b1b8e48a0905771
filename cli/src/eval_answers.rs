//! `lectern eval answers`: asks every question of an answer set through the real ask path (search,
//! prompt, model, citations, chats) once per backend and model, grades the answers against the
//! gold ones and prints, per run and per source of the questions (then all of them): share
//! correct, declines, share citing a gold page, share of citations that resolve to a passage the
//! model was given, the gold page among the top five passages, the answers' numbers (quoted,
//! computed by Lectern, withheld), answers the support check withheld (right or wrong as the
//! model gave them), time to first token and to the whole answer, and tokens per second. The chats it makes
//! are deleted afterwards. With `--regrade FILE` it asks nothing: it grades a run stored with
//! `--out` again with the current grader and prints the share correct then and now.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use lectern::answer::grade::{counts_as_decline, graded_body, graded_text, is_correct, read_gold, GoldQuestion};
use lectern::answer::{says_not_found, AnswerEvent, AnswerKind, AnswerSettings, Citation, NumberCounts};
use lectern::catalog::ChatId;
use lectern::llm::{Backend, Cancel, GenerateOptions, LanguageModel};
use lectern::search::eval::read_json_lines;
use lectern::search::Hit;
use lectern::{About, AskOutcome, AskRequest, Because, Error, Library};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::args::{BackendArg, EvalAnswersArgs};
use super::scope::scope;

/// One question's outcome in one run.
#[derive(Debug, Serialize)]
struct Graded {
    run: String,
    id: Option<String>,
    /// Where the question comes from (its set's `source`).
    source: Option<String>,
    question: String,
    gold: Option<String>,
    answer: String,
    kind: AnswerKind,
    correct: bool,
    numbers: NumberCounts,
    /// Whether the answer declines ("the documents do not say", or nothing relevant enough).
    declined: bool,
    /// Whether a citation names the gold document and one of its pages.
    cites_gold_page: bool,
    citations: usize,
    /// Citations whose passage was among those retrieved for the question.
    resolved: usize,
    /// Whether a gold page is among the first five passages retrieved.
    gold_page_in_top5: bool,
    first_token_ms: f64,
    /// When the answer was done (after the support check, where one ran).
    done_ms: f64,
    tokens_per_second: Option<f64>,
    /// The model's answer the support check withheld, and whether it was right.
    #[serde(skip_serializing_if = "Option::is_none")]
    unconfirmed: Option<Unconfirmed>,
    /// Whether Lectern asked which document the question is about (it named none), and if so
    /// whether the one meant was among the choices; it is then asked of that one, as a user
    /// choosing it (or opening it) would.
    #[serde(skip_serializing_if = "Option::is_none")]
    asked_which: Option<bool>,
}

/// A model's answer that the passages it cites did not bear out, as graded before it was withheld.
#[derive(Debug, Serialize)]
struct Unconfirmed {
    answer: String,
    correct: bool,
}

pub async fn run(library: &Library, args: EvalAnswersArgs) -> Result<ExitCode, Error> {
    if let Some(stored) = &args.regrade {
        return regrade(&args.questions, stored);
    }
    let mut questions = read_gold(&args.questions)?;
    if let Some(part) = args.part {
        questions.retain(|q| part.holds(q.doc.as_deref(), &q.question));
    }
    if let Some(limit) = args.limit {
        questions.truncate(limit);
    }
    let scope = scope(library, &args.scope)?;
    let documents = library.documents_in_scope(&scope)?;
    let mut missing: Vec<&str> = questions
        .iter()
        .filter_map(|q| q.doc.as_deref())
        .filter(|name| !documents.iter().any(|d| d.file_name == *name))
        .collect();
    missing.sort_unstable();
    missing.dedup();
    for name in missing {
        eprintln!("warning: no ready document named {name} in the scope; its questions will miss");
    }
    let threads = args
        .threads
        .unwrap_or_else(|| library.config().backend_defaults.threads());
    let mut out = match &args.out {
        Some(path) => Some(std::fs::File::create(path).map_err(Error::io(path))?),
        None => None,
    };
    let second_stage = if args.second_stage && library.has_second_stage() {
        "with"
    } else {
        "without"
    };
    println!(
        "{} questions from {} over {} documents, k = {}, {second_stage} the second stage, {} thread(s)",
        questions.len(),
        args.questions.display(),
        documents.len(),
        args.k,
        threads
    );
    let mut reports = Vec::new();
    for (name, backend) in runs(library, &args)? {
        eprintln!("{name}: loading");
        let loader = library.clone();
        let model = tokio::task::spawn_blocking(move || loader.language_model(&backend, threads))
            .await
            .map_err(Error::stopped("loading the language model"))??;
        let mut graded = Vec::new();
        let mut chats: HashMap<String, ChatId> = HashMap::new();
        let mut made = Vec::new();
        for (i, gold) in questions.iter().enumerate() {
            let chat = gold.after.as_ref().and_then(|id| chats.get(id)).copied();
            let mut asked = ask(library, &args, gold, scope.clone(), chat, model.clone(), None).await;
            let mut asked_which = None;
            if let Err(Error::WhichDocument { choices, .. }) = &asked {
                let meant = gold
                    .doc
                    .as_deref()
                    .or(gold.doc_asked.as_deref())
                    .and_then(|name| documents.iter().find(|d| d.file_name == name));
                asked_which = Some(meant.is_some_and(|d| choices.iter().any(|c| c.id == d.id)));
                if let Some(meant) = meant {
                    let about = About {
                        document: meant.id,
                        because: Because::Open,
                    };
                    asked = ask(library, &args, gold, scope.clone(), chat, model.clone(), Some(about)).await;
                }
            }
            let mut result = match asked {
                Ok((outcome, timing)) => {
                    if let Some(id) = &gold.id {
                        chats.insert(id.clone(), outcome.chat.id);
                    }
                    made.push(outcome.chat.id);
                    grade(&name, gold, &outcome, timing, model.as_deref())
                }
                Err(e) => failed(&name, gold, &e),
            };
            result.asked_which = asked_which;
            eprintln!(
                "{name} {}/{}: {} {}",
                i + 1,
                questions.len(),
                if result.correct { "right" } else { "wrong" },
                one_line(&result.answer, 100)
            );
            if let Some(out) = out.as_mut() {
                let line = serde_json::to_string(&result).unwrap_or_default();
                writeln!(out, "{line}").map_err(Error::io(args.out.as_deref().unwrap_or(Path::new("-"))))?;
            }
            graded.push(result);
        }
        made.sort_unstable_by_key(|id| id.to_string());
        made.dedup();
        for id in made {
            library.delete_chat(id)?;
        }
        reports.push((name, graded));
    }
    print_table(&reports);
    Ok(ExitCode::SUCCESS)
}

/// The backends and models to run, named for the table.
fn runs(library: &Library, args: &EvalAnswersArgs) -> Result<Vec<(String, Backend)>, Error> {
    let backends = if args.backend.is_empty() {
        vec![BackendArg::Builtin]
    } else {
        args.backend.clone()
    };
    let models: Vec<Option<String>> = if args.model.is_empty() {
        vec![None]
    } else {
        args.model.iter().cloned().map(Some).collect()
    };
    let config = library.config();
    let mut runs = Vec::new();
    for backend in backends {
        let name = match backend {
            BackendArg::Builtin => "builtin",
            BackendArg::Ollama => "ollama",
            BackendArg::Openai => "openai",
            BackendArg::Extractive => {
                runs.push(("extractive".to_string(), Backend::Extractive));
                continue;
            }
        };
        for model in &models {
            let resolved = Backend::from_settings(
                name,
                model.clone(),
                args.url.clone(),
                None,
                &config.backend_defaults,
                &config.models_dir,
            )?;
            let label = match &resolved {
                Backend::Builtin { model } => model
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                Backend::Ollama { model, .. } | Backend::OpenAi { model, .. } => model.clone(),
                Backend::Extractive => String::new(),
            };
            runs.push((format!("{name} {label}"), resolved));
        }
    }
    Ok(runs)
}

/// When the answer's first text came, from the question's start (its end without text), and
/// how fast its text streamed after the first.
#[derive(Debug, Clone)]
struct Timing {
    first_text_ms: f64,
    total_ms: f64,
    /// The text streamed after the first piece, and how long after the first piece its last
    /// piece came.
    streamed_after_first: (String, f64),
}

async fn ask(
    library: &Library,
    args: &EvalAnswersArgs,
    gold: &GoldQuestion,
    scope: lectern::catalog::Scope,
    chat: Option<ChatId>,
    model: Option<Arc<dyn LanguageModel>>,
    about: Option<About>,
) -> Result<(AskOutcome, Timing), Error> {
    let mut request = AskRequest::new(gold.question.clone());
    request.chat = chat;
    request.about = about;
    if chat.is_none() {
        request.scope = Some(scope);
    }
    request.k = args.k;
    request.second_stage = args.second_stage;
    request.settings = AnswerSettings {
        prompt_budget: args.budget.unwrap_or(AnswerSettings::default().prompt_budget),
        generate: GenerateOptions {
            max_tokens: args.max_tokens,
            ..GenerateOptions::default()
        },
        ..AnswerSettings::default()
    };
    let (sender, mut events) = mpsc::unbounded_channel();
    let started = Instant::now();
    let texts = tokio::spawn(async move {
        let (mut first, mut last, mut after) = (None, None, String::new());
        while let Some(event) = events.recv().await {
            if let AnswerEvent::Text { text } = event {
                let at = started.elapsed();
                if first.is_some() {
                    after.push_str(&text);
                    last = Some(at);
                } else {
                    first = Some(at);
                }
            }
        }
        (first, last, after)
    });
    let outcome = library.ask(&request, model, &Cancel::new(), Some(sender)).await?;
    let total_ms = started.elapsed().as_secs_f64() * 1000.0;
    let (first, last, after) = texts.await.map_err(Error::stopped("timing the text"))?;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    let first_text_ms = first.map_or(total_ms, ms);
    let span = last.map_or(0.0, |l| ms(l) - first_text_ms);
    Ok((
        outcome,
        Timing {
            first_text_ms,
            total_ms,
            streamed_after_first: (after, span),
        },
    ))
}

fn grade(
    run: &str,
    gold: &GoldQuestion,
    outcome: &AskOutcome,
    timing: Timing,
    model: Option<&dyn LanguageModel>,
) -> Graded {
    let answer = &outcome.answer;
    let on_gold_page = |name: &str, page: u32| gold.doc.as_deref() == Some(name) && gold.pages.contains(&page);
    // Measured on what streamed after the first piece, over at least a second: answers stream a
    // sentence at a time from their first number. A model that declines writes a few tokens,
    // and the passages Lectern adds to its answer are not the model's.
    let (after, span_ms) = &timing.streamed_after_first;
    let tokens_per_second = match (answer.kind, model) {
        (AnswerKind::Generated, Some(model)) if *span_ms >= 1000.0 && !says_not_found(&answer.body) => {
            Some(model.count_tokens(after) as f64 / (span_ms / 1000.0))
        }
        _ => None,
    };
    Graded {
        run: run.to_string(),
        id: gold.id.clone(),
        source: gold.source.clone(),
        question: gold.question.clone(),
        gold: gold.answer.clone(),
        answer: answer.body.clone(),
        kind: answer.kind,
        correct: is_correct(gold, &graded_text(answer)),
        numbers: answer.numbers,
        declined: counts_as_decline(answer),
        cites_gold_page: answer.citations.iter().any(|c| on_gold_page(&c.document_name, c.page)),
        citations: answer.citations.len(),
        resolved: answer
            .citations
            .iter()
            .filter(|c| resolves(c, &outcome.results.hits))
            .count(),
        gold_page_in_top5: outcome
            .results
            .hits
            .iter()
            .take(5)
            .any(|h| on_gold_page(&h.document_name, h.page)),
        first_token_ms: timing.first_text_ms,
        done_ms: timing.total_ms,
        tokens_per_second,
        unconfirmed: answer.unconfirmed.as_ref().map(|unconfirmed| Unconfirmed {
            answer: unconfirmed.clone(),
            correct: is_correct(gold, &graded_body(AnswerKind::Generated, unconfirmed)),
        }),
        asked_which: None,
    }
}

/// A question whose answer failed: wrong, with the error as its answer.
fn failed(run: &str, gold: &GoldQuestion, error: &Error) -> Graded {
    Graded {
        run: run.to_string(),
        id: gold.id.clone(),
        source: gold.source.clone(),
        question: gold.question.clone(),
        gold: gold.answer.clone(),
        answer: format!("error: {error}"),
        kind: AnswerKind::NotFound,
        correct: false,
        numbers: NumberCounts::default(),
        declined: false,
        cites_gold_page: false,
        citations: 0,
        resolved: 0,
        gold_page_in_top5: false,
        first_token_ms: 0.0,
        done_ms: 0.0,
        tokens_per_second: None,
        unconfirmed: None,
        asked_which: None,
    }
}

/// A line of a run stored with `--out`: as much of [`Graded`] as grading it again needs.
#[derive(Debug, Deserialize)]
struct Stored {
    run: String,
    id: Option<String>,
    source: Option<String>,
    question: String,
    gold: Option<String>,
    answer: String,
    kind: AnswerKind,
    correct: bool,
}

/// A stored answer's grade, as stored and as graded now.
struct Regraded {
    source: Option<String>,
    stored: bool,
    now: bool,
}

/// `--regrade`: grades the answers of a stored run again, with the current grader, against the
/// gold answers of `questions` (with their accepted forms), found by id, else by question; an
/// answer whose question the set lacks is graded against the gold stored with it. Prints each
/// answer whose grade changed, then the shares correct per run and source.
fn regrade(questions: &Path, stored: &Path) -> Result<ExitCode, Error> {
    let set = read_gold(questions)?;
    let lines: Vec<Stored> = read_json_lines(
        stored,
        r#"{"run", "question", "gold", "answer", "kind", "correct"}, as `--out` writes it"#,
    )?;
    println!(
        "{} stored answers from {}, graded again against {}",
        lines.len(),
        stored.display(),
        questions.display()
    );
    let mut runs: Vec<(String, Vec<Regraded>)> = Vec::new();
    let mut unknown = 0;
    for line in lines {
        let known = set.iter().find(|g| match (&g.id, &line.id) {
            (Some(a), Some(b)) => a == b,
            _ => g.question == line.question,
        });
        let gold = match known {
            Some(gold) => gold.clone(),
            None => {
                unknown += 1;
                GoldQuestion {
                    id: line.id.clone(),
                    source: line.source.clone(),
                    question: line.question.clone(),
                    answer: line.gold.clone(),
                    ..GoldQuestion::default()
                }
            }
        };
        // A question whose asking failed (`failed`) stays wrong: its answer is the error.
        let errored = line.kind == AnswerKind::NotFound && line.answer.starts_with("error: ");
        let now = !errored && is_correct(&gold, &graded_body(line.kind, &line.answer));
        if now != line.correct {
            eprintln!(
                "{} {}: now {}: {}",
                line.run,
                line.id.as_deref().unwrap_or(&line.question),
                if now { "right" } else { "wrong" },
                one_line(&line.answer, 100)
            );
        }
        let graded = Regraded {
            source: line.source,
            stored: line.correct,
            now,
        };
        match runs.iter().position(|(name, _)| *name == line.run) {
            Some(i) => runs[i].1.push(graded),
            None => runs.push((line.run, vec![graded])),
        }
    }
    if unknown > 0 {
        eprintln!(
            "warning: {unknown} answer(s) ask a question {} does not hold; graded against the gold stored with them",
            questions.display()
        );
    }
    print_regraded(&runs);
    Ok(ExitCode::SUCCESS)
}

/// The table of `--regrade`: per run, then per source of its questions (then all of them).
fn print_regraded(runs: &[(String, Vec<Regraded>)]) {
    println!(
        "\n  {:<44} {:>4} {:>8} {:>8} {:>11}",
        "backend and model, then per source", "n", "stored", "now", "lost/gained"
    );
    rows_per_source(runs, |g| g.source.as_deref(), print_regraded_row);
    println!(
        "\n  stored: share correct as graded when the run was made; now: as the grader grades it now;\n  lost/gained: answers right then and wrong now / wrong then and right now"
    );
}

/// One row of the `--regrade` table: the answers `graded` of one run (and source).
fn print_regraded_row(label: &str, graded: &[&Regraded]) {
    let n = graded.len().max(1) as f64;
    let count = |f: &dyn Fn(&Regraded) -> bool| graded.iter().filter(|g| f(g)).count();
    println!(
        "  {:<44} {:>4} {:>8.3} {:>8.3} {:>11}",
        one_line(label, 44),
        graded.len(),
        count(&|g| g.stored) as f64 / n,
        count(&|g| g.now) as f64 / n,
        format!("{}/{}", count(&|g| g.stored && !g.now), count(&|g| !g.stored && g.now))
    );
}

/// Whether a citation's range lies within passages retrieved for the question: one hit, or
/// neighbouring hits of the page that the prompt joined.
fn resolves(citation: &Citation, hits: &[Hit]) -> bool {
    let mut covered = citation.char_start;
    let mut page_hits: Vec<&Hit> = hits
        .iter()
        .filter(|h| h.document == citation.document && h.page == citation.page)
        .collect();
    page_hits.sort_by_key(|h| h.char_start);
    for hit in page_hits {
        if hit.char_start <= covered && hit.char_end > covered {
            covered = hit.char_end;
        }
    }
    covered >= citation.char_end
}

fn print_table(reports: &[(String, Vec<Graded>)]) {
    println!(
        "\n  {:<44} {:>4} {:>8} {:>9} {:>9} {:>9} {:>10} {:>9} {:>14} {:>9} {:>9} {:>12} {:>12} {:>10} {:>10}",
        "backend and model, then per source",
        "n",
        "correct",
        "answ./un.",
        "declined",
        "gold page",
        "citations",
        "top-5 pg",
        "numbers q/c/w",
        "unconf. r/w",
        "which m/a",
        "first token",
        "(p90)",
        "done",
        "tokens/s"
    );
    rows_per_source(reports, |g| g.source.as_deref(), print_row);
    println!(
        "\n  correct: share of all questions; answ./un.: of answerable ones / of ones the documents do not answer;\n  declined: answers saying the documents do not say, of answerable ones / of the others;\n  gold page: answerable questions citing a gold page; citations: share resolving to a retrieved passage;\n  top-5 pg: a gold page among the first five passages; numbers q/c/w: the answers' numbers quoted from the\n  question or a passage / computed by Lectern / withheld, neither (their sentences left out);\n  unconf. r/w: answers the support check withheld that were right / wrong as the model gave them;\n  which m/a: questions naming no document that Lectern asked which document of, with the one meant among\n  the choices / all (then asked of the one meant, as a user choosing it would);\n  first token: median and p90; done: median time to the whole answer; tokens/s: median/p90"
    );
}

/// Prints each run's name, then a `row` for each source of its questions (when there are
/// several), then one for all of them.
fn rows_per_source<T>(runs: &[(String, Vec<T>)], source: fn(&T) -> Option<&str>, row: fn(&str, &[&T])) {
    for (name, graded) in runs {
        println!("  {name}");
        let mut sources: Vec<&str> = graded.iter().filter_map(source).collect();
        sources.sort_unstable();
        sources.dedup();
        if sources.len() > 1 {
            for one in sources {
                let part: Vec<&T> = graded.iter().filter(|g| source(g) == Some(one)).collect();
                row(&format!("  {one}"), &part);
            }
        }
        row("  all", &graded.iter().collect::<Vec<_>>());
    }
}

/// One row of the table: the questions `graded` of one run (and source).
fn print_row(label: &str, graded: &[&Graded]) {
    let n = graded.len().max(1) as f64;
    let share = |f: &dyn Fn(&Graded) -> bool| graded.iter().filter(|g| f(g)).count() as f64 / n;
    let answerable: Vec<&Graded> = graded.iter().copied().filter(|g| g.gold.is_some()).collect();
    let unanswerable: Vec<&Graded> = graded.iter().copied().filter(|g| g.gold.is_none()).collect();
    let part = |set: &[&Graded], f: &dyn Fn(&Graded) -> bool| {
        set.iter().filter(|g| f(g)).count() as f64 / set.len().max(1) as f64
    };
    let citations: usize = graded.iter().map(|g| g.citations).sum();
    let resolved: usize = graded.iter().map(|g| g.resolved).sum();
    let count = |f: fn(&NumberCounts) -> u32| graded.iter().map(|g| f(&g.numbers)).sum::<u32>();
    let mut first: Vec<f64> = graded.iter().map(|g| g.first_token_ms).collect();
    let mut done: Vec<f64> = graded.iter().map(|g| g.done_ms).collect();
    let unconfirmed = |right: bool| {
        graded
            .iter()
            .filter(|g| g.unconfirmed.as_ref().is_some_and(|u| u.correct == right))
            .count()
    };
    let mut speed: Vec<f64> = graded.iter().filter_map(|g| g.tokens_per_second).collect();
    let asked_which = |meant_among: bool| {
        graded
            .iter()
            .filter(|g| g.asked_which.is_some_and(|among| among || !meant_among))
            .count()
    };
    println!(
        "  {:<44} {:>4} {:>8.3} {:>4.2}/{:<4.2} {:>4.2}/{:<4.2} {:>9.3} {:>10} {:>9.3} {:>14} {:>9} {:>9} {:>10.1} s {:>10.1} s {:>8.1} s {:>10}",
        one_line(label, 44),
        graded.len(),
        share(&|g| g.correct),
        part(&answerable, &|g| g.correct),
        part(&unanswerable, &|g| g.correct),
        part(&answerable, &|g| g.declined),
        part(&unanswerable, &|g| g.declined),
        part(&answerable, &|g| g.cites_gold_page),
        if citations == 0 {
            "-".to_string()
        } else {
            format!("{:.1}%", 100.0 * resolved as f64 / citations as f64)
        },
        part(&answerable, &|g| g.gold_page_in_top5),
        format!("{}/{}/{}", count(|c| c.quoted), count(|c| c.computed), count(|c| c.withheld)),
        format!("{}/{}", unconfirmed(true), unconfirmed(false)),
        format!("{}/{}", asked_which(true), asked_which(false)),
        percentile(&mut first, 0.5) / 1000.0,
        percentile(&mut first, 0.9) / 1000.0,
        percentile(&mut done, 0.5) / 1000.0,
        if speed.is_empty() {
            "-".to_string()
        } else {
            format!("{:.1}/{:.1}", percentile(&mut speed, 0.5), percentile(&mut speed, 0.9))
        }
    );
}

/// The value at quantile `q` (nearest rank) of `values`, sorting them.
pub(super) fn percentile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        flat.chars().take(max - 1).collect::<String>() + "…"
    }
}
