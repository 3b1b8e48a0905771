//! Grading answers against gold answers, for `lectern eval answers`, strictly. An answer is right
//! when it gives every number of the gold (`numbers.rs`: at the gold's precision or finer, with
//! its scale word, as a percent or a fraction), counting only numbers that stand alone (not the
//! 2023 of "FY2023" or the 3 of "Q3") and that the question did not give, unless the gold is
//! only the question's numbers; or, for a gold without numbers, when it holds the gold's words as
//! whole words ("no" is not found in "not"). Either way its yes or no and its direction
//! (increased or fell, higher or lower, more or less) must not contradict the gold's. "The
//! documents do not say" is right only where the gold says so, and counts only when it is what
//! the answer says, not a preamble to an answer ("..., but it is 42").

use std::path::Path;

use serde::Deserialize;

use super::numbers::{numbers, same_value, Number};
use super::{says_not_found, Answer, AnswerKind};
use crate::error::Error;
use crate::search::eval::read_json_lines;

/// One line of an answer set: a question with its gold answer and the pages that hold it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
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
    /// The file name of the document it was asked of, where none answers it.
    #[serde(default)]
    pub doc_asked: Option<String>,
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
    graded_body(answer.kind, &answer.body)
}

/// [`graded_text`] of an answer of `kind` with text `body` (as a run stored with `--out` keeps it).
pub fn graded_body(kind: AnswerKind, body: &str) -> String {
    match kind {
        AnswerKind::Generated | AnswerKind::Computed => {
            let first = body.trim().split("\n\n").next().unwrap_or_default();
            first.chars().take(400).collect()
        }
        AnswerKind::NotFound => "The documents do not say.".into(),
        AnswerKind::Extractive => body
            .split("**")
            .skip(1)
            .step_by(2)
            .map(|s| s.replace('\\', ""))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Whether `answer` declines: Lectern found nothing relevant enough, or the model's direct answer
/// (its first paragraph) says the documents do not say anywhere ([`says_not_found`]). The answer
/// path asks this to give a declining model a second look; grading asks [`counts_as_decline`].
pub fn declines(answer: &Answer) -> bool {
    answer.kind == AnswerKind::NotFound
        || (answer.kind == AnswerKind::Generated && says_not_found(&graded_text(answer)))
}

/// Whether `answer` declines as grading counts it: Lectern found nothing relevant enough, or the
/// model's direct answer is a decline ([`is_decline`]), not a preamble to an answer.
pub fn counts_as_decline(answer: &Answer) -> bool {
    answer.kind == AnswerKind::NotFound || (answer.kind == AnswerKind::Generated && is_decline(&graded_text(answer)))
}

/// Words after a decline that may bring an answer anyway ("..., but it is 42").
const CONTRASTS: [&str; 7] = [
    "but",
    "however",
    "although",
    "though",
    "yet",
    "nevertheless",
    "nonetheless",
];

/// Words after such a contrast that say an answer follows (as a number standing alone does).
const ANSWERING: [&str; 6] = ["yes", "likely", "probably", "presumably", "approximately", "roughly"];

/// Whether `text` (an answer's graded text) declines, more strictly than [`says_not_found`], which
/// the answer path uses to hold back a possible decline: the phrase saying the documents do not say
/// must be in the first sentence with no number standing alone before it ("It was $5bn, but the
/// documents do not say why" answers), and must not be followed by a contrast that answers
/// anyway: "but", "however" and the like, then a number, a "yes" or a hedge ("likely").
pub fn is_decline(text: &str) -> bool {
    let first = super::echo::sentence_end(text).unwrap_or(text.len());
    // ASCII lowercase keeps every byte where it was, so that the phrase's range is the text's.
    let lower = text.to_ascii_lowercase();
    let phrase = super::NOT_FOUND
        .iter()
        .flat_map(|phrase| [phrase.to_string(), phrase.replace('\'', "\u{2019}")])
        .filter_map(|phrase| lower.find(&phrase).map(|at| (at, at + phrase.len())))
        .min();
    let Some((at, end)) = phrase else {
        return false;
    };
    if at >= first || !standalone(&text[..at]).is_empty() {
        return false;
    }
    let rest = normalise(&text[end..]);
    let words: Vec<&str> = rest.split(' ').collect();
    let answered = words
        .iter()
        .position(|w| CONTRASTS.contains(w))
        .is_some_and(|contrast| {
            words[contrast + 1..]
                .iter()
                .any(|w| ANSWERING.contains(w) || (!w.is_empty() && w.bytes().all(|b| b.is_ascii_digit())))
        });
    !answered
}

/// Whether `answer` (the model's text) gives the gold answer of `gold`.
pub fn is_correct(gold: &GoldQuestion, answer: &str) -> bool {
    let declined = is_decline(answer);
    let Some(expected) = &gold.answer else {
        return declined;
    };
    if declined && !says_not_found(expected) {
        return false;
    }
    std::iter::once(expected)
        .chain(&gold.accept)
        .any(|form| matches(form, answer, &gold.question))
}

/// Whether `answer` to `question` gives `expected`: its yes or no and its direction do not
/// contradict it, and it holds every number of it (see the module's doc), or, for a gold
/// without numbers, its normalised words in order as whole words, or the same yes or no when it
/// opens with one ([`gives_yes_or_no`]); a list of words (`['Paris', 'Tokyo']`), each item
/// anywhere, however the answer joins them ("Paris and Tokyo").
fn matches(expected: &str, answer: &str, question: &str) -> bool {
    if contradicts(expected, answer) {
        return false;
    }
    let wanted = standalone(expected);
    if wanted.is_empty() {
        if let Some(items) = list_items(expected) {
            return items.iter().all(|item| matches(item, answer, question));
        }
        return has_words(answer, expected) || gives_yes_or_no(expected, answer);
    }
    let found = standalone(answer);
    // A run of numbers copied from a table is not an answer, even if the right one is among them.
    if found.len() > 8 && wanted.len() <= 2 {
        return false;
    }
    let asked = numbers(question);
    // The gold's numbers the question gives are its setting ("in FY 2022"), not what it answers,
    // unless they are all it has ("2023" for "in 2023 or 2024?"): then they are what it answers.
    let (given, own): (Vec<&Number>, Vec<&Number>) = wanted.iter().partition(|&w| in_question(w, &asked));
    let (required, candidates): (Vec<&Number>, Vec<&Number>) = if own.is_empty() {
        (given, found.iter().collect())
    } else {
        (own, found.iter().filter(|&f| !in_question(f, &asked)).collect())
    };
    required.iter().all(|&w| candidates.iter().any(|&f| f.agrees(w)))
}

/// The numbers of `text` that stand alone ([`stands_alone`]).
fn standalone(text: &str) -> Vec<Number> {
    numbers(text).into_iter().filter(|n| stands_alone(text, n)).collect()
}

/// Whether number `n` of `text` stands alone, not part of a name: letters or an underscore
/// before it (FY2023, Q3, ADOBE_10K), letters and then a digit after it (2023Q2), a word and a
/// hyphen before it (COVID-19) or a hyphen and one capital after it (10-K) make it one. A unit
/// written against it ("1mA", "100kHz", "3bn") does not.
fn stands_alone(text: &str, n: &Number) -> bool {
    let word = |c: char| c.is_alphabetic() || c == '_';
    let mut back = text[..n.start].chars().rev();
    let named_before = match back.next() {
        Some('-') => back.next().is_some_and(char::is_alphabetic),
        Some(c) => word(c),
        None => false,
    };
    let after = &text[n.end..];
    let letters = after.len() - after.trim_start_matches(word).len();
    let form = after.strip_prefix('-').is_some_and(|rest| {
        let mut chars = rest.chars();
        chars.next().is_some_and(|c| c.is_ascii_uppercase()) && !chars.next().is_some_and(char::is_alphabetic)
    });
    let named_after = (letters > 0 && after[letters..].starts_with(|c: char| c.is_ascii_digit())) || form;
    !named_before && !named_after
}

/// Whether `number` is one of the question's numbers `asked` (standing alone or not: the
/// question's "FY2022" gives the gold's "FY 2022").
fn in_question(number: &Number, asked: &[Number]) -> bool {
    asked.iter().any(|q| same_number(number, q))
}

/// Whether `a` is `b`: the same value, both with a percent sign or neither, a missing scale
/// word read as the other's ("1,577" is "1,577 thousand").
fn same_number(a: &Number, b: &Number) -> bool {
    a.percent == b.percent
        && (same_value(a.scaled(), b.scaled()) || ((a.scale == 1.0 || b.scale == 1.0) && same_value(a.value, b.value)))
}

/// Whether `answer` holds `expected`'s normalised words, in order, as whole words.
fn has_words(answer: &str, expected: &str) -> bool {
    let expected = normalise(expected);
    !expected.is_empty() && format!(" {} ", normalise(answer)).contains(&format!(" {expected} "))
}

/// Whether a gold that opens with a yes or no ("Yes. It decreased.") is given by an answer with the
/// same yes or no: what follows the gold's explains it, in words no answer repeats. Its direction
/// is held to by [`contradicts`], its numbers by [`matches`].
fn gives_yes_or_no(expected: &str, answer: &str) -> bool {
    let gold = opening_yes_or_no(expected);
    gold.is_some() && gold == yes_or_no(answer).map(|(_, yes)| yes)
}

/// Whether `answer` says the opposite of `expected`: a yes for its opening no or a no for its
/// yes ("Yes, it increased its debt by $2.5bn" for "No. It decreased its debt by $2.5bn"), or a
/// direction against its only one ("increased" for "decreased"; a gold or answer with both
/// contradicts nothing).
fn contradicts(expected: &str, answer: &str) -> bool {
    let (gold, given) = (opening_yes_or_no(expected), yes_or_no(answer).map(|(_, yes)| yes));
    if gold.is_some() && given.is_some() && gold != given {
        return true;
    }
    let one_way = |(up, down): (bool, bool)| (up != down).then_some(up);
    match (one_way(directions(expected)), one_way(directions(answer))) {
        (Some(gold), Some(given)) => gold != given,
        _ => false,
    }
}

/// The yes or no a gold opens with.
fn opening_yes_or_no(text: &str) -> Option<bool> {
    yes_or_no(text).filter(|(at, _)| *at == 0).map(|(_, yes)| yes)
}

/// The first "yes" or "no" of `text` that is a reply (which word it is, and whether it is yes):
/// a whole word opening the text or a clause, or closing one ("Based on the passages, no."), not
/// "no" as in "there is no change" nor "No. 5".
fn yes_or_no(text: &str) -> Option<(usize, bool)> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let stop = |c: char| matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | '-' | '\u{2013}' | '\u{2014}');
    words.iter().enumerate().find_map(|(i, word)| {
        let yes = match word
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
            .as_str()
        {
            "yes" => true,
            "no" => false,
            _ => return None,
        };
        let next = words.get(i + 1);
        let opens = i == 0 || words[i - 1].ends_with(stop);
        let closes = next.is_none_or(|next| next.starts_with('[')) || word.ends_with(stop);
        let numbered = next.is_some_and(|next| next.starts_with(|c: char| c.is_ascii_digit()));
        ((opens || closes) && !numbered).then_some((i, yes))
    })
}

