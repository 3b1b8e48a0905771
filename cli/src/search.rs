//! `lectern search` and `lectern eval` (of retrieval): results as text or JSON.

use std::process::ExitCode;

use lectern::search::eval::{read_questions, EvalScope, Evaluation, Outcome, CUTOFFS};
use lectern::search::{SearchMode, SearchRequest, SearchResults};
use lectern::{Error, Library};

use super::args::{EvalArgs, ModeArg, SearchArgs};
use super::eval_answers::percentile;
use super::scope::scope;

impl From<ModeArg> for SearchMode {
    fn from(mode: ModeArg) -> SearchMode {
        match mode {
            ModeArg::Hybrid => SearchMode::Hybrid,
            ModeArg::Vector => SearchMode::Vector,
            ModeArg::Keyword => SearchMode::Keyword,
        }
    }
}

/// `lectern search`.
pub async fn search(library: &Library, args: SearchArgs) -> Result<ExitCode, Error> {
    let request = SearchRequest {
        query: args.query.clone(),
        scope: scope(library, &args.scope)?,
        k: args.k,
        mode: args.mode.into(),
        second_stage: args.second_stage,
    };
    let results = library.search(&request).await?;
    if results.skipped.iter().any(|s| s.requeued) {
        super::progress::spawn_background_indexer(library)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results).unwrap_or_default());
    } else {
        print_results(&results);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_results(results: &SearchResults) {
    if results.hits.is_empty() {
        println!(
            "nothing found in {} document(s){}",
            results.documents_searched,
            if results.documents_searched == 0 {
                " (is anything ready in this scope? see `lectern status`)"
            } else {
                ""
            }
        );
    }
    for (i, hit) in results.hits.iter().enumerate() {
        let c = &hit.components;
        let mut parts = Vec::new();
        if let Some(v) = c.vector {
            parts.push(format!(
                "vector {v:.3}{}",
                c.vector_rank.map(|r| format!(" #{r}")).unwrap_or_default()
            ));
        }
        if let Some(k) = c.keyword {
            parts.push(format!(
                "keyword {k:.2}{}",
                c.keyword_rank.map(|r| format!(" #{r}")).unwrap_or_default()
            ));
        }
        println!(
            "{:>2}. {:.4}  {} p. {}  [{}]  ({})",
            i + 1,
            hit.score,
            hit.document_name,
            hit.page,
            hit.folder_path,
            parts.join(", ")
        );
        let text: String = hit.text.split_whitespace().collect::<Vec<_>>().join(" ");
        let shown: String = text.chars().take(300).collect();
        println!("    {shown}{}", if text.chars().count() > 300 { "…" } else { "" });
    }
    if !results.sources.is_empty() {
        println!("\nsources:");
        for s in &results.sources {
            let pages: Vec<String> = s.pages.iter().map(u32::to_string).collect();
            println!("  {:.4}  {} (p. {})", s.best_score, s.document_name, pages.join(", "));
        }
    }
    if results.keyword_only > 0 && results.mode != SearchMode::Keyword {
        println!(
            "{} document(s) searched by keyword only: their vectors are still being made",
            results.keyword_only
        );
    }
    for s in &results.skipped {
        println!(
            "skipped {}: {}{}",
            s.document_name,
            s.reason,
            if s.requeued {
                " (queued to be checked, and rebuilt if it is damaged)"
            } else {
                ""
            }
        );
    }
}

/// `lectern eval`.
pub async fn eval(library: &Library, args: EvalArgs) -> Result<ExitCode, Error> {
    let Some(path) = &args.questions else {
        return Err(Error::Config {
            name: "eval".into(),
            reason: "name a questions file: `lectern eval QUESTIONS.jsonl --folder F`".into(),
        });
    };
    let mut questions = read_questions(path)?;
    if let Some(part) = args.part {
        questions.retain(|q| part.holds(Some(&q.doc), &q.question));
    }
    let scope = scope(library, &args.scope)?;
    if !scope.remotes.is_empty() {
        return Err(Error::Config {
            name: "--remote".into(),
            reason: "eval measures this library's own search; measure a remote library on its own machine".into(),
        });
    }
    let evaluation = library.evaluate(questions, &scope, args.second_stage).await?;
    for name in &evaluation.missing {
        eprintln!("warning: no ready document named {name} in the scope; its questions count as misses");
    }
    if let Some(out) = &args.out {
        write_outcomes(out, &evaluation)?;
    }
    println!(
        "{} questions, {} documents in scope; page and document recall at {:?}, MRR@{}\n",
        evaluation.questions.len(),
        evaluation.documents,
        CUTOFFS,
        CUTOFFS[CUTOFFS.len() - 1]
    );
    println!(
        "{:<9} {:<27} {:>4}  {:>6} {:>6} {:>6} {:>6} {:>6}  {:>6} {:>6}  {:>7}",
        "scope", "source", "n", "p R@1", "p R@5", "p R@10", "p R@20", "p MRR", "d R@1", "d R@5", "ms p50"
    );
    let mut sources = evaluation.sources();
    if sources.len() > 1 {
        sources.push(None);
    }
    for eval_scope in EvalScope::ALL {
        for source in &sources {
            for &method in &evaluation.methods {
                let (page, doc, n) = evaluation.metrics(eval_scope, method, *source);
                let mut millis: Vec<f64> = evaluation
                    .outcomes_of(eval_scope, method, *source)
                    .map(|o| o.millis)
                    .collect();
                let p50 = percentile(&mut millis, 0.5);
                let doc_columns = match eval_scope {
                    EvalScope::Folder => format!("{:>6.3} {:>6.3}", doc.recall_at(1), doc.recall_at(5)),
                    EvalScope::GoldDocument => format!("{:>6} {:>6}", "", ""),
                };
                println!(
                    "{:<9} {:<27} {:>4}  {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3}  {}  {:>7.1}",
                    eval_scope.as_str(),
                    format!("{} {}", source.unwrap_or("all"), method.name()),
                    n,
                    page.recall[0],
                    page.recall[1],
                    page.recall[2],
                    page.recall[3],
                    page.mrr,
                    doc_columns,
                    p50
                );
            }
        }
    }
    if args.verbose {
        for &method in &evaluation.methods {
            let missed: Vec<&Outcome> = evaluation
                .outcomes_of(EvalScope::Folder, method, None)
                .filter(|o| o.page_rank.is_none_or(|r| r > 5))
                .collect();
            println!(
                "\n{} misses at page level in the top 5 ({}):",
                method.name(),
                missed.len()
            );
            for o in missed {
                let q = &evaluation.questions[o.question];
                println!("  {}  [{} p. {:?}]", q.question, q.doc, q.pages);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes each question's outcomes as JSON Lines: the question, its gold document and pages,
/// and per scope and mode the ranks and the pages found.
fn write_outcomes(path: &std::path::Path, evaluation: &Evaluation) -> Result<(), Error> {
    let mut text = String::new();
    for (i, q) in evaluation.questions.iter().enumerate() {
        let outcomes: Vec<&Outcome> = evaluation.outcomes.iter().filter(|o| o.question == i).collect();
        let line = serde_json::json!({
            "question": q.question,
            "source": q.source,
            "doc": q.doc,
            "pages": q.pages,
            "outcomes": outcomes,
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).map_err(Error::io(path))
}
