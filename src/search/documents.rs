//! The documents a question names. A question about "Adobe's FY2016 operating income" is about
//! `ADOBE_2016_10K.pdf` before it is about any passage: every page of that filing is likelier
//! than the same words in another company's, or in Adobe's filing of another year. Each document
//! of the scope gets a name score from the question's words found in its label (file name and
//! metadata title), each word weighed by how few labels of the scope have it; a year counts only
//! for a document whose name the question also names, so "in 2020" alone favours no document.
//! Hybrid search adds [`super::Tuning::name_weight`] times the score (1 for the best-named
//! document) to each of the document's passages.

use std::collections::HashMap;

use super::question::{is_year, FUNCTION_WORDS};
use crate::catalog::{words, ScopeDocuments};

/// Each document's name score for `question`, by scope position: 0 for a document the question
/// does not name, 1 for the best-named one.
pub fn name_scores(question: &str, docs: &ScopeDocuments) -> Vec<f32> {
    let mut scores = vec![0.0; docs.len()];
    let asked: Vec<String> = words(question)
        .into_iter()
        .filter(|w| !FUNCTION_WORDS.contains(&w.as_str()))
        .collect();
    if asked.is_empty() || docs.is_empty() {
        return scores;
    }
    let names = docs.names();
    let n = docs.len() as f32;
    // Each document named, with what its name and its year add up to.
    let mut named: HashMap<u32, (f32, f32)> = HashMap::new();
    for word in &asked {
        let by = names.named_by(word);
        if by.is_empty() {
            continue;
        }
        // The word's weight: ln(1 + (N - df + 0.5) / (df + 0.5)), as BM25's.
        let df = by.len() as f32;
        let weight = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
        for pos in by {
            let (name, year) = named.entry(pos).or_default();
            match is_year(word) {
                true => *year += weight,
                false => *name += weight,
            }
        }
    }
    // A year counts only for a document whose name the question also names.
    let raw: Vec<(u32, f32)> = named
        .into_iter()
        .filter(|(_, (name, _))| *name > 0.0)
        .map(|(pos, (name, year))| (pos, name + year))
        .collect();
    let best = raw.iter().map(|(_, r)| *r).fold(0.0f32, f32::max);
    if best > 0.0 {
        for (pos, r) in raw {
            scores[pos as usize] = r / best;
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ScopedDocument;

    fn doc(name: &str, title: Option<&str>) -> ScopedDocument {
        ScopedDocument::named(name, title)
    }

    #[test]
    fn the_named_company_and_year_lead_and_a_year_alone_names_nothing() {
        let docs = ScopeDocuments::new(vec![
            doc("AMERICANWATERWORKS_2020_10K.pdf", None),
            doc("AMERICANWATERWORKS_2021_10K.pdf", None),
            doc("JPMORGAN_2021Q1_10Q.pdf", None),
            doc("report.pdf", Some("Annual Report of the Governor")),
        ]);
        let s = name_scores("How much did American Water Works pay in dividends in FY2021?", &docs);
        assert_eq!(s[1], 1.0);
        assert!(s[0] > 0.0 && s[0] < s[1], "{s:?}");
        assert_eq!((s[2], s[3]), (0.0, 0.0));
        let s = name_scores("Which segment of JPM earned most in 2021 Q1?", &docs);
        assert_eq!(s[2], 1.0);
        assert_eq!((s[0], s[1]), (0.0, 0.0), "2021 alone names no filing: {s:?}");
        assert_eq!(name_scores("Who is the governor?", &docs)[3], 1.0);
        assert_eq!(name_scores("What happened in 2020?", &docs), [0.0; 4]);
    }
}
