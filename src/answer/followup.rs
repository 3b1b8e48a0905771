//! Follow-up questions retrieve with their context: "and in 2022?" or "who wrote it?" says too
//! little to find passages by itself, so it is searched together with the chat's earlier
//! questions. A rule rather than a rewrite by the model: it costs no model time before retrieval
//! (docs/figures.md, "Answers measured", has its effect on the answer set's follow-ups).

use crate::llm::{Message, Role};

/// Words that point back at something said before.
const REFERRING: &[&str] = &[
    "it", "its", "they", "them", "their", "this", "that", "these", "those", "he", "she", "his", "her", "there", "same",
    "above", "previous",
];

/// Openings of a question that continues the last one.
const CONTINUING: &[&str] = &["and", "but", "also", "what about", "how about", "or", "then"];

/// The text to search for `question`: the question itself, or, when it reads as a follow-up (short,
/// opening with "and…"/"what about…", or referring back), the chat's questions back to the last
/// one that stood on its own, then this one.
pub fn retrieval_query(question: &str, history: &[Message]) -> String {
    if !is_follow_up(question) {
        return question.to_string();
    }
    let mut parts = vec![question.trim()];
    for earlier in history.iter().rev().filter(|m| m.role == Role::User).take(MAX_CHAIN) {
        parts.push(earlier.content.trim());
        if !is_follow_up(&earlier.content) {
            break;
        }
    }
    parts.reverse();
    parts.join(" ")
}

/// The most earlier questions a chain of follow-ups reaches back to.
const MAX_CHAIN: usize = 3;

/// Whether a question reads as a follow-up: five words or fewer, an opening that continues, or a
/// word that points back.
fn is_follow_up(question: &str) -> bool {
    let lower = question.trim().to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let continues = CONTINUING
        .iter()
        .any(|opening| lower.starts_with(&format!("{opening} ")) || lower.starts_with(&format!("{opening},")));
    words.len() <= 5 || continues || words.iter().any(|w| REFERRING.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat() -> Vec<Message> {
        vec![
            Message::new(Role::User, "What was the net revenue of Acme in 2023?"),
            Message::new(Role::Assistant, "It was $4.2 billion [^1]."),
        ]
    }

    #[test]
    fn follow_ups_are_searched_with_the_last_question() {
        assert_eq!(
            retrieval_query("And in 2022?", &chat()),
            "What was the net revenue of Acme in 2023? And in 2022?"
        );
        assert_eq!(
            retrieval_query("Which segment contributed most of it over the whole year?", &chat()),
            "What was the net revenue of Acme in 2023? Which segment contributed most of it over the whole year?"
        );
    }

    #[test]
    fn standalone_questions_and_first_questions_are_searched_alone() {
        let standalone = "How many employees did the company report at the end of the fiscal year?";
        assert_eq!(retrieval_query(standalone, &chat()), standalone);
        assert_eq!(retrieval_query("And in 2022?", &[]), "And in 2022?");
    }

    #[test]
    fn a_chain_of_follow_ups_reaches_back_to_the_question_that_stood_alone() {
        let mut history = chat();
        history.push(Message::new(Role::User, "And in 2022?"));
        history.push(Message::new(Role::Assistant, "$3.9 billion [^1]."));
        assert_eq!(
            retrieval_query("and 2021?", &history),
            "What was the net revenue of Acme in 2023? And in 2022? and 2021?"
        );
    }
}
