//! `lectern eval strategy`: how often the `smart` strategy's judge (or, with `--function`, the
//! chosen model offered the search tool) searches, per file and per kind of message: messages
//! marked `"needs_documents": false` (small talk, requests about the last answer) should not
//! search, every other message (a question set's questions) should. Each message is judged as
//! the next message of a chat that has had one question and answer.

use std::collections::BTreeMap;
use std::process::ExitCode;

use lectern::llm::{Message, Role};
use lectern::search::eval::read_json_lines;
use lectern::Need;
use lectern::{AskChoices, Error, Library};

use super::args::EvalStrategyArgs;
use serde::{Deserialize, Serialize};

/// One message of a file: `message` (or a question set's `question`), whether it needs the
/// documents (a question does unless it says not), and its kind (or source).
#[derive(Deserialize)]
struct Line {
    #[serde(alias = "question")]
    message: String,
    #[serde(default = "yes")]
    needs_documents: bool,
    #[serde(default, alias = "source")]
    kind: Option<String>,
}

fn yes() -> bool {
    true
}

/// The counts of one file and kind.
#[derive(Debug, Default, Serialize)]
struct Row {
    file: String,
    kind: String,
    /// Whether these messages should search.
    needs_documents: bool,
    messages: usize,
    searched: usize,
    /// The share the rule judged as it should: searched where needed, skipped elsewhere.
    right: f64,
    /// The messages judged wrongly.
    wrong: Vec<String>,
}

/// How many tokens of the model's first turn are read for its decision: a call is about 30.
const DECISION_TOKENS: usize = 48;

pub async fn run(library: &Library, args: &EvalStrategyArgs) -> Result<ExitCode, Error> {
    let (as_json, verbose) = (args.json, args.verbose);
    let history = vec![
        Message::new(Role::User, "What was the company's total revenue in 2023?"),
        Message::new(Role::Assistant, "Total revenue was $4.2 billion in 2023 [1]."),
    ];
    let mut rows: BTreeMap<(String, String, bool), Row> = BTreeMap::new();
    for path in &args.files {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let lines: Vec<Line> = read_json_lines(path, r#"{"message" or "question", "needs_documents", "kind"}"#)?;
        let messages = lines.iter().map(|l| l.message.clone()).collect();
        let searches: Vec<bool> = if args.function {
            let choices = AskChoices {
                threads: args.threads,
                ..AskChoices::default()
            };
            library
                .model_searches(messages, history.clone(), &choices, DECISION_TOKENS)
                .await?
        } else {
            let needs = library.needs(messages, history.clone()).await?;
            needs.into_iter().map(|n| n == Need::Documents).collect()
        };
        for (line, searched) in lines.into_iter().zip(searches) {
            let kind = line.kind.unwrap_or_else(|| "all".into());
            let row = rows
                .entry((name.clone(), kind.clone(), line.needs_documents))
                .or_default();
            row.file.clone_from(&name);
            row.kind = kind;
            row.needs_documents = line.needs_documents;
            row.messages += 1;
            row.searched += usize::from(searched);
            if searched != line.needs_documents {
                row.wrong.push(line.message);
            }
        }
    }
    let rows: Vec<Row> = rows
        .into_values()
        .map(|row| Row {
            right: 1.0 - row.wrong.len() as f64 / row.messages.max(1) as f64,
            ..row
        })
        .collect();
    if as_json {
        println!("{}", serde_json::to_string_pretty(&rows).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:<24} {:<22} {:>8} {:>6} {:>9} {:>8}",
        "file", "kind", "should", "n", "searched", "right"
    );
    for row in &rows {
        let should = if row.needs_documents { "search" } else { "skip" };
        println!(
            "{:<24} {:<22} {:>8} {:>6} {:>9} {:>8.3}",
            row.file, row.kind, should, row.messages, row.searched, row.right
        );
        if verbose {
            for message in &row.wrong {
                println!("    wrong: {message}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
