//! Every number of a generated answer is checked before it is shown. The streamed answer passes
//! through [`NumberCheck`] after the echo filter and before the citation parser (so it sees the
//! model's own labels, `[2]`); a sentence is held back from its first number to its end:
//!
//! - a computation the model writes out ("(1,611,240 - 1,020,530) / 1,020,530 = 57.9%") is evaluated
//!   by Lectern over operands that are themselves checked, and its result is replaced by
//!   Lectern's value, written at the model's precision or to three significant digits; another
//!   mention of the model's own result, before or after, is replaced too;
//! - any other number must be quoted: be the question's, or a passage's the model was given
//!   (perhaps rounded, in another scale), or a value Lectern computed earlier in the answer;
//!   small whole numbers up to [`COUNT`] pass as counts ("2 modules");
//! - a sentence with numbers taken from passages it does not cite gets those passages' labels
//!   at its end (those of a computation's operands too): every number is checked against a
//!   cited page;
//! - a sentence with a number that is neither quoted nor computed waits, with what follows it,
//!   for a later sentence that computes that number ("The ratio is 1.5. It is 6,489 / 4,269 =
//!   1.5."): the number is then replaced by Lectern's result. If none does by the answer's end,
//!   the sentence is not shown from its first number on (the words before it stream as they
//!   come): a short note stands in for the rest, and the numbers left out are counted.
//!
//! Numbers inside words ("Q2", "FY2019") are names, not figures, and are left alone.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::arithmetic::computations;
use super::echo::sentence_end;
use super::numbers::{numbers, Number};

/// The largest whole number that passes unchecked, as a count of things the passages list.
const COUNT: f64 = 20.0;
/// The most bytes of a sentence held back before it is checked in parts.
const MAX_HELD: usize = 2000;
/// Constants a computation may use without quoting them, besides counts ("/ 3" for a
/// three-year average): 100 for a percent, 1,000 for a change of scale.
const CONSTANTS: [f64; 2] = [100.0, 1000.0];

/// What stands in for the rest of a sentence, from its first number, when a number of it could
/// not be checked (the words before its first number may already have been shown).
pub const WITHHELD: &str = "(A figure is left out here: it is neither in the passages nor computed from them.)";

/// How the numbers of an answer fared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NumberCounts {
    /// Numbers found in the question or a passage.
    pub quoted: u32,
    /// Results Lectern computed from a written-out computation.
    pub computed: u32,
    /// Numbers neither quoted nor computed, whose sentences were left out.
    pub withheld: u32,
}

/// Checks the numbers of a streamed answer; see the module's doc.
pub struct NumberCheck {
    /// The numbers of the passages given to the model, with the passage's index.
    passages: Vec<(usize, Number)>,
    /// The numbers of the question.
    question: Vec<Number>,
    /// Values computed so far in the answer.
    computed: Vec<Computed>,
    held: String,
    /// Checked sentences not shown yet: the first has a number neither quoted nor computed, and
    /// waits for a computation that gives it; those after it wait their turn.
    waiting: VecDeque<Checked>,
    /// Whether the last sentence was left out (a run of them gets one note).
    withholding: bool,
    /// Whether words of the sentence being written were shown before its first number.
    started: bool,
    /// How many sentences with words were shown.
    shown: usize,
    pub counts: NumberCounts,
}

impl NumberCheck {
    /// A check of an answer to `question` from `passages` (each as the model saw it: its
    /// document, page and text).
    pub fn new(question: &str, passages: &[String]) -> NumberCheck {
        NumberCheck {
            passages: passages
                .iter()
                .enumerate()
                .flat_map(|(i, text)| numbers(text).into_iter().map(move |n| (i, n)))
                .collect(),
            question: numbers(question),
            computed: Vec::new(),
            held: String::new(),
            waiting: VecDeque::new(),
            withholding: false,
            started: false,
            shown: 0,
            counts: NumberCounts::default(),
        }
    }