/// Words that say something went up.
const UP: [&str; 18] = [
    "increase",
    "increased",
    "increases",
    "increasing",
    "rise",
    "rises",
    "rose",
    "risen",
    "rising",
    "grew",
    "grow",
    "grows",
    "growing",
    "higher",
    "more",
    "raise",
    "raised",
    "raises",
];

/// Words that say something went down.
const DOWN: [&str; 26] = [
    "decrease",
    "decreased",
    "decreases",
    "decreasing",
    "decline",
    "declined",
    "declines",
    "declining",
    "fell",
    "fall",
    "falls",
    "falling",
    "fallen",
    "drop",
    "dropped",
    "drops",
    "dropping",
    "lower",
    "lowered",
    "less",
    "fewer",
    "reduce",
    "reduced",
    "reduces",
    "shrank",
    "shrunk",
];

/// Words that deny a direction one or two words after them ("did not increase", "didn't rise").
const DENIALS: [&str; 5] = ["not", "no", "never", "nor", "t"];

/// Whether `text` says something went up, and whether it says something went down.
fn directions(text: &str) -> (bool, bool) {
    let normal = normalise(text);
    let words: Vec<&str> = normal.split(' ').collect();
    let mut found = (false, false);
    for (i, word) in words.iter().enumerate() {
        if words[i.saturating_sub(2)..i].iter().any(|w| DENIALS.contains(w)) {
            continue;
        }
        found.0 |= UP.contains(word);
        found.1 |= DOWN.contains(word);
    }
    found
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
            unconfirmed: None,
        }
    }

    #[test]
    fn a_decline_is_told_by_the_direct_answer_not_by_the_passages_shown_after_it() {
        let declined = "The documents do not say.\n\nThe passages that came nearest:\n\n> no information [^1]";
        let answered = "It is 330 metres [^1].\n\nThe page also says there is no information on paint.";
        let judges: [fn(&Answer) -> bool; 2] = [declines, counts_as_decline];
        for judge in judges {
            assert!(judge(&answer(AnswerKind::Generated, declined)));
            assert!(judge(&answer(AnswerKind::NotFound, "I could not find this")));
            assert!(!judge(&answer(AnswerKind::Generated, answered)));
            assert!(!judge(&answer(AnswerKind::Extractive, "> **no information** [^1]")));
        }
        // The answer path gives this a second look; grading counts it as the answer it gives.
        let hedged = answer(AnswerKind::Generated, "The documents do not say, but it is 42 [^1].");
        assert!(declines(&hedged));
        assert!(!counts_as_decline(&hedged));
    }

    fn gold(answer: Option<&str>) -> GoldQuestion {
        GoldQuestion {
            id: None,
            source: None,
            question: "q".into(),
            answer: answer.map(str::to_string),
            accept: Vec::new(),
            doc: None,
            doc_asked: None,
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

    /// A gold answer to `question`.
    fn asked(question: &str, answer: &str) -> GoldQuestion {
        GoldQuestion {
            question: question.into(),
            ..gold(Some(answer))
        }
    }

    /// Issue 64: "Yes, it increased its debt by $2.5bn" was right for "No. ... decreased ... by
    /// $2.5bn", its number being all that was graded.
    #[test]
    fn a_yes_or_no_against_the_golds_is_wrong_even_with_its_number() {
        let g = asked(
            "Did Northwind take on more debt in FY2023?",
            "No. Northwind paid down $2.5bn of its debt in FY 2023.",
        );
        assert!(!is_correct(&g, "Yes, Northwind added $2.5bn of debt in FY2023 [^1]."));
        assert!(is_correct(&g, "No, it paid down $2.5bn [^1]."));
        assert!(
            is_correct(&g, "Northwind paid down $2.5bn of debt [^1]."),
            "no yes or no: its number decides"
        );
    }

    /// Issue 64: an answer going the other way than the gold was right when its number was.
    #[test]
    fn a_direction_against_the_golds_is_wrong() {
        let g = gold(Some("Its debt decreased by $2.5bn."));
        assert!(!is_correct(&g, "Its debt increased by $2.5bn [^1]."));
        assert!(is_correct(&g, "Its debt fell by $2.5bn [^1]."));
        assert!(
            is_correct(&g, "It did not increase its debt; the debt fell by $2.5bn [^1]."),
            "a denied direction says nothing"
        );
        assert!(!is_correct(
            &gold(Some("Margins were lower: 41.2%.")),
            "Margins were higher, at 41.2% [^1]."
        ));
        assert!(!is_correct(
            &gold(Some("It used less water, 1,200 litres.")),
            "It used more water: 1,200 litres [^1]."
        ));
        assert!(
            is_correct(
                &gold(Some("Sales rose 3.0% and costs fell 0.6%.")),
                "Sales increased 3.0% while costs declined 0.6% [^1]."
            ),
            "a gold going both ways"
        );
    }

    /// Issue 64: "FY2023" was right for a gold of 2023.
    #[test]
    fn a_number_inside_a_word_is_not_the_answers() {
        let g = gold(Some("2023"));
        assert!(!is_correct(&g, "The FY2023 report says so [^1]."));
        assert!(!is_correct(&g, "See the 2023Q2 filing [^1]."));
        assert!(is_correct(&g, "It opened in 2023 [^1]."));
        assert!(!is_correct(&gold(Some("3")), "In Q3, sales were flat [^1]."));
        assert!(!is_correct(&gold(Some("10")), "It is in the 10-K [^1]."));
        assert!(
            is_correct(&gold(Some("1 mA")), "The current is 1mA [^1]."),
            "a unit written against a number leaves it alone"
        );
    }

    /// Issue 64: an answer repeating the question's numbers was right when one of them agreed with
    /// the gold.
    #[test]
    fn a_number_the_question_gives_is_not_the_answers_unless_the_gold_is_it() {
        let share = asked(
            "The chain had 40 stores in 2021; what share of them were in Ohio?",
            "40%",
        );
        assert!(!is_correct(&share, "It had 40 stores [^1]."));
        assert!(is_correct(&share, "40% of them were in Ohio [^1]."));
        let revenue = asked("What was Northwind's revenue in FY2022?", "$5.4 billion in FY 2022");
        assert!(
            is_correct(&revenue, "$5.4 billion [^1]."),
            "the year asked is not required"
        );
        assert!(!is_correct(&revenue, "Revenue was reported for FY 2022 [^1]."));
        let either = asked("Did the plant open in 2023 or in 2024?", "2023");
        assert!(is_correct(&either, "It opened in 2023 [^1]."));
        assert!(!is_correct(&either, "It opened in 2024 [^1]."));
    }

    /// Issue 64: "2" was right for a gold of 1.73, graded at the precision of the less precise.
    #[test]
    fn a_number_less_precise_than_the_gold_is_wrong() {
        let g = gold(Some("1.73"));
        assert!(!is_correct(&g, "The ratio is about 2 [^1]."));
        assert!(!is_correct(&g, "The ratio is 1.7 [^1]."));
        assert!(
            is_correct(&g, "The ratio is 1.734 [^1]."),
            "more precise, rounding to the gold"
        );
        assert!(is_correct(&g, "The ratio is 1.73 [^1]."));
        assert!(!is_correct(&g, "The ratio is 1.736 [^1]."));
        assert!(is_correct(&gold(Some("7.0")), "It is 7 [^1]."), "equal");
    }

    /// Issue 64: "1,577 thousand" was right for "$1,577 million", compared without its scale word.
    #[test]
    fn a_number_at_another_scale_is_wrong() {
        let g = gold(Some("$1,577 million"));
        assert!(!is_correct(&g, "It was 1,577 thousand [^1]."));
        assert!(!is_correct(&g, "About $2 billion [^1]."));
        assert!(!is_correct(&g, "About $1.6 billion [^1]."));
        assert!(is_correct(&g, "It was $1,577,000,000 [^1]."));
        assert!(
            is_correct(&g, "It was 1,577 [^1]."),
            "an answer without a scale word is read in the gold's"
        );
        assert!(is_correct(&g, "It was $1.58 billion [^1]."));
        assert!(is_correct(&g, "It was 1,577M [^1]."));
    }

    /// Issue 64: a gold of "No" was found in "not" and "know".
    #[test]
    fn yes_and_no_are_whole_words() {
        let no = gold(Some("No"));
        assert!(!is_correct(&no, "I do not know [^1]."));
        assert!(!is_correct(&no, "Nobody knows [^1]."));
        assert!(is_correct(&no, "No [^1]."));
        assert!(is_correct(&no, "Based on the passages, no."));
        assert!(!is_correct(&gold(Some("Yes")), "Their eyes are blue [^1]."));
        assert_eq!(yes_or_no("There is no change."), None);
        assert_eq!(yes_or_no("See Task Order No. 826."), None);
    }

    /// Issue 64: "The documents do not say, but it is 42" counted as a decline.
    #[test]
    fn a_decline_counts_only_when_it_is_the_answer() {
        let hedged = "The documents do not say, but it is 42 [^1].";
        assert!(!is_decline(hedged));
        assert!(!is_correct(&gold(None), hedged));
        assert!(is_correct(&gold(Some("42")), hedged));
        assert!(!is_decline("It was $5bn; the documents do not say why [^1]."));
        assert!(!is_decline("It is 330 metres. The documents do not say more."));
        assert!(is_decline(
            "The documents do not say. However, they describe the process."
        ));
        assert!(is_decline("The provided passages do not contain the 2023 total."));
        assert!(is_decline("The documents don\u{2019}t say."));
    }

    #[test]
    fn right_answers_still_pass() {
        assert!(is_correct(&gold(Some("1,577 million")), "About 1.58 billion [^1]."));
        assert!(is_correct(&gold(Some("0.125")), "The rate is 12.5% [^1]."));
        assert!(is_correct(&gold(Some("12.5%")), "The rate is 0.125 [^1]."));
        assert!(is_correct(&gold(Some("Yes")), "Yes, it decreased [^1]."));
        assert!(is_correct(
            &gold(Some("No. Its debt decreased by $2.5bn.")),
            "No, its debt fell by $2.5bn [^1]."
        ));
        assert!(is_correct(
            &gold(Some("11,062.6 thousand")),
            "There were 11.06 million arrests [^1]."
        ));
    }

    #[test]
    fn a_gold_opening_with_yes_or_no_is_given_by_the_same_yes_or_no() {
        let g = gold(Some("Yes. Its quick ratio fell over the year."));
        assert!(is_correct(&g, "Yes, the quick ratio went down [^1]."));
        assert!(!is_correct(&g, "No, it did not change [^1]."));
        assert!(
            !is_correct(&g, "Yes, it rose [^1]."),
            "the same yes, the other direction"
        );
        assert!(!is_correct(&g, "The quick ratio is 1.2 [^1]."), "no yes or no");
    }
}
