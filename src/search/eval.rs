//! Retrieval evaluation: questions with the document (file name) and pages that answer them, each
//! searched in every mode (and in hybrid mode with the second stage, when asked for) over the
//! whole scope and over its answering document alone, scored as recall at 1, 5, 10 and 20 and
//! mean reciprocal rank (cut at 20), at document level (rank among the distinct documents of the
//! results, the "sources" view) and at page level (rank of the first hit on an answering page),
//! per source of the questions and overall.

use std::path::Path;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Hit, SearchMode, SearchRequest};
use crate::catalog::Scope;
use crate::engine::Engine;
use crate::error::Error;

/// The cut-offs recall is reported at; the last is also how many hits each search returns.
pub const CUTOFFS: [usize; 4] = [1, 5, 10, 20];

/// One line of a questions file: `{"question", "doc", "pages"}`, and optionally `"source"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalQuestion {
    pub question: String,
    /// The file name of the document that answers it.
    pub doc: String,
    /// 1-based pages holding the answer.
    pub pages: Vec<u32>,
    /// Where the question comes from (a benchmark's name), to report sets apart.
    pub source: Option<String>,
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
    #[serde(default)]
    source: Option<String>,
}

/// A part of a question set (`--part K/N`): the questions whose answering document's file name
/// falls in bucket K of N, so that constants fitted on one part can be reported on another that
/// shares no document with it. A question no document answers falls by its own words. Parts
/// nest: parts 1/4 and 3/4 together are part 1/2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    k: u64,
    n: u64,
}

impl std::str::FromStr for Part {
    type Err = String;

    fn from_str(text: &str) -> Result<Part, String> {
        let wrong = || format!("\"{text}\" is not a part: write K/N, as 1/2 or 3/4");
        let (k, n) = text.split_once('/').ok_or_else(wrong)?;
        let (k, n): (u64, u64) = (
            k.trim().parse().map_err(|_| wrong())?,
            n.trim().parse().map_err(|_| wrong())?,
        );
        if k == 0 || k > n {
            return Err(wrong());
        }
        Ok(Part { k, n })
    }
}

impl Part {
    /// Whether the question `question`, answered by the document named `doc`, is in this part.
    pub fn holds(&self, doc: Option<&str>, question: &str) -> bool {
        // FNV-1a: the same buckets on every machine and in every version.
        let hash = doc.unwrap_or(question).bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        hash % self.n == self.k - 1
    }
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
                source: line.source,
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

/// The 1-based rank of the first hit of `hits` on an answering page.
pub fn page_rank(hits: &[Hit], q: &EvalQuestion) -> Option<usize> {
    hits.iter()
        .position(|h| h.document_name == q.doc && q.pages.contains(&h.page))
        .map(|i| i + 1)
}

/// Recall at [`CUTOFFS`] and MRR cut at the last of them, over a set of ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub recall: [f64; CUTOFFS.len()],
    pub mrr: f64,
}

impl Metrics {
    /// The metrics of ranks (`None`: not found).
    pub fn of(ranks: &[Option<usize>]) -> Metrics {
        if ranks.is_empty() {
            return Metrics::default();
        }
        let n = ranks.len() as f64;
        let last = CUTOFFS[CUTOFFS.len() - 1];
        let mut recall = [0.0; CUTOFFS.len()];
        for (slot, cutoff) in recall.iter_mut().zip(CUTOFFS) {
            *slot = ranks.iter().filter(|r| r.is_some_and(|r| r <= cutoff)).count() as f64 / n;
        }
        let mrr = ranks
            .iter()
            .map(|r| r.filter(|r| *r <= last).map_or(0.0, |r| 1.0 / r as f64))
            .sum::<f64>()
            / n;
        Metrics { recall, mrr }
    }

    /// Recall at `cutoff`, one of [`CUTOFFS`].
    pub fn recall_at(&self, cutoff: usize) -> f64 {
        CUTOFFS
            .iter()
            .position(|c| *c == cutoff)
            .map_or(0.0, |i| self.recall[i])
    }
}

/// Where a question is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalScope {
    /// The whole scope the evaluation was given.
    Folder,
    /// The answering document alone.
    GoldDocument,
}

impl EvalScope {
    pub const ALL: [EvalScope; 2] = [EvalScope::Folder, EvalScope::GoldDocument];

    pub fn as_str(self) -> &'static str {
        match self {
            EvalScope::Folder => "folder",
            EvalScope::GoldDocument => "document",
        }
    }
}

/// A way of searching an evaluation measures: a mode, with or without the second stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Method {
    pub mode: SearchMode,
    pub second_stage: bool,
}

impl Method {
    /// Its name in reports: the mode's, `+2nd` after it with the second stage.
    pub fn name(self) -> String {
        if self.second_stage {
            format!("{}+2nd", self.mode.as_str())
        } else {
            self.mode.as_str().to_string()
        }
    }
}

/// Where one search of one question found its answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// Index of the question in the evaluation's list.
    pub question: usize,
    pub scope: EvalScope,
    pub method: Method,
    pub document_rank: Option<usize>,
    pub page_rank: Option<usize>,
    /// The pages found, best first, as `file name:page`.
    pub found: Vec<String>,
    /// How long the search took, question embedding not counted.
    pub millis: f64,
}

/// Every question searched in every mode and scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    pub questions: Vec<EvalQuestion>,
    /// The ways of searching measured, in the order reports list them.
    pub methods: Vec<Method>,
    pub outcomes: Vec<Outcome>,
    /// Questions whose document is not ready in the scope (they count as misses).
    pub missing: Vec<String>,
    /// How many documents were in scope.
    pub documents: usize,
}