    /// Takes the next piece of the answer; returns what may be shown now: whole sentences,
    /// checked, and the words of the sentence being written up to its first number.
    pub fn push(&mut self, text: &str) -> String {
        // Only the new text can end a sentence, with a stop and the whitespace before it: what
        // was held before them is not scanned again.
        let mut from = self.held.trim_end().char_indices().next_back().map_or(0, |(i, _)| i);
        self.held.push_str(text);
        let mut out = String::new();
        loop {
            let end = match sentence_end(&self.held[from..]) {
                // A marker right after the stop ("... 873655. [1]") cites this sentence.
                Some(end) => match marker_after(&self.held[from + end..]) {
                    Some(marker) => from + end + marker,
                    None if opens_marker(&self.held[from + end..]) => break,
                    None => from + end,
                },
                // A sentence that does not end is checked in parts, up to a space.
                None if self.held.len() > MAX_HELD => match self.held.rfind(char::is_whitespace) {
                    Some(space) if space > 0 => space + 1,
                    _ => self.held.len(),
                },
                None => break,
            };
            let sentence: String = self.held.drain(..end).collect();
            out.push_str(&self.check(&sentence));
            from = 0;
        }
        // Words before the sentence's first number (or marker) need no check: they go on now,
        // up to the last space before it (a "$" or "(" belongs to the number), unless an
        // earlier sentence waits.
        if !self.waiting.is_empty() {
            return out;
        }
        let first = first_figure(&self.held).unwrap_or(self.held.len());
        if let Some(space) = self.held[..first].rfind(char::is_whitespace) {
            let words: String = self.held.drain(..=space).collect();
            self.started |= words.chars().any(char::is_alphanumeric);
            out.push_str(&words);
        }
        out
    }

    /// The answer has ended: returns what is left to show.
    pub fn finish(&mut self) -> String {
        let mut out = String::new();
        while let Some(end) = sentence_end(&self.held).filter(|&end| end < self.held.len()) {
            let end = end + marker_after(&self.held[end..]).unwrap_or(0);
            let sentence: String = self.held.drain(..end).collect();
            out.push_str(&self.check(&sentence));
        }
        let rest = std::mem::take(&mut self.held);
        out.push_str(&self.check(&rest));
        out.push_str(&self.flush());
        out
    }

    /// Whether no sentence with words was shown.
    pub fn nothing_shown(&self) -> bool {
        self.shown == 0
    }

    /// `sentence`'s turn: what of it and of the sentences waiting before it may be shown now. A
    /// sentence with a number neither quoted nor computed waits, with all that follows it, for a
    /// later computation whose result it states ("The ratio is 1.52. It is 6,489 / 4,269 = 1.52.")
    /// until the answer ends; then it is left out.
    fn check(&mut self, sentence: &str) -> String {
        let computed_before = self.computed.len();
        let checked = self.assess(sentence);
        if self.computed.len() > computed_before {
            for waiting in &mut self.waiting {
                waiting.resolve(&self.computed);
            }
        }
        self.waiting.push_back(checked);
        let mut out = String::new();
        while self.waiting.front().is_some_and(|w| w.unsupported.is_empty()) {
            if let Some(ready) = self.waiting.pop_front() {
                out.push_str(&self.render(ready));
            }
        }
        out
    }

    /// What is still waiting, shown or left out: the answer has ended.
    fn flush(&mut self) -> String {
        let mut out = String::new();
        while let Some(waiting) = self.waiting.pop_front() {
            out.push_str(&self.render(waiting));
        }
        out
    }

    /// Checks the numbers of `sentence`: computations evaluated (their results recorded), quoted
    /// numbers traced to their passages, the others listed as unsupported.
    fn assess(&mut self, sentence: &str) -> Checked {
        let started = std::mem::take(&mut self.started);
        let found = numbers(sentence);
        let cited = cited_labels(sentence);
        let mut checked = Checked {
            sentence: sentence.to_string(),
            started,
            edits: Vec::new(),
            labels: Vec::new(),
            unsupported: Vec::new(),
            quoted: 0,
            computed: 0,
        };
        let mut handled = vec![false; found.len()];
        for computation in computations(sentence, &found) {
            let mut known = true;
            for &i in &computation.operands {
                handled[i] = true;
                match self.source_of(&found[i], &cited) {
                    Some(Source::Passage(p)) => {
                        checked.quoted += 1;
                        checked.label(p + 1, &cited);
                    }
                    Some(_) => checked.quoted += 1,
                    None if is_constant(&found[i]) => {}
                    None => {
                        known = false;
                        checked.unsupported.push(found[i]);
                    }
                }
            }
            for &r in &computation.results {
                handled[r] = true;
            }
            if !known {
                continue;
            }
            for &r in &computation.results {
                let model = found[r];
                let value = computation.value_as(&model, &found);
                let text = model.written_like(value, sentence);
                let decimals = text.split_once('.').map_or(0, |(_, f)| f.len() as u32);
                let lectern = Number {
                    value,
                    decimals,
                    ..model
                };
                checked.edits.push((model.start, model.end, text.clone()));
                self.computed.push(Computed { lectern, text, model });
                checked.computed += 1;
            }
        }
        for (i, number) in found.iter().enumerate() {
            if handled[i] || number.in_word {
                continue;
            }
            if checked.states_computed(number, &self.computed) {
                continue;
            }
            match self.source_of(number, &cited) {
                Some(Source::Passage(p)) => {
                    checked.quoted += 1;
                    if !is_count(number) && !is_year(number) {
                        checked.label(p + 1, &cited);
                    }
                }
                Some(Source::Question) => checked.quoted += 1,
                None if is_count(number) => {}
                None => checked.unsupported.push(*number),
            }
        }
        checked
    }

