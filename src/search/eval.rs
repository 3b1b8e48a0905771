//! Retrieval evaluation: questions with the document (file name) and pages that answer them,
//! scored as recall@1/5/10 and mean reciprocal rank (cut at 10), at document level (rank among
//! the distinct documents of the results, the "sources" view) and at page level (rank of the
//! first passage on an answering page).

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::{Hit, SearchMode};
use crate::error::Error;

/// The cut-offs recall is reported at.
pub const CUTOFFS: [usize; 3] = [1, 5, 10];

/// One line of a questions file: `{"question", "doc", "pages"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalQuestion {
    pub question: String,
    /// The file name of the document that answers it.
    pub doc: String,
    /// 1-based pages holding the answer.
    pub pages: Vec<u32>,
}

/// A line as written: an answer set's lines (`lectern eval answers`) also hold questions no
/// document answers and follow-ups, which retrieval alone cannot be scored on.
#[derive(Deserialize)]
struct Line {
    question: String,
    doc: Option<String>,
    #[serde(default)]
    pages: Vec<u32>,
    #[serde(default)]
    after: Option<String>,
}

/// Reads a JSON Lines file of questions; blank lines, questions without a document and follow-ups
/// are skipped.
pub fn read_questions(path: &Path) -> Result<Vec<EvalQuestion>, Error> {
    let lines: Vec<Line> = read_json_lines(path, r#"{"question": ..., "doc": ..., "pages": [...]}"#)?;
    Ok(lines
        .into_iter()
        .filter_map(|line| match (line.doc, line.after) {
            (Some(doc), None) => Some(EvalQuestion {
                question: line.question,
                doc,
                pages: line.pages,
            }),
            _ => None,
        })
        .collect())
}

/// Reads a JSON Lines file, one `T` a line (blank lines skipped); a line that is not a `T` is an
/// error naming the file, the line and the `shape` each line must have.
pub fn read_json_lines<T: DeserializeOwned>(path: &Path, shape: &str) -> Result<Vec<T>, Error> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    let mut values = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        values.push(serde_json::from_str(line).map_err(|e| Error::Config {
            name: format!("{} line {}", path.display(), i + 1),
            reason: format!("{e}; each line must be {shape}"),
        })?);
    }
    Ok(values)
}

/// The 1-based rank of the answering document among the distinct documents of `hits`.
pub fn document_rank(hits: &[Hit], q: &EvalQuestion) -> Option<usize> {
    let mut seen: Vec<&str> = Vec::new();
    for hit in hits {
        if !seen.contains(&hit.document_name.as_str()) {
            seen.push(&hit.document_name);
            if hit.document_name == q.doc {
                return Some(seen.len());
            }
        }
    }
    None
}

/// The 1-based rank of the first passage of `hits` on an answering page.
pub fn page_rank(hits: &[Hit], q: &EvalQuestion) -> Option<usize> {
    hits.iter()
        .position(|h| h.document_name == q.doc && q.pages.contains(&h.page))
        .map(|i| i + 1)
}

/// Recall at [`CUTOFFS`] and MRR@10 over a set of ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Metrics {
    pub recall: [f64; 3],
    pub mrr: f64,
}

impl Metrics {
    /// The metrics of ranks (`None`: not found in the top 10).
    pub fn of(ranks: &[Option<usize>]) -> Metrics {
        if ranks.is_empty() {
            return Metrics::default();
        }
        let n = ranks.len() as f64;
        let mut recall = [0.0; 3];
        for (slot, cutoff) in recall.iter_mut().zip(CUTOFFS) {
            *slot = ranks.iter().filter(|r| r.is_some_and(|r| r <= cutoff)).count() as f64 / n;
        }
        let mrr = ranks
            .iter()
            .map(|r| r.filter(|r| *r <= 10).map_or(0.0, |r| 1.0 / r as f64))
            .sum::<f64>()
            / n;
        Metrics { recall, mrr }
    }
}

/// The metrics of one retrieval mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModeReport {
    pub mode: SearchMode,
    pub document: Metrics,
    pub page: Metrics,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_count_ranks_within_the_cutoffs() {
        let m = Metrics::of(&[Some(1), Some(3), None, Some(11)]);
        assert_eq!(m.recall, [0.25, 0.5, 0.5]);
        assert!((m.mrr - (1.0 + 1.0 / 3.0) / 4.0).abs() < 1e-12);
        assert_eq!(Metrics::of(&[]), Metrics::default());
    }
}
