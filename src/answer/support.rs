//! The support check: before a model's answer is given as the answer, the model is asked, in a
//! short prompt of its own, whether the passages the answer cites state it. Small models answer
//! whatever is asked, from whatever passage is nearest ("Lebron Brennan belongs to …" from a page
//! that never names him); a second reading with one yes-or-no question, the cited passages only,
//! catches much of it at a few seconds' cost. An answer the passages do not bear out is kept
//! as the model's unconfirmed reading below a decline, with the passages it cites, so that the
//! reader can judge; a reply that is neither yes nor no leaves the answer as it was.

use super::context::passage_block;
use crate::llm::{Cancel, GenerateOptions, LanguageModel, LlmError, Message, Role};
use crate::search::Hit;

/// The check's instructions.
const INSTRUCTIONS: &str = "You check whether excerpts of documents state the answer to a question. \
Reply with one word: yes or no.";

/// What the model said of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The passages state it.
    Stated,
    /// They do not.
    NotStated,
    /// The reply was neither yes nor no.
    Unclear,
}

/// The check's prompt: the `cited` passages, the question (after the chat's last question,
/// where there was one) and the answer without its footnotes.
pub fn prompt(question: &str, earlier: Option<&str>, answer: &str, cited: &[Hit]) -> Vec<Message> {
    let excerpts: String = cited
        .iter()
        .enumerate()
        .map(|(i, p)| passage_block(i + 1, &p.document_name, p.page, &p.context, &p.text))
        .collect();
    let asked = match earlier {
        Some(earlier) => format!("Question (asked after \"{}\"): {question}", earlier.trim()),
        None => format!("Question: {question}"),
    };
    let user = format!(
        "Excerpts:\n\n{excerpts}{asked}\n\nProposed answer: {}\n\nIs this answer to the question supported by \
         the excerpts (stated in them, or calculated from their numbers)? Reply yes or no.",
        answer.trim()
    );
    vec![Message::new(Role::System, INSTRUCTIONS), Message::new(Role::User, user)]
}

/// Asks `model` whether `cited` state `answer` to `question`.
pub fn check(
    model: &dyn LanguageModel,
    question: &str,
    earlier: Option<&str>,
    answer: &str,
    cited: &[Hit],
    cancel: &Cancel,
) -> Result<Verdict, LlmError> {
    let options = GenerateOptions {
        max_tokens: 3,
        temperature: 0.0,
    };
    let mut reply = String::new();
    model.generate(
        &prompt(question, earlier, answer, cited),
        &options,
        cancel,
        &mut |text| reply.push_str(text),
    )?;
    Ok(verdict(&reply))
}

/// The verdict a reply gives by its first word.
fn verdict(reply: &str) -> Verdict {
    let first: String = reply
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    match first.as_str() {
        "yes" => Verdict::Stated,
        "no" => Verdict::NotStated,
        _ => Verdict::Unclear,
    }
}

/// The first sentence of a withheld answer's body: says that the cited passages do not state it
/// (in words `says_not_found` knows), so it reads, and is graded, as a decline.
pub const NOT_STATED: &str = "The cited passages do not say this, so Lectern gives no answer.";

/// The body of an answer the passages do not bear out: [`NOT_STATED`], then the model's reading
/// `unconfirmed` (its first paragraph, footnotes taken out), then the passages it cited, quoted
/// by the caller.
pub fn withheld_lead(unconfirmed: &str) -> String {
    format!("{NOT_STATED}\n\nThe model's reading, which they do not bear out: \u{201c}{unconfirmed}\u{201d}\n\nThe passages it cites:\n\n")
}

/// The model's reading as [`withheld_lead`] quotes it: `body`'s first paragraph without footnote
/// references, at most 300 characters.
pub fn reading(body: &str) -> String {
    let first = body.trim().split("\n\n").next().unwrap_or_default();
    let plain = super::without_footnotes(first);
    let plain = plain
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" .", ".")
        .replace(" ,", ",");
    match plain.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &plain[..at]),
        None => plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_gives_its_verdict_by_its_first_word() {
        assert_eq!(verdict("Yes."), Verdict::Stated);
        assert_eq!(verdict(" no"), Verdict::NotStated);
        assert_eq!(verdict("No, the excerpts"), Verdict::NotStated);
        assert_eq!(verdict("**YES**"), Verdict::Stated);
        assert_eq!(verdict("Not"), Verdict::Unclear);
        assert_eq!(verdict("Nobody"), Verdict::Unclear);
        assert_eq!(verdict(""), Verdict::Unclear);
    }

    #[test]
    fn the_reading_is_the_first_paragraph_without_footnotes() {
        assert_eq!(
            reading("The pump runs at 40 bar [^2].\n\nIt is quiet."),
            "The pump runs at 40 bar."
        );
        assert!(reading(&"word ".repeat(100)).ends_with('…'));
        assert!(super::super::says_not_found(NOT_STATED));
        assert!(super::super::grade::is_decline(NOT_STATED));
    }
}