    /// A checked sentence as it is shown: computed results replaced, labels added; or, with a
    /// number still unsupported, the note that stands in for it.
    fn render(&mut self, checked: Checked) -> String {
        let Checked {
            sentence,
            started,
            mut edits,
            labels,
            unsupported,
            quoted,
            computed,
        } = checked;
        if sentence.is_empty() {
            self.shown += usize::from(started);
            return String::new();
        }
        if !unsupported.is_empty() {
            self.counts.withheld += unsupported.len() as u32;
            let trailing = &sentence[sentence.trim_end().len()..];
            // The words before the first number, where they were not shown as they came.
            let words = match (started, first_figure(&sentence)) {
                (false, Some(first)) => sentence[..first]
                    .rfind(char::is_whitespace)
                    .map_or("", |space| &sentence[..=space]),
                _ => "",
            };
            let note = if self.withholding && words.is_empty() {
                String::new()
            } else {
                format!("{words}{WITHHELD}{trailing}")
            };
            self.withholding = true;
            return note;
        }
        self.withholding = false;
        self.counts.quoted += quoted;
        self.counts.computed += computed;
        if started || sentence.chars().any(char::is_alphanumeric) {
            self.shown += 1;
        }
        if !labels.is_empty() {
            // Before the stop that ends the sentence, if it has one.
            let content = sentence.trim_end();
            let at = content.len() - content.ends_with(['.', '!', '?', ':', ';']) as usize;
            let text: String = labels.iter().map(|l| format!(" [{l}]")).collect();
            edits.push((at, at, text));
        }
        let mut out = sentence;
        edits.sort_by_key(|(start, end, _)| std::cmp::Reverse((*start, *end)));
        for (start, end, text) in edits {
            out.replace_range(start..end, &text);
        }
        out
    }

    /// Where `number` is quoted from: a passage (one the sentence cites, if it is in one), or
    /// the question.
    fn source_of(&self, number: &Number, cited: &[usize]) -> Option<Source> {
        let mut from = self.passages.iter().filter(|(_, n)| number.quotes(n)).map(|(p, _)| *p);
        let first = from.next();
        let cited_one = first.into_iter().chain(from).find(|p| cited.contains(&(p + 1)));
        match cited_one.or(first) {
            Some(p) => Some(Source::Passage(p)),
            None => self
                .question
                .iter()
                .any(|q| number.quotes(q))
                .then_some(Source::Question),
        }
    }
}

/// A result Lectern computed: its value as written in the answer, and what the model had
/// written (a later mention of which is the same result).
struct Computed {
    lectern: Number,
    text: String,
    model: Number,
}

/// A sentence checked, as it waits to be shown.
struct Checked {
    sentence: String,
    /// Whether its words before its first number were shown already.
    started: bool,
    /// Replacements in the sentence: computed results, by Lectern's value.
    edits: Vec<(usize, usize, String)>,
    /// The labels of the passages its numbers come from that it does not cite.
    labels: Vec<usize>,
    /// Its numbers neither quoted nor computed (yet).
    unsupported: Vec<Number>,
    quoted: u32,
    computed: u32,
}

impl Checked {
    /// Adds passage label `label` to the sentence's end, unless it cites it or has it already.
    fn label(&mut self, label: usize, cited: &[usize]) {
        if !cited.contains(&label) && !self.labels.contains(&label) {
            self.labels.push(label);
        }
    }

