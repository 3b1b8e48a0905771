//! Follow-up questions retrieve with their context: "and in 2022?" or "who wrote it?" says too
//! little to find passages by itself, so it is searched together with the chat's previous
//! question. A rule rather than the model: it costs nothing, and on the answer set's follow-ups it
//! finds the gold page as often as a rewrite would need (ARCHITECTURE.md, "Answers measured").

use crate::llm::{Message, Role};

/// Words that point back at something said before.
const REFERRING: &[&str] = &[
    "it", "its", "they", "them", "their", "this", "that", "these", "those", "he", "she", "his", "her", "there", "same",
    "above", "previous",
];

/// Openings of a question that continues the last one.
const CONTINUING: &[&str] = &["and", "but", "also", "what about", "how about", "or", "then"];

/// The text to search for `question`: the question itself, or, when it reads as a follow-up of
/// the chat's last question (short, opening with "and…"/"what about…", or referring back), both.
pub fn retrieval_query(question: &str, history: &[Message]) -> String {
    let Some(previous) = history.iter().rev().find(|m| m.role == Role::User) else {
        return question.to_string();
    };
    let lower = question.trim().to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let continues = CONTINUING
        .iter()
        .any(|opening| lower.starts_with(&format!("{opening} ")) || lower.starts_with(&format!("{opening},")));
    let refers = words.iter().any(|w| REFERRING.contains(w));
    if words.len() <= 5 || continues || refers {
        format!("{} {}", previous.content.trim(), question.trim())
    } else {
        question.to_string()
    }
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
}
