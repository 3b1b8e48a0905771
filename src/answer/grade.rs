//! Grading answers against gold answers, for `lectern eval answers`: numbers must agree at the
//! precision of the less precise (1.87 is 1.9, 1,560 is not 1,577), in any scale ("1.58
//! billion" is "1,577 million"), as a percent or a fraction; text must appear after
//! normalisation; and "the documents do not say" is right only where the gold says so.

use std::path::Path;

use serde::Deserialize;

use super::numbers::numbers;
use super::{says_not_found, Answer, AnswerKind};
use crate::error::Error;
use crate::search::eval::read_json_lines;

/// One line of an answer set: a question with its gold answer and the pages that hold it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct GoldQuestion {
    #[serde(default)]
    pub id: Option<String>,
    /// Where the question comes from (a benchmark's name), for figures per source.
    #[serde(default)]
    pub source: Option<String>,
    pub question: String,
    /// The short gold answer; `None` when the documents do not answer the question.
    pub answer: Option<String>,
    /// Other acceptable short forms of the answer.
    #[serde(default)]
    pub accept: Vec<String>,
    /// The file name of the document that answers it.
    pub doc: Option<String>,
    /// 1-based pages holding the answer.
    #[serde(default)]
    pub pages: Vec<u32>,
    /// The id of the question this one follows in the same chat.
    #[serde(default)]
    pub after: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
}