    /// Whether `number` states a result in `computed` (the model's result, written the same,
    /// or Lectern's value); if so it counts as computed, the model's replaced by Lectern's.
    fn states_computed(&mut self, number: &Number, computed: &[Computed]) -> bool {
        if let Some(c) = computed.iter().find(|c| c.model.same_as_written(number)) {
            self.edits.push((number.start, number.end, c.text.clone()));
        } else if !computed.iter().any(|c| number.quotes(&c.lectern)) {
            return false;
        }
        self.computed += 1;
        true
    }

    /// Takes the unsupported numbers that state a result computed since as computed.
    fn resolve(&mut self, computed: &[Computed]) {
        for number in std::mem::take(&mut self.unsupported) {
            if !self.states_computed(&number, computed) {
                self.unsupported.push(number);
            }
        }
    }
}

/// Where a quoted number comes from.
enum Source {
    Passage(usize),
    Question,
}

/// A whole number small enough to be a count.
fn is_count(number: &Number) -> bool {
    number.decimals == 0 && !number.percent && number.scale == 1.0 && number.value.abs() <= COUNT
}

/// A whole number that reads as a year: a date's, not a figure to cite.
fn is_year(number: &Number) -> bool {
    number.decimals == 0 && !number.percent && number.scale == 1.0 && (1900.0..=2100.0).contains(&number.value)
}

/// A number a computation may use without quoting it.
fn is_constant(number: &Number) -> bool {
    is_count(number) || (number.decimals == 0 && CONSTANTS.contains(&number.value.abs()))
}

/// The length of the citation marker `text` starts with (and the whitespace after it), if it
/// starts with a whole one.
fn marker_after(text: &str) -> Option<usize> {
    let inside = text.strip_prefix('[')?;
    let close = inside.find(']')?;
    let labels = &inside[..close];
    let is_marker = labels.chars().any(|c| c.is_ascii_digit())
        && labels
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '^' | ',' | ' '));
    if !is_marker {
        return None;
    }
    let end = 1 + close + 1;
    let spaces = text[end..].len() - text[end..].trim_start().len();
    Some(end + spaces)
}

/// Whether `text` is the start of what may still become a marker (`[`, `[1`, `[^1,`).
fn opens_marker(text: &str) -> bool {
    text.strip_prefix('[').is_some_and(|rest| {
        !rest.contains(']')
            && rest.len() < 40
            && rest.chars().all(|c| c.is_ascii_digit() || matches!(c, '^' | ',' | ' '))
    })
}

/// Where the first number (not one inside a word, like the 2019 of "FY2019") or citation
/// marker of `text` starts.
fn first_figure(text: &str) -> Option<usize> {
    let mut before = None;
    for (i, c) in text.char_indices() {
        if c == '[' || (c.is_ascii_digit() && !before.is_some_and(|b: char| b.is_alphanumeric())) {
            return Some(i);
        }
        before = Some(c);
    }
    None
}

