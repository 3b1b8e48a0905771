//! The documents a question names. A question about "Adobe's FY2016 operating income" is about
//! `ADOBE_2016_10K.pdf` before it is about any passage: every page of that filing is likelier
//! than the same words in another company's, or in Adobe's filing of another year. Each document
//! of the scope gets a name score from the question's words found in its label (file name and
//! metadata title), each word weighed by how few labels of the scope have it; a year counts only
//! for a document whose name the question also names, so "in 2020" alone favours no document.
//! Hybrid search adds [`NAME_WEIGHT`] times the score (1 for the best-named document) to each of
//! the document's passages.

use std::collections::HashSet;

use super::question::{is_year, FUNCTION_WORDS};
use crate::catalog::ScopedDocument;

/// How much a document named by the question adds to its passages' fused score (0 to 1).
/// Fitted on `../shared/devsets/realqa` and the sets of `eval/` (docs/figures.md).
pub const NAME_WEIGHT: f32 = 0.2;

/// A question word shorter than this matches only a whole word of a label, not its start.
const MIN_PREFIX: usize = 3;
/// A run mixing letters and digits longer than this is an id or a hash, not a name.
const MAX_MIX: usize = 8;

/// Each document's name score for `question`, by scope position: 0 for a document the question
/// does not name, 1 for the best-named one.
pub fn name_scores(question: &str, docs: &[ScopedDocument]) -> Vec<f32> {
    let asked: Vec<String> = words(question)
        .into_iter()
        .filter(|w| !FUNCTION_WORDS.contains(&w.as_str()))
        .collect();
    if asked.is_empty() || docs.is_empty() {
        return vec![0.0; docs.len()];
    }
    let labels: Vec<HashSet<String>> = docs
        .iter()
        .map(|d| {
            let mut label = words(d.file_name.strip_suffix(".pdf").unwrap_or(&d.file_name));
            label.extend(d.title.as_deref().map(words).unwrap_or_default());
            label
        })
        .collect();
    let n = docs.len() as f32;
    // Each word of the question with its weight: ln(1 + (N - df + 0.5) / (df + 0.5)), as BM25's.
    let weighed: Vec<(&str, f32)> = asked
        .iter()
        .filter_map(|word| {
            let df = labels.iter().filter(|l| matches(word, l)).count() as f32;
            (df > 0.0).then(|| (word.as_str(), (1.0 + (n - df + 0.5) / (df + 0.5)).ln()))
        })
        .collect();
    let raw: Vec<f32> = labels
        .iter()
        .map(|label| {
            let (mut name, mut year) = (0.0, 0.0);
            for (word, weight) in &weighed {
                if matches(word, label) {
                    if is_year(word) {
                        year += weight;
                    } else {
                        name += weight;
                    }
                }
            }
            if name > 0.0 {
                name + year
            } else {
                0.0
            }
        })
        .collect();
    let best = raw.iter().copied().fold(0.0f32, f32::max);
    raw.into_iter()
        .map(|r| if best > 0.0 { r / best } else { 0.0 })
        .collect()
}

/// Whether a question's `word` names a word of `label`: the same word, or (for a word of
/// letters long enough) the start of one, so "JPM" names "JPMORGAN" and "American" names
/// "AMERICANWATERWORKS".
fn matches(word: &str, label: &HashSet<String>) -> bool {
    label.contains(word)
        || (word.len() >= MIN_PREFIX
            && word.chars().all(char::is_alphabetic)
            && label.iter().any(|l| l.starts_with(word)))
}

/// The words a name is made of, lower-cased: each run of letters and digits, and within a run
/// that mixes them its letters and its digits apart ("FY2018" gives "fy2018", "fy" and "2018").
/// Kept are words of two letters or more, years, and short mixes ("3m", "10k", "2023q2"); other
/// numbers and long mixes (a hash as a file name) name nothing.
fn words(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for run in text.split(|c: char| !c.is_alphanumeric()).filter(|r| !r.is_empty()) {
        let run = run.to_lowercase();
        let letters = run.chars().filter(|c| c.is_alphabetic()).count();
        let digits = run.chars().filter(char::is_ascii_digit).count();
        if letters > 0 && digits > 0 {
            if run.chars().count() > MAX_MIX {
                continue;
            }
            out.insert(run.clone());
            let mut part = String::new();
            let mut chars = run.chars().peekable();
            while let Some(c) = chars.next() {
                part.push(c);
                if chars
                    .peek()
                    .is_none_or(|next| next.is_alphabetic() != c.is_alphabetic())
                {
                    keep(&mut out, std::mem::take(&mut part));
                }
            }
        } else {
            keep(&mut out, run);
        }
    }
    out
}

/// Adds `word` (all letters or all digits) to `out` if it can name something.
fn keep(out: &mut HashSet<String>, word: String) {
    let alphabetic = word.chars().all(char::is_alphabetic);
    if (alphabetic && word.chars().count() >= 2) || is_year(&word) {
        out.insert(word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{DocumentId, FolderId};

    fn doc(name: &str, title: Option<&str>) -> ScopedDocument {
        ScopedDocument {
            id: DocumentId::new_random(),
            folder: FolderId(1),
            folder_path: "F".into(),
            file_name: name.into(),
            title: title.map(String::from),
            index_generation: 1,
        }
    }

    #[test]
    fn words_keep_names_years_and_short_mixes() {
        let w = words("FY2018 3M_2018_10K e79deb02a0c0e87511 page 4 JPMorgan's");
        for expected in ["fy2018", "fy", "2018", "3m", "10k", "page", "jpmorgan"] {
            assert!(w.contains(expected), "{expected} in {w:?}");
        }
        for absent in ["4", "e79deb02a0c0e87511", "deb", "e", "s", "m"] {
            assert!(!w.contains(absent), "{absent} not in {w:?}");
        }
    }

    #[test]
    fn the_named_company_and_year_lead_and_a_year_alone_names_nothing() {
        let docs = [
            doc("AMERICANWATERWORKS_2020_10K.pdf", None),
            doc("AMERICANWATERWORKS_2021_10K.pdf", None),
            doc("JPMORGAN_2021Q1_10Q.pdf", None),
            doc("report.pdf", Some("Annual Report of the Governor")),
        ];
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
