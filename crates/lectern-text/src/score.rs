//! How close an extraction comes to a reference text: word-level F1 over bags of words, page by
//! page, and whether a known phrase is on a page. Both sides go through the same cleanup
//! (ligatures, soft hyphens, hyphenation, bidi marks), so only what was extracted is compared.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

use crate::cleanup::{expand_ligatures, is_bidi_mark, join_hyphenated};

/// Matched, extracted and reference word counts, summed over pages.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WordCounts {
    pub matched: usize,
    pub extracted: usize,
    pub reference: usize,
}

impl WordCounts {
    /// Adds the counts of one page: `extracted` against `reference`.
    pub fn add_page(&mut self, extracted: &str, reference: &str) {
        let ours = bag_of_words(extracted);
        let theirs = bag_of_words(reference);
        self.matched += ours
            .iter()
            .map(|(word, &n)| n.min(theirs.get(word).copied().unwrap_or(0)))
            .sum::<usize>();
        self.extracted += ours.values().sum::<usize>();
        self.reference += theirs.values().sum::<usize>();
    }

    /// The harmonic mean of precision and recall; 1 when both sides are empty.
    pub fn f1(&self) -> f64 {
        if self.extracted == 0 && self.reference == 0 {
            return 1.0;
        }
        if self.matched == 0 {
            return 0.0;
        }
        let precision = self.matched as f64 / self.extracted as f64;
        let recall = self.matched as f64 / self.reference as f64;
        2.0 * precision * recall / (precision + recall)
    }
}

/// Pages of a `pdftotext` output: each page ends with a form feed.
pub fn reference_pages(reference: &str) -> Vec<&str> {
    let mut pages: Vec<&str> = reference.split('\u{C}').collect();
    if pages.last().is_some_and(|p| p.trim().is_empty()) && pages.len() > 1 {
        pages.pop();
    }
    pages
}

/// Text as the comparison sees it: NFKC, cleaned up, bidi marks as word boundaries (poppler
/// puts a run of Latin inside Arabic between marks, without a space).
fn comparable(text: &str) -> String {
    let cleaned = join_hyphenated(&expand_ligatures(text));
    cleaned.nfkc().map(|c| if is_bidi_mark(c) { ' ' } else { c }).collect()
}

fn is_right_to_left(c: char) -> bool {
    matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}')
}

/// A word as the bag holds it. A right-to-left word counts the same in logical and in visual
/// (reversed) order: poppler writes visual order, Lectern logical order.
fn word_key(word: &str) -> String {
    if !word.chars().any(is_right_to_left) {
        return word.to_string();
    }
    let reversed: String = word.chars().rev().collect();
    reversed.min(word.to_string())
}

/// The multiset of whitespace-separated words of a text.
pub fn bag_of_words(text: &str) -> HashMap<String, usize> {
    let mut bag = HashMap::new();
    for word in comparable(text).split_whitespace() {
        *bag.entry(word_key(word)).or_insert(0) += 1;
    }
    bag
}

/// Whether `phrase` occurs in `page`, both with whitespace collapsed (and hyphenation,
/// ligatures and bidi marks handled alike).
pub fn contains_phrase(page: &str, phrase: &str) -> bool {
    let collapse = |s: &str| comparable(s).split_whitespace().collect::<Vec<_>>().join(" ");
    collapse(page).contains(&collapse(phrase))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f1(ours: &str, theirs: &str) -> f64 {
        let mut counts = WordCounts::default();
        counts.add_page(ours, theirs);
        counts.f1()
    }

    #[test]
    fn f1_of_small_bags() {
        assert_eq!(f1("a b c", "c b a"), 1.0);
        assert_eq!(f1("", ""), 1.0);
        assert_eq!(f1("a b", ""), 0.0);
        assert_eq!(f1("x y", "a b"), 0.0);
        // Two of three words found, both of the two extracted right: P = 1, R = 2/3.
        assert!((f1("a b", "a b c") - 0.8).abs() < 1e-9);
        // A repeated word only matches as often as the reference has it.
        let mut counts = WordCounts::default();
        counts.add_page("a a a", "a");
        assert_eq!(counts.matched, 1);
        assert!((counts.f1() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn glued_words_do_not_match() {
        assert_eq!(f1("TheCrazyOnes", "The Crazy Ones"), 0.0);
    }

    #[test]
    fn pages_add_up() {
        let mut counts = WordCounts::default();
        counts.add_page("a b", "a b");
        counts.add_page("c", "d");
        assert_eq!(
            counts,
            WordCounts {
                matched: 2,
                extracted: 3,
                reference: 3
            }
        );
    }

    #[test]
    fn ligatures_and_hyphenation_compare_equal() {
        assert_eq!(f1("\u{FB01}lled exam-\nple", "filled example"), 1.0);
    }

    #[test]
    fn right_to_left_words_match_in_either_order() {
        assert_eq!(
            f1(
                "\u{62D}\u{64E}\u{628}\u{64A} habibi",
                "habibi \u{64A}\u{628}\u{64E}\u{62D}"
            ),
            1.0
        );
        assert_eq!(f1("abc", "cba"), 0.0);
    }

    #[test]
    fn reference_pages_split_on_form_feeds() {
        assert_eq!(reference_pages("one\n\u{C}two\n\u{C}"), vec!["one\n", "two\n"]);
        assert_eq!(reference_pages(""), vec![""]);
    }

    #[test]
    fn phrases_match_with_whitespace_collapsed() {
        assert!(contains_phrase(
            "Beautiful is\n  better than ugly.",
            "Beautiful is better"
        ));
        assert!(contains_phrase("\u{202B}abc\u{202C} def", "abc def"));
        assert_eq!(
            f1("habibi \u{62D}\u{64E}", "\u{202A} habibi\u{202C}\u{64E}\u{62D}\u{202C}"),
            1.0
        );
        assert!(!contains_phrase("Beautifulis better", "Beautiful is"));
    }
}