/// The labels `sentence` cites (`[2]`, `[1, 3]`, `[^2]`).
fn cited_labels(sentence: &str) -> Vec<usize> {
    let mut labels = Vec::new();
    for part in sentence.split('[').skip(1) {
        let Some((inside, _)) = part.split_once(']') else {
            continue;
        };
        let items: Vec<&str> = inside.split(',').map(|s| s.trim().trim_start_matches('^')).collect();
        if items
            .iter()
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        {
            labels.extend(items.iter().filter_map(|s| s.parse::<usize>().ok()));
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSAGES: [&str; 2] = [
        "NORTHWIND_2016_10K.pdf, page 62: Operating income 1,611,240 1,020,530 455,870",
        "NORTHWIND_2016_10K.pdf, page 63: Total revenue 6,240,150 5,102,380",
    ];

    fn checked(question: &str, pieces: &[&str]) -> (String, NumberCounts) {
        let passages: Vec<String> = PASSAGES.iter().map(|p| p.to_string()).collect();
        let mut check = NumberCheck::new(question, &passages);
        let mut out: String = pieces.iter().map(|p| check.push(p)).collect();
        out.push_str(&check.finish());
        (out, check.counts)
    }

    #[test]
    fn a_computation_is_redone_by_lectern_with_a_label_per_operand() {
        let (text, counts) = checked(
            "What is the change in operating income from FY2015 to FY2016?",
            &[
                "It grew by (1,611,240 - 1,020,530) / 1,020,530 = 72.1% [1]. ",
                "That is 72.1% in a year.",
            ],
        );
        assert_eq!(
            text,
            "It grew by (1,611,240 - 1,020,530) / 1,020,530 = 57.9% [1]. That is 57.9% in a year."
        );
        assert_eq!(
            counts,
            NumberCounts {
                quoted: 3,
                computed: 2,
                withheld: 0
            }
        );
        let (text, _) = checked("q", &["Turnover is 6,240,150 / 1,611,240 = 3.9."]);
        assert_eq!(text, "Turnover is 6,240,150 / 1,611,240 = 3.87 [2] [1].");
        let (text, _) = checked("q", &["Revenue 6,240,150 and 5,102,380 and 1,611,240 in 2016"]);
        assert_eq!(text, "Revenue 6,240,150 and 5,102,380 and 1,611,240 in 2016 [2] [1]");
    }

    #[test]
    fn quoted_numbers_pass_and_get_the_label_of_their_passage() {
        let (text, counts) = checked("q", &["Revenue was $6.24 billion in 2016 [1] and 5,102,380 before."]);
        assert_eq!(text, "Revenue was $6.24 billion in 2016 [1] and 5,102,380 before [2].");
        assert_eq!(counts.quoted, 3);
    }

    #[test]
    fn a_sentence_with_an_invented_number_is_left_out_and_counted() {
        let (text, counts) = checked(
            "What is the fixed asset turnover?",
            &[
                "The ratio is 3.45 [1].",
                " Operating income was 1,611,240 [1].",
                " It uses 2 lines.",
            ],
        );
        assert_eq!(
            text,
            format!("The ratio is {WITHHELD} Operating income was 1,611,240 [1]. It uses 2 lines.")
        );
        assert_eq!(
            counts,
            NumberCounts {
                quoted: 1,
                computed: 0,
                withheld: 1
            }
        );
    }

    #[test]
    fn a_result_stated_before_its_computation_waits_for_it_and_gets_lecterns_value() {
        let mut check = NumberCheck::new("What is revenue over its prior year?", &PASSAGES.map(String::from));
        assert_eq!(check.push("The ratio is 1.5. "), "The ratio is ");
        // The next sentence's words wait behind the one that waits for its computation.
        assert_eq!(check.push("It is 6,240,150 / 5,102,380 "), "");
        assert_eq!(check.push("= 1.5."), "");
        assert_eq!(check.finish(), "1.22. It is 6,240,150 / 5,102,380 = 1.22 [2].");
        assert_eq!(
            check.counts,
            NumberCounts {
                quoted: 2,
                computed: 2,
                withheld: 0
            }
        );
        // A computation with another result leaves the stated one unsupported.
        let (text, counts) = checked("q", &["The ratio is 3.45. It is 6,240,150 / 5,102,380 = 1.2."]);
        assert_eq!(
            text,
            format!("The ratio is {WITHHELD} It is 6,240,150 / 5,102,380 = 1.22 [2].")
        );
        assert_eq!(counts.withheld, 1);
    }

    #[test]
    fn a_sentence_without_end_is_shown_in_parts_as_it_comes() {
        let mut check = NumberCheck::new("q", &[]);
        let mut shown = 0;
        for _ in 0..100_000 {
            shown += check.push("and so on ").len();
        }
        shown += check.finish().len();
        assert_eq!(shown, 1_000_000);
        assert!(check.push("and").is_empty() && check.held.len() < MAX_HELD);
    }

    #[test]
    fn words_before_the_first_figure_stream_at_once() {
        let mut check = NumberCheck::new("q", &[]);
        assert_eq!(
            check.push("The FY2018 fixed asset turnover "),
            "The FY2018 fixed asset turnover "
        );
        assert_eq!(check.push("is 3.45 and"), "is ");
        assert_eq!(check.finish(), WITHHELD);
    }

    #[test]
    fn a_label_after_the_stop_cites_the_sentence_before_it() {
        let (text, _) = checked("q", &["Operating income was 1,611,240.", " [1", "] It grew."]);
        assert_eq!(text, "Operating income was 1,611,240. [1] It grew.");
        let (text, _) = checked("q", &["The list: 1. Revenue 6,240,150 in 2016. [2]"]);
        assert_eq!(text, "The list: 1. Revenue 6,240,150 in 2016. [2]");
    }

    #[test]
    fn names_with_digits_and_the_questions_numbers_pass() {
        let (text, counts) = checked(
            "Results for FY2019 and 2018?",
            &["In FY2019 and 2018 nothing changed in Q2 [1]."],
        );
        assert_eq!(text, "In FY2019 and 2018 nothing changed in Q2 [1].");
        assert_eq!(counts.withheld, 0);
    }
}
