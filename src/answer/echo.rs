//! Nothing of the prompt comes back as an answer. Small models sometimes copy a sentence of
//! their instructions ("The number with its unit, the name, and the date or a short phrase.")
//! before, or instead of, an answer. The streamed answer passes through [`EchoFilter`]: a
//! sentence is held back only while its words so far follow, in order, the words of one of the
//! prompt's sentences; it goes on to the reader as soon as it parts from them (a copied sentence
//! it began with, an answer after it, becomes "The answer"), and is dropped when it ends still
//! following them. A sentence saying that the documents do not say is an
//! answer, not an echo.

use super::says_not_found;

/// A sentence of fewer words than this is never taken for an echo ("Yes.", "The answer:").
const MIN_WORDS: usize = 5;
/// The share of a sentence's words that must follow a prompt sentence's, in order, for it to
/// be an echo (a copied sentence with a word added or changed still is).
const ECHO_SHARE: f32 = 0.8;

/// Holds back what may be a copy of a prompt sentence; see the module's doc.
pub struct EchoFilter {
    /// The prompt's sentences, each as its words.
    sentences: Vec<Vec<String>>,
    /// The text of the sentence being written, not yet shown.
    held: String,
}

impl EchoFilter {
    /// A filter against the sentences of `prompt` (the instructions and the cue that ends the
    /// user's message; not the question, which an answer may well repeat).
    pub fn new(prompt: &[&str]) -> EchoFilter {
        let sentences = prompt
            .iter()
            .flat_map(|text| text.split_inclusive(['.', '!', '?', ':', '\n']))
            .map(words)
            .filter(|w| w.len() >= MIN_WORDS)
            .collect();
        EchoFilter {
            sentences,
            held: String::new(),
        }
    }

    /// Takes the next piece of the answer; returns what may be shown now.
    pub fn push(&mut self, text: &str) -> String {
        self.held.push_str(text);
        self.release(false)
    }

    /// The answer has ended: returns what is left to show.
    pub fn finish(&mut self) -> String {
        self.release(true)
    }

    fn release(&mut self, at_end: bool) -> String {
        let mut out = String::new();
        loop {
            let end = sentence_end(&self.held).or((at_end && !self.held.is_empty()).then_some(self.held.len()));
            match end {
                Some(end) => {
                    let sentence: String = self.held.drain(..end).collect();
                    match self.unprefixed(&sentence) {
                        Some(answer) => out.push_str(&answer),
                        None if !self.is_echo(&sentence) => out.push_str(&sentence),
                        None => {}
                    }
                }
                None if self.may_echo(&self.held) => return out,
                None => {
                    let held = std::mem::take(&mut self.held);
                    out.push_str(&self.unprefixed(&held).unwrap_or(held));
                    return out;
                }
            }
        }
    }

    /// Whether a whole sentence copies a prompt sentence.
    fn is_echo(&self, sentence: &str) -> bool {
        let words = words(sentence);
        words.len() >= MIN_WORDS && !says_not_found(sentence) && self.follows(&words, ECHO_SHARE)
    }

    /// Whether the start of a sentence still follows a prompt sentence, so that it may become an
    /// echo (its last word may be cut short by the stream).
    fn may_echo(&self, start: &str) -> bool {
        let mut words = words(start);
        if !start.ends_with(|c: char| !c.is_alphanumeric()) {
            words.pop();
        }
        words.is_empty() || self.follows(&words, ECHO_SHARE)
    }

    /// `text` without a copy of a prompt sentence it begins with, when an answer follows it ("The
    /// number with its unit, the name, and the date or a short phrase is 19,815 [1]." becomes "The
    /// answer is 19,815 [1]."): the longest run of its first words (at least [`MIN_WORDS`]) that
    /// follows most of one prompt sentence, in order, is "The answer". `None` when it begins
    /// with no such copy, or when what follows is more of that sentence's words (an echo).
    fn unprefixed(&self, text: &str) -> Option<String> {
        let spans = word_spans(text);
        let words: Vec<String> = spans.iter().map(|&(a, b)| text[a..b].to_lowercase()).collect();
        (MIN_WORDS..words.len()).rev().find_map(|k| {
            let (start, rest) = words.split_at(k);
            // The copy ends with a word of the sentence it copies.
            let copied = self.sentences.iter().find(|s| {
                let common = common_in_order(start, s) as f32;
                s.contains(&start[k - 1]) && common >= ECHO_SHARE * k as f32 && common >= ECHO_SHARE * s.len() as f32
            })?;
            let answered = rest.iter().any(|w| !copied.contains(w));
            answered.then(|| format!("The answer{}", &text[spans[k - 1].1..]))
        })
    }

    /// Whether at least `share` of `words` follow the words of one prompt sentence in order.
    fn follows(&self, words: &[String], share: f32) -> bool {
        self.sentences
            .iter()
            .any(|s| common_in_order(words, s) as f32 >= share * words.len() as f32)
    }
}

