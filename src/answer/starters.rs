//! Questions to start a chat with, drawn from the library's own documents: a few documents of
//! the scope, spread over it, each with the section it says most about in its first passages
//! ("What does Annual Report 2022 say about risk factors?"), or "Summarize" it when it names no
//! section. Built from the catalog and a few stored passages' contexts (the heading each passage
//! was indexed under, `chunk/context.rs`): no model, and the same questions for the same library.

use std::collections::HashMap;

use crate::catalog::readable_title;
use crate::chunk::column_periods;

/// The most starter questions offered.
pub const MAX_STARTERS: usize = 4;

/// The most documents they are drawn from.
pub const STARTER_DOCUMENTS: usize = 3;

/// The passages of a document, from its first, whose headings are read.
pub const PASSAGES_READ: usize = 150;

/// The most words of a heading a question names.
const MAX_HEADING_WORDS: usize = 12;

/// Headings every document of a kind has, which say nothing of what this one is about.
const GENERIC: &[&str] = &[
    "abstract",
    "acknowledgements",
    "acknowledgments",
    "appendix",
    "bibliography",
    "conclusion",
    "conclusions",
    "contents",
    "exhibits",
    "foreword",
    "glossary",
    "index",
    "introduction",
    "notes",
    "overview",
    "preface",
    "references",
    "signatures",
    "summary",
    "table of contents",
];

/// A document a starter question may be about: the name it is shown by and its section
/// headings, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    pub name: String,
    pub headings: Vec<String>,
}

/// At most `n` of `items`, spread evenly over them from the first, in their order.
pub fn spread<T>(items: &[T], n: usize) -> Vec<&T> {
    if items.len() <= n {
        return items.iter().collect();
    }
    (0..n).filter_map(|i| items.get(i * items.len() / n)).collect()
}

/// The section headings of a document named `name`, from the contexts of its passages in order
/// ([`crate::chunk::Chunk::context`]: the document's label, then the heading in force), best
/// first: the heading most passages sit under, then the one met first. A heading that would make
/// a poor question is left out: a running number or a table's periods, a generic one
/// ("Introduction", "Table of Contents"), the document's own name, a long one.
pub fn headings<'a>(name: &str, contexts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut counted: HashMap<String, (usize, usize)> = HashMap::new();
    for (at, context) in contexts.into_iter().enumerate() {
        let Some(topic) = context.lines().nth(1).and_then(|line| topic(line, name)) else {
            continue;
        };
        counted.entry(topic).or_insert((0, at)).0 += 1;
    }
    let mut ranked: Vec<(String, (usize, usize))> = counted.into_iter().collect();
    ranked.sort_by(|(_, (n1, at1)), (_, (n2, at2))| n2.cmp(n1).then(at1.cmp(at2)));
    ranked.into_iter().map(|(heading, _)| heading).collect()
}

