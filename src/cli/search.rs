//! `lectern search` and `lectern eval` (of retrieval): results as text or JSON.

use std::process::ExitCode;

use lectern::search::eval::{document_rank, page_rank, read_questions, Metrics, ModeReport, CUTOFFS};
use lectern::search::{SearchMode, SearchRequest, SearchResults};
use lectern::{Error, Library};

use super::args::{EvalArgs, ModeArg, SearchArgs};
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
    let questions = read_questions(path)?;
    let scope = scope(library, &args.scope)?;
    let in_scope = library.documents_in_scope(&scope)?;
    let missing: Vec<&str> = questions
        .iter()
        .map(|q| q.doc.as_str())
        .filter(|name| !in_scope.iter().any(|d| d.file_name == *name))
        .collect();
    for name in dedup(missing) {
        eprintln!("warning: no ready document named {name} in the scope; its questions count as misses");
    }
    let max_k = CUTOFFS[CUTOFFS.len() - 1];
    let mut reports = Vec::new();
    let mut misses: Vec<(SearchMode, Vec<usize>)> = Vec::new();
    // The question is embedded once and reused by every mode.
    let mut vectors = Vec::with_capacity(questions.len());
    for q in &questions {
        vectors.push(library.embed_query(&q.question).await?);
    }
    for mode in SearchMode::ALL {
        let mut doc_ranks = Vec::new();
        let mut page_ranks = Vec::new();
        let mut missed = Vec::new();
        for (i, (q, vector)) in questions.iter().zip(&vectors).enumerate() {
            let request = SearchRequest {
                query: q.question.clone(),
                scope: scope.clone(),
                k: max_k,
                mode,
            };
            let results = library.search_with_vector(&request, Some(vector.clone())).await?;
            doc_ranks.push(document_rank(&results.hits, q));
            let rank = page_rank(&results.hits, q);
            if rank.is_none() {
                missed.push(i);
            }
            page_ranks.push(rank);
        }
        reports.push(ModeReport {
            mode,
            document: Metrics::of(&doc_ranks),
            page: Metrics::of(&page_ranks),
        });
        misses.push((mode, missed));
    }
    println!("{} questions, {} documents in scope\n", questions.len(), in_scope.len());
    println!("{:<8}  {:^30}  {:^30}", "", "document level", "page level");
    println!(
        "{:<8}  {:>6} {:>6} {:>6} {:>8}  {:>6} {:>6} {:>6} {:>8}",
        "mode", "R@1", "R@5", "R@10", "MRR@10", "R@1", "R@5", "R@10", "MRR@10"
    );
    for r in &reports {
        let (d, p) = (r.document, r.page);
        println!(
            "{:<8}  {:>6.3} {:>6.3} {:>6.3} {:>8.3}  {:>6.3} {:>6.3} {:>6.3} {:>8.3}",
            r.mode.as_str(),
            d.recall[0],
            d.recall[1],
            d.recall[2],
            d.mrr,
            p.recall[0],
            p.recall[1],
            p.recall[2],
            p.mrr
        );
    }
    if args.verbose {
        for (mode, missed) in &misses {
            println!("\n{} misses at page level ({}):", mode.as_str(), missed.len());
            for i in missed {
                println!(
                    "  {}  [{} p. {:?}]",
                    questions[*i].question, questions[*i].doc, questions[*i].pages
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn dedup(mut names: Vec<&str>) -> Vec<&str> {
    names.sort_unstable();
    names.dedup();
    names
}