/// The byte just past the first sentence's end in `text` (a stop with the whitespace after it),
/// if a sentence has ended. A stop ends a sentence once what follows it is known: whitespace,
/// then neither a lowercase letter ("approx. three") nor, after a word of at most three letters,
/// a digit ("Rs. 995.12", "No. 5"); a newline always ends one.
pub(super) fn sentence_end(text: &str) -> Option<usize> {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let closes = match c {
            '\n' => true,
            '.' | '!' | '?' => {
                let rest = &text[i + c.len_utf8()..];
                match rest.trim_start().chars().next() {
                    _ if !rest.starts_with(char::is_whitespace) => false,
                    None => false,
                    Some(next) if next.is_lowercase() => false,
                    Some(next) => !(next.is_ascii_digit() && c == '.' && short_word(&text[..i])),
                }
            }
            _ => false,
        };
        if closes {
            let mut end = i + c.len_utf8();
            while let Some((j, next)) = chars.peek().copied().filter(|(_, n)| n.is_whitespace()) {
                end = j + next.len_utf8();
                chars.next();
            }
            return Some(end);
        }
    }
    None
}

/// Whether `text` ends in a word of one to three letters (an abbreviation's, before its stop).
fn short_word(text: &str) -> bool {
    let letters = text.chars().rev().take_while(|c| c.is_alphabetic()).count();
    let before = text.chars().rev().nth(letters);
    (1..=3).contains(&letters) && !before.is_some_and(char::is_alphanumeric)
}

/// Where each word (a run of letters and digits) of `text` starts and ends.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                spans.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        spans.push((a, text.len()));
    }
    spans
}

/// The lower-cased words (letters and digits) of `text`.
pub(super) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// How many of `a`'s words follow `b`'s in order (the longest common subsequence).
fn common_in_order(a: &[String], b: &[String]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for word in a {
        let mut diagonal = 0;
        for (j, other) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if word == other { diagonal + 1 } else { above.max(row[j]) };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::context::{ANSWER_CUE, INSTRUCTIONS};

    fn filtered(pieces: &[&str]) -> String {
        let mut filter = EchoFilter::new(&[INSTRUCTIONS, ANSWER_CUE]);
        let mut out: String = pieces.iter().map(|p| filter.push(p)).collect();
        out.push_str(&filter.finish());
        out
    }

    /// `text` filtered as it streams in pieces of `size` characters (split anywhere, even inside
    /// words).
    fn filtered_in_pieces(text: &str, size: usize) -> String {
        let pieces: Vec<String> = text
            .chars()
            .collect::<Vec<_>>()
            .chunks(size)
            .map(|c| c.iter().collect())
            .collect();
        filtered(&pieces.iter().map(String::as_str).collect::<Vec<_>>())
    }

    #[test]
    fn a_copied_instruction_is_dropped_and_the_answer_after_it_kept() {
        let echo = "The number with its unit, the name, and the date or a short phrase.";
        assert_eq!(filtered(&[echo, " 330 metres [1]."]), "330 metres [1].");
        let whole = format!("{echo}\nIt is 330 metres tall [1].");
        assert_eq!(filtered_in_pieces(&whole, 3), "It is 330 metres tall [1].");
        assert_eq!(filtered(&["Answer directly, citing the excerpt numbers."]), "");
    }

    #[test]
    fn a_copied_instruction_before_the_answer_in_its_sentence_gives_way_to_the_answer() {
        let copied = "The number with its unit, the name, and the date or a short phrase is [19815 million USD] [1].";
        assert_eq!(filtered(&[copied]), "The answer is [19815 million USD] [1].");
        assert_eq!(filtered_in_pieces(copied, 4), "The answer is [19815 million USD] [1].");
        let short = "The number with its unit, the name, and the date or a short phrase is 42.";
        assert_eq!(filtered(&[short]), "The answer is 42.");
        // A few of the instructions' words at the start of an answer are the answer's own.
        let own = "The number with its unit is $4,200,000,000 [1].";
        assert_eq!(filtered(&[own]), own);
    }

    #[test]
    fn answers_and_the_asked_for_decline_pass_untouched() {
        for answer in [
            "The tower is 330 metres tall [1].",
            "The answer is the date of the report: 3 May 2021 [2].",
            "The documents do not say.",
            "Yes, the number is 3.5 million [1].",
            "1,577",
        ] {
            assert_eq!(filtered(&[answer]), answer);
        }
    }

    #[test]
    fn a_stop_ends_a_sentence_once_what_follows_shows_it() {
        assert_eq!(sentence_end("It grew. Then"), Some(9));
        assert_eq!(sentence_end("It grew. "), None, "what follows is not known yet");
        assert_eq!(sentence_end("It grew.\nthen"), Some(9));
        assert_eq!(sentence_end("It was Rs. 995.12 in 2002. [1]"), Some(27));
        assert_eq!(sentence_end("See No. 5 and approx. three. 2019 was"), Some(29));
        assert_eq!(sentence_end("It is 3.5"), None);
    }

    #[test]
    fn only_a_start_that_follows_a_prompt_sentence_is_held_back() {
        let mut filter = EchoFilter::new(&[INSTRUCTIONS, ANSWER_CUE]);
        assert_eq!(filter.push("The number"), "");
        assert_eq!(filter.push(" of towers is 3"), "The number of towers is 3");
        assert_eq!(filter.push(" [1]."), " [1].");
        assert_eq!(filter.finish(), "");
    }
}