impl Evaluation {
    /// The sources of the questions, in the order first met (questions without one are `None`).
    pub fn sources(&self) -> Vec<Option<&str>> {
        let mut sources: Vec<Option<&str>> = Vec::new();
        for q in &self.questions {
            if !sources.contains(&q.source.as_deref()) {
                sources.push(q.source.as_deref());
            }
        }
        sources
    }

    /// The outcomes of `method` in `scope` for the questions of `source` (all of them for
    /// `None`).
    pub fn outcomes_of<'a>(
        &'a self,
        scope: EvalScope,
        method: Method,
        source: Option<&'a str>,
    ) -> impl Iterator<Item = &'a Outcome> + 'a {
        self.outcomes.iter().filter(move |o| {
            o.scope == scope
                && o.method == method
                && source.is_none_or(|s| self.questions[o.question].source.as_deref() == Some(s))
        })
    }

    /// Page-level and document-level metrics of `method` in `scope` for the questions of
    /// `source`.
    pub fn metrics(&self, scope: EvalScope, method: Method, source: Option<&str>) -> (Metrics, Metrics, usize) {
        let (mut pages, mut docs) = (Vec::new(), Vec::new());
        for o in self.outcomes_of(scope, method, source) {
            pages.push(o.page_rank);
            docs.push(o.document_rank);
        }
        (Metrics::of(&pages), Metrics::of(&docs), pages.len())
    }
}

/// Searches every question of `questions` in every mode (and, when `second_stage` is asked for
/// and its model is installed, in hybrid mode with the second stage), over `scope` and over its
/// answering document alone (when that document is ready in `scope`).
pub async fn evaluate(
    engine: &Arc<Engine>,
    questions: Vec<EvalQuestion>,
    scope: &Scope,
    second_stage: bool,
) -> Result<Evaluation, Error> {
    let docs = engine.catalog().documents_in_scope(scope)?;
    let mut missing: Vec<String> = questions
        .iter()
        .filter(|q| !docs.iter().any(|d| d.file_name == q.doc))
        .map(|q| q.doc.clone())
        .collect();
    missing.sort_unstable();
    missing.dedup();
    let k = CUTOFFS[CUTOFFS.len() - 1];
    let mut methods: Vec<Method> = SearchMode::ALL
        .into_iter()
        .map(|mode| Method {
            mode,
            second_stage: false,
        })
        .collect();
    let model = engine.clone();
    if second_stage
        && tokio::task::spawn_blocking(move || model.second_stage_model().is_some())
            .await
            .map_err(Error::stopped("loading the second stage's model"))?
    {
        methods.push(Method {
            mode: SearchMode::Hybrid,
            second_stage: true,
        });
    }
    let mut outcomes = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        // The question is embedded once and reused by every mode and scope.
        let vector = super::embed_question(engine, &q.question).await?;
        let gold = docs.iter().find(|d| d.file_name == q.doc).map(|d| Scope {
            documents: vec![d.id],
            ..Scope::default()
        });
        for eval_scope in EvalScope::ALL {
            let searched = match eval_scope {
                EvalScope::Folder => Some(scope.clone()),
                EvalScope::GoldDocument => gold.clone(),
            };
            for &method in &methods {
                // A question whose document is not in scope finds nothing in it.
                let (hits, millis) = match searched.clone() {
                    Some(scope) => {
                        let request = SearchRequest {
                            query: q.question.clone(),
                            scope,
                            k,
                            mode: method.mode,
                            second_stage: method.second_stage,
                        };
                        let started = std::time::Instant::now();
                        let results = super::run_with_vector(engine, &request, Some(vector.clone())).await?;
                        (results.hits, started.elapsed().as_secs_f64() * 1000.0)
                    }
                    None => (Vec::new(), 0.0),
                };
                outcomes.push(Outcome {
                    question: i,
                    scope: eval_scope,
                    method,
                    document_rank: document_rank(&hits, q),
                    page_rank: page_rank(&hits, q),
                    found: hits.iter().map(|h| format!("{}:{}", h.document_name, h.page)).collect(),
                    millis,
                });
            }
        }
    }
    Ok(Evaluation {
        questions,
        methods,
        outcomes,
        missing,
        documents: docs.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_count_ranks_within_the_cutoffs() {
        let m = Metrics::of(&[Some(1), Some(3), None, Some(11), Some(21)]);
        assert_eq!(m.recall, [0.2, 0.4, 0.4, 0.6]);
        assert!((m.mrr - (1.0 + 1.0 / 3.0 + 1.0 / 11.0) / 5.0).abs() < 1e-12);
        assert_eq!(m.recall_at(20), 0.6);
        assert_eq!(Metrics::of(&[]), Metrics::default());
    }

    #[test]
    fn parts_split_by_document_and_nest() {
        let part = |text: &str| text.parse::<Part>().unwrap();
        let names: Vec<String> = (0..200).map(|i| format!("report-{i}.pdf")).collect();
        let held = |p: Part| names.iter().filter(|n| p.holds(Some(n), "q")).count();
        let (first, second) = (held(part("1/2")), held(part("2/2")));
        assert_eq!(first + second, names.len());
        assert!(first > 60 && second > 60, "{first} / {second}");
        for name in &names {
            let in_half = part("1/2").holds(Some(name), "q");
            let in_quarters = part("1/4").holds(Some(name), "q") || part("3/4").holds(Some(name), "q");
            assert_eq!(in_half, in_quarters, "{name}");
            // A question's document decides, not its words.
            assert_eq!(part("1/2").holds(Some(name), "a"), part("1/2").holds(Some(name), "b"));
        }
        for wrong in ["0/2", "3/2", "half", "1/", "/2"] {
            assert!(wrong.parse::<Part>().unwrap_err().contains("K/N"), "{wrong}");
        }
    }
}
