//! The words of each document's name (its file name and metadata title), and which documents of
//! a scope a word names: what a question naming "Adobe" or "FY2016" is matched against
//! (`search/documents.rs` weighs the matches). Made once for a scope as the catalog read it, and
//! kept with it ([`super::ScopeDocuments`]), so that a question over ten thousand documents does
//! not split ten thousand names.

use std::collections::{BTreeMap, HashSet};

use super::ScopedDocument;
use crate::dates::is_year;

/// A word shorter than this names only a whole word of a name, not its start.
const MIN_PREFIX: usize = 3;
/// A run mixing letters and digits longer than this is an id or a hash, not a name.
const MAX_MIX: usize = 8;

/// Each word of the names of a scope's documents, with the documents (by scope position) whose
/// name holds it.
#[derive(Debug, Default)]
pub struct Names {
    words: BTreeMap<String, Vec<u32>>,
}

impl Names {
    /// The names of `docs`.
    pub fn of(docs: &[ScopedDocument]) -> Names {
        let mut names = Names::default();
        for (pos, d) in docs.iter().enumerate() {
            let mut label = words(d.file_name.strip_suffix(".pdf").unwrap_or(&d.file_name));
            label.extend(d.title.as_deref().map(words).unwrap_or_default());
            for word in label {
                names.words.entry(word).or_default().push(pos as u32);
            }
        }
        names
    }

    /// The documents `word` names, by scope position, in order: those whose name has the word,
    /// or (for a word of letters long enough) a word it starts, so "jpm" names "JPMORGAN" and
    /// "american" names "AMERICANWATERWORKS".
    pub fn named_by(&self, word: &str) -> Vec<u32> {
        let prefix = word.len() >= MIN_PREFIX && word.chars().all(char::is_alphabetic);
        let mut named: Vec<u32> = match prefix {
            true => self
                .words
                .range::<str, _>((std::ops::Bound::Included(word), std::ops::Bound::Unbounded))
                .take_while(|(w, _)| w.starts_with(word))
                .flat_map(|(_, docs)| docs.iter().copied())
                .collect(),
            false => self.words.get(word).cloned().unwrap_or_default(),
        };
        named.sort_unstable();
        named.dedup();
        named
    }
}

/// The words a name is made of, lower-cased: each run of letters and digits, and within a run
/// that mixes them its letters and its digits apart ("FY2018" gives "fy2018", "fy" and "2018").
/// Kept are words of two letters or more, years, and short mixes ("3m", "10k", "2023q2"); other
/// numbers and long mixes (a hash as a file name) name nothing.
pub fn words(text: &str) -> HashSet<String> {
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
    fn a_word_names_the_documents_with_it_or_a_word_it_starts() {
        let doc = ScopedDocument::named;
        let names = Names::of(&[
            doc("JPMORGAN_2021Q1_10Q.pdf", None),
            doc("jp_2021.pdf", Some("JPM annual")),
            doc("AMERICANWATERWORKS_2020_10K.pdf", None),
        ]);
        assert_eq!(names.named_by("jpm"), [0, 1]);
        assert_eq!(names.named_by("jp"), [1], "two letters name whole words only");
        assert_eq!(names.named_by("2021"), [0, 1]);
        assert_eq!(names.named_by("american"), [2]);
        assert!(
            names.named_by("water").is_empty(),
            "a word names the start of one, not its middle"
        );
    }
}