/// Reads a JSON Lines answer set; blank lines are skipped.
pub fn read_gold(path: &Path) -> Result<Vec<GoldQuestion>, Error> {
    read_json_lines(path, r#"{"question", "answer", "doc", "pages"}"#)
}

/// What of an answer is graded: a generated answer's first paragraph (the direct answer the
/// prompt asks for first, at most 400 characters), an extractive answer's highlighted
/// lines (not the whole passages around them), or the "not found" notice.
pub fn graded_text(answer: &Answer) -> String {
    match answer.kind {
        AnswerKind::Generated | AnswerKind::Computed => {
            let first = answer.body.trim().split("\n\n").next().unwrap_or_default();
            first.chars().take(400).collect()
        }
        AnswerKind::NotFound => "The documents do not say.".into(),
        AnswerKind::Extractive => answer
            .body
            .split("**")
            .skip(1)
            .step_by(2)
            .map(|s| s.replace('\\', ""))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Whether `answer` declines: Lectern found nothing relevant enough, or the model's direct answer
/// (its first paragraph) says the documents do not say.
pub fn declines(answer: &Answer) -> bool {
    answer.kind == AnswerKind::NotFound
        || (answer.kind == AnswerKind::Generated && super::says_not_found(&graded_text(answer)))
}

/// Whether `answer` (the model's text) gives the gold answer of `gold`.
pub fn is_correct(gold: &GoldQuestion, answer: &str) -> bool {
    let Some(expected) = &gold.answer else {
        return says_not_found(answer);
    };
    if says_not_found(answer) && !says_not_found(expected) {
        return false;
    }
    std::iter::once(expected)
        .chain(&gold.accept)
        .any(|form| matches(form, answer))
}

/// Whether `answer` holds `expected`: every number of it (see the module's doc), or, for an answer without
/// numbers, its normalised words in order; a list of words (`['Paris', 'Tokyo']`), each item
/// anywhere, however the answer joins them ("Paris and Tokyo").
fn matches(expected: &str, answer: &str) -> bool {
    let wanted = numbers(expected);
    if wanted.is_empty() {
        if let Some(items) = list_items(expected) {
            return items.iter().all(|item| matches(item, answer));
        }
        let expected = normalise(expected);
        return !expected.is_empty() && normalise(answer).contains(&expected);
    }
    let found = numbers(answer);
    // A run of numbers copied from a table is not an answer, even if the right one is among them.
    if found.len() > 8 && wanted.len() <= 2 {
        return false;
    }
    wanted.iter().all(|w| found.iter().any(|f| f.agrees(w)))
}

/// The items of a list written as `['a', "b"]`, or `None` for anything else.
fn list_items(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
        let body = &rest[1..];
        // An item ends at its quote followed by a comma or the end: "GCE 'A' Level" holds quotes.
        let end = body.match_indices(quote).map(|(i, _)| i).find(|&i| {
            let after = body[i + 1..].trim_start();
            after.is_empty() || after.starts_with(',')
        })?;
        items.push(body[..end].to_string());
        rest = body[end + 1..].trim_start().trim_start_matches(',').trim_start();
    }
    (!items.is_empty()).then_some(items)
}

/// Lowercase letters and digits, words separated by one space, without "a", "an", "the".
fn normalise(text: &str) -> String {
    let spaced: String = text
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    spaced
        .split_whitespace()
        .filter(|w| !matches!(*w, "a" | "an" | "the"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(kind: AnswerKind, body: &str) -> Answer {
        Answer {
            kind,
            body: body.into(),
            citations: Vec::new(),
            finish: crate::llm::Finish::Stop,
            backend: String::new(),
            passages_supplied: 0,
            numbers: Default::default(),
        }
    }

    #[test]
    fn a_decline_is_told_by_the_direct_answer_not_by_the_passages_shown_after_it() {
        let declined = "The documents do not say.\n\nThe passages that came nearest:\n\n> no information [^1]";
        assert!(declines(&answer(AnswerKind::Generated, declined)));
        assert!(declines(&answer(AnswerKind::NotFound, "I could not find this")));
        let answered = "It is 330 metres [^1].\n\nThe page also says there is no information on paint.";
        assert!(!declines(&answer(AnswerKind::Generated, answered)));
        assert!(!declines(&answer(AnswerKind::Extractive, "> **no information** [^1]")));
    }

    fn gold(answer: Option<&str>) -> GoldQuestion {
        GoldQuestion {
            id: None,
            source: None,
            question: "q".into(),
            answer: answer.map(str::to_string),
            accept: Vec::new(),
            doc: None,
            pages: Vec::new(),
            after: None,
            kind: None,
        }
    }

    #[test]
    fn numbers_agree_at_their_precision_and_across_scales() {
        let g = gold(Some("$1,577 million"));
        assert!(is_correct(&g, "Capital expenditure was $1,577 million in 2022 [1]."));
        assert!(is_correct(&g, "About $1.58 billion [2]."));
        assert!(is_correct(&g, "1577"));
        assert!(!is_correct(&g, "$5.4 billion [1]."));
        assert!(!is_correct(&g, "The answer is: [^1]."));
        assert!(!is_correct(&gold(Some("-3.2%")), "3.2%"));
        assert!(is_correct(&gold(Some("-3.2%")), "a decline of (3.2)%"));
        assert!(is_correct(&gold(Some("12.5%")), "The rate is 12.5 percent."));
        assert!(is_correct(&gold(Some("2023-01-25")), "It was released on 2023-01-25."));
        assert!(!is_correct(&gold(Some("-1")), "2023-01-25"));
        assert!(is_correct(&gold(Some("1.9")), "The ratio is 1.87 [^1]."));
        assert!(!is_correct(&gold(Some("$1,577")), "It was $1,560 [^1]."));
        assert!(is_correct(&gold(Some("65.4%")), "The change was 0.654 [^1]."));
        assert!(
            !is_correct(&gold(Some("1.2")), "It is not given [^1]."),
            "a footnote is not a number"
        );
    }

    #[test]
    fn a_dump_of_numbers_is_not_an_answer() {
        let dump = "138) (0.269) 0.318 -0.800 (0.091) (0.421) 0.548 -1.248 (0.044) (0.178) 0.746";
        assert!(!is_correct(&gold(Some("0.548")), dump));
        let parroted = "Question: In the table of arrests for 2013, how many arrests were there in total?\nExcerpt numbers:\n census-statab-2012-arrests-table324.pdf, page 7:\nThe total number of arrests is 589,620.\n[^1] census-statab-2013-arrests-table47.pdf, page 8:\nThe total number of arrests is 596,200.\n[^2] census-statab-2014-arrests-table78.pdf, page 9:\nThe total number of arrests is 635,200.";
        assert!(!is_correct(&gold(Some("11,062.6 thousand")), parroted));
    }

    #[test]
    fn every_number_of_the_gold_must_be_there() {
        let g = gold(Some("15 and 13"));
        assert!(is_correct(&g, "15 in 2023 and 13 in 2022"));
        assert!(!is_correct(&g, "15 in 2023"));
    }

    #[test]
    fn a_list_is_right_when_every_item_is_there_however_joined() {
        let g = gold(Some("['Hong Kong', \"GCE 'A' Level\", 'Tokyo']"));
        assert!(is_correct(&g, "Teams are in Tokyo, Hong Kong and GCE 'A' Level [^1]."));
        assert!(!is_correct(&g, "Teams are in Hong Kong and Tokyo [^1]."));
        assert_eq!(
            list_items("['a', \"b's\"]"),
            Some(vec!["a".to_string(), "b's".to_string()])
        );
        assert_eq!(list_items("[a, b]"), None);
        assert_eq!(list_items("Paris"), None);
    }

    #[test]
    fn text_is_compared_after_normalisation() {
        let g = GoldQuestion {
            accept: vec!["Judy Rog".into()],
            ..gold(Some("Judith Rog"))
        };
        assert!(is_correct(&g, "It was written by judith rog [1]."));
        assert!(is_correct(&g, "Judy Rog."));
        assert!(!is_correct(&g, "Judith [1]"));
    }

    #[test]
    fn not_found_is_right_only_where_the_gold_says_so() {
        assert!(is_correct(&gold(None), "The documents do not say."));
        assert!(is_correct(
            &gold(None),
            "I could not find this in the documents of this scope."
        ));
        assert!(!is_correct(&gold(None), "It is 42 [1]."));
        assert!(!is_correct(
            &gold(Some("42")),
            "The documents do not say; page 42 is about cats."
        ));
    }
}