/// A heading line as a question names it: its number ("2.3", "Item 1A.") and closing
/// punctuation taken off, in lower case when it was set in capitals; `None` for one that makes
/// a poor question.
fn topic(line: &str, name: &str) -> Option<String> {
    let line = line.trim();
    if column_periods(line).is_some() {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let numbering =
        |w: &str| w.chars().any(|c| c.is_ascii_digit()) && w.chars().filter(|c| c.is_alphabetic()).count() <= 1;
    let labelling = |w: &str| {
        ["item", "part", "section", "chapter"]
            .iter()
            .any(|l| w.eq_ignore_ascii_case(l))
    };
    let mut rest: &[&str] = &words;
    loop {
        match rest {
            [label, number, tail @ ..] if labelling(label) && numbering(number) => rest = tail,
            [number, tail @ ..] if numbering(number) => rest = tail,
            _ => break,
        }
    }
    let joined = rest.join(" ");
    let heading = joined.trim_end_matches([':', '.', ';', ',', '-', '–', '—']);
    let heading = readable_title(heading)?;
    let lower = heading.to_lowercase();
    if rest.len() > MAX_HEADING_WORDS || GENERIC.contains(&lower.as_str()) || lower == name.to_lowercase() {
        return None;
    }
    let capitals = !heading.chars().any(|c| c.is_lowercase());
    Some(if capitals { lower } else { heading })
}

/// The starter questions for `documents`, at most [`MAX_STARTERS`]: the documents in turn, each
/// asked about its next heading while any has one left, and one without a heading summarized;
/// then, if there are still too few, the documents with headings summarized too.
pub fn questions(documents: &[Opening]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let rounds = documents.iter().map(|d| d.headings.len().max(1)).max().unwrap_or(0);
    for round in 0..rounds {
        for doc in documents {
            match doc.headings.get(round) {
                Some(heading) => push(&mut out, format!("What does {} say about {heading}?", doc.name)),
                None if round == 0 => push(&mut out, summarize(doc)),
                None => {}
            }
        }
    }
    for doc in documents.iter().filter(|d| !d.headings.is_empty()) {
        push(&mut out, summarize(doc));
    }
    out
}

/// Adds `question` to `out` unless it is there already or `out` is full.
fn push(out: &mut Vec<String>, question: String) {
    if out.len() < MAX_STARTERS && !out.contains(&question) {
        out.push(question);
    }
}

fn summarize(doc: &Opening) -> String {
    format!("Summarize {}", doc.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opening(name: &str, headings: &[&str]) -> Opening {
        Opening {
            name: name.into(),
            headings: headings.iter().map(|h| h.to_string()).collect(),
        }
    }

    #[test]
    fn the_heading_most_passages_sit_under_comes_first_and_poor_ones_are_left_out() {
        let contexts = [
            "AMEX 2022 10K",
            "AMEX 2022 10K\nUNITED STATES SECURITIES AND EXCHANGE COMMISSION",
            "AMEX 2022 10K\nTable of Contents",
            "AMEX 2022 10K\nItem 1. Business",
            "AMEX 2022 10K\nItem 1A. RISK FACTORS",
            "AMEX 2022 10K\nItem 1A. RISK FACTORS\nConsolidated Balance Sheets",
            "AMEX 2022 10K\nItem 1A. RISK FACTORS",
            "AMEX 2022 10K\nDecember 31, 2022 December 31, 2021",
            "AMEX 2022 10K\n2.3 Credit Risk Management:",
            "AMEX 2022 10K\nPage 7",
            "AMEX 2022 10K\namex 2022 10k",
        ];
        assert_eq!(
            headings("AMEX 2022 10K", contexts),
            ["risk factors", "Business", "Credit Risk Management"]
        );
    }

    #[test]
    fn documents_are_asked_about_in_turn_and_one_without_headings_summarized() {
        let docs = [
            opening("Annual Report 2022", &["risk factors", "Liquidity"]),
            opening("Attention Is All You Need", &["Model Architecture"]),
            opening("NIKE_2018_10K", &[]),
        ];
        assert_eq!(
            questions(&docs),
            [
                "What does Annual Report 2022 say about risk factors?",
                "What does Attention Is All You Need say about Model Architecture?",
                "Summarize NIKE_2018_10K",
                "What does Annual Report 2022 say about Liquidity?",
            ]
        );
    }

    #[test]
    fn a_single_document_gets_several_questions_and_a_summary() {
        let docs = [opening("RAG survey", &["Retrieval", "Generation"])];
        assert_eq!(
            questions(&docs),
            [
                "What does RAG survey say about Retrieval?",
                "What does RAG survey say about Generation?",
                "Summarize RAG survey",
            ]
        );
        assert!(questions(&[]).is_empty());
        assert_eq!(questions(&[opening("notes", &[])]), ["Summarize notes"]);
    }

    #[test]
    fn documents_are_spread_over_the_scope() {
        let ids: Vec<u32> = (0..10).collect();
        assert_eq!(spread(&ids, 3), [&0, &3, &6]);
        assert_eq!(spread(&ids[..2], 3), [&0, &1]);
    }
}
