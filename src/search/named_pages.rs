//! The pages a question names. "Which warning is printed in the box on page 17?" says where to
//! look, and no word of the page need match the question's: when a question names pages (a
//! number after "page" or "slide", "the second page", "the last page"), each of the best
//! [`DOCUMENTS`] documents of a hybrid search offers those pages, each placed just above that
//! document's best page. In a document's own scope that is the first place; over a folder the
//! named page stays with its document's rank. "Page 17" is the page whose header or footer
//! prints 17 where the document prints its numbers (a report's page 17 is often the PDF's 20th),
//! else the PDF's 17th; "the second page", "the cover page" and "the last page" are counted as
//! the PDF counts.

use std::collections::HashSet;

use super::merge::{self, rank_order, Ranked};
use crate::catalog::ScopedDocument;
use crate::index::ScopeSearch;

/// How many of the best documents offer the pages a question names.
pub const DOCUMENTS: usize = 5;

/// The most pages one question is taken to name.
const MAX_PAGES: usize = 4;

/// Words after which a number is a page's.
const PAGE_WORDS: [&str; 4] = ["page", "pages", "slide", "slides"];

/// Ordinal words before "page", and the page each names.
const ORDINALS: [(&str, u32); 10] = [
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
];

/// Number words after "page".
#[rustfmt::skip]
const NUMBERS: [&str; 20] = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
];

/// Words before "page" that name the first.
const FIRST_PAGE_WORDS: [&str; 3] = ["cover", "front", "title"];

/// Words before "page" that name the last.
const LAST_PAGE_WORDS: [&str; 2] = ["last", "final"];

/// Words of a sentence that says how to write the answer ("formatted as a list like ['Page 2',
/// 'Page 4']"), whose pages are examples, not places.
const FORMAT_WORDS: [&str; 3] = ["format", "formatted", "example"];

/// A page a question names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// By its number ("page 17"): as printed, where the document prints numbers.
    Numbered(u32),
    /// By its place ("the second page", "the cover page"), from 1.
    Counted(u32),
    /// The last ("the last page", "the final page").
    Last,
}

/// The pages `question` names, in the order it names them, without repeats.
pub fn asked(question: &str) -> Vec<Named> {
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower
        .split(['.', '?', '!', ';'])
        .map(|sentence| {
            sentence
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect::<Vec<&str>>()
        })
        .filter(|sentence| !sentence.iter().any(|w| FORMAT_WORDS.contains(w)))
        .flatten()
        .collect();
    let mut pages: Vec<Named> = Vec::new();
    let mut add = |page: Named| {
        if !matches!(page, Named::Numbered(0) | Named::Counted(0)) && !pages.contains(&page) && pages.len() < MAX_PAGES
        {
            pages.push(page);
        }
    };
    for (i, word) in words.iter().enumerate() {
        if !PAGE_WORDS.contains(word) {
            continue;
        }
        // "page 17", "pages 3 and 4", "page(1)", "page two".
        let mut after = words[i + 1..].iter();
        let mut any = false;
        for next in after.by_ref() {
            if let Ok(n) = next.parse::<u32>() {
                add(Named::Numbered(n));
                any = true;
            } else if let Some(n) = NUMBERS.iter().position(|w| w == next) {
                add(Named::Numbered(n as u32 + 1));
                any = true;
            } else if !(any && matches!(*next, "and" | "to" | "or")) {
                break;
            }
        }
        // "the second page", "the cover page".
        if let Some(before) = i.checked_sub(1).map(|j| words[j]) {
            if let Some((_, n)) = ORDINALS.iter().find(|(w, _)| *w == before) {
                add(Named::Counted(*n));
            } else if FIRST_PAGE_WORDS.contains(&before) {
                add(Named::Counted(1));
            } else if LAST_PAGE_WORDS.contains(&before) {
                add(Named::Last);
            }
        }
    }
    pages
}

/// Offers `pages` of each of the first [`DOCUMENTS`] documents of `ranked` (best first, one
/// passage a page), each page just above its document's best: the page's passage already
/// ranked is moved up, else its passage closest to the question is read from `scope`. A page a
/// document lacks, or cannot give, is not offered.
pub fn favour(pages: &[Named], ranked: &mut Vec<Ranked>, scope: &dyn ScopeSearch, docs: &[ScopedDocument]) {
    let mut seen: HashSet<usize> = HashSet::new();
    let best: Vec<(usize, f32)> = ranked
        .iter()
        .filter(|r| seen.insert(r.doc))
        .map(|r| (r.doc, r.score))
        .take(DOCUMENTS)
        .collect();
    for (nth, (doc, score)) in best.into_iter().enumerate() {
        // Every document has a second page: one counted is offered by the best document only.
        let offered = pages
            .iter()
            .filter(|named| nth == 0 || matches!(named, Named::Numbered(_)));
        let last = docs
            .get(doc)
            .map_or(0, |d| u32::try_from(d.page_count).unwrap_or(u32::MAX));
        for page in offered.map(|named| page_of(*named, doc, last, scope)) {
            let named = match ranked.iter().position(|r| r.doc == doc && r.page == page) {
                Some(at) => Some(ranked.remove(at)),
                // A page that cannot be read is left out; the document's damage, if any, shows
                // when its ranked passages are read.
                None => scope
                    .page_passages(doc, page)
                    .ok()
                    .and_then(|passages| passages.into_iter().max_by(|a, b| a.score.total_cmp(&b.score)))
                    .map(merge::ranked),
            };
            if let Some(mut named) = named {
                named.score = score.next_up();
                named.named_page = true;
                ranked.push(named);
            }
        }
    }
    ranked.sort_by(rank_order);
}

/// The PDF page of the document at `doc` (of `last` pages) that `named` is. For a number, a page that prints it:
/// first one beside a page printing the number beside it (a contents page's line "Results 2" ends
/// with a number too, but the page before it does not print 1), else the first; where no page
/// prints it, the PDF's page of that number.
fn page_of(named: Named, doc: usize, last: u32, scope: &dyn ScopeSearch) -> u32 {
    let number = match named {
        Named::Counted(page) => return page,
        Named::Last => return last,
        Named::Numbered(number) => number,
    };
    let printing = |n: u32| scope.numbered_pages(doc, n).unwrap_or_default();
    let printed = printing(number);
    if printed.len() < 2 {
        // None prints it, or one does: no neighbour needs reading.
        return printed.first().copied().unwrap_or(number);
    }
    let before = number
        .checked_sub(1)
        .filter(|n| *n > 0)
        .map(printing)
        .unwrap_or_default();
    let after = number.checked_add(1).map(printing).unwrap_or_default();
    let beside = |page: u32| {
        page.checked_sub(1).is_some_and(|p| before.contains(&p))
            || page.checked_add(1).is_some_and(|p| after.contains(&p))
    };
    printed.iter().copied().find(|&page| beside(page)).unwrap_or(printed[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_after_page_or_slide_are_pages() {
        use Named::Numbered;
        assert_eq!(asked("Which warning is printed in the box on page 17?"), [Numbered(17)]);
        assert_eq!(asked("Which town is named at the top of page(1)?"), [Numbered(1)]);
        assert_eq!(
            asked("How many valves does the diagram at Page 19 show?"),
            [Numbered(19)]
        );
        assert_eq!(asked("Compare pages 3 and 4"), [Numbered(3), Numbered(4)]);
        assert_eq!(asked("What is on slide two?"), [Numbered(2)]);
        assert_eq!(asked("Which phone number is given on page thirteen?"), [Numbered(13)]);
        assert_eq!(
            asked("List all pages with a table. Give them formatted as a list like ['Page 2', 'Page 4']."),
            []
        );
    }

    #[test]
    fn ordinals_and_covers_name_pages() {
        use Named::Counted;
        assert_eq!(asked("Which author is thanked on the second page?"), [Counted(2)]);
        assert_eq!(asked("What colour is the title on the cover page?"), [Counted(1)]);
        assert_eq!(asked("the governor on the first page of the document"), [Counted(1)]);
        assert_eq!(asked("Is there a signature on the last page?"), [Named::Last]);
    }

    #[test]
    fn a_question_without_pages_names_none() {
        assert!(asked("What was the pump's rated flow in 2016?").is_empty());
        assert!(asked("How many pages does the report have?").is_empty());
        assert!(asked("In 2019, 17 pages were added").is_empty());
    }
}
