//! What of a question is searched: the question without the words that ask rather than name
//! ("please answer", "round your answer to two decimal places", "based on the information shown
//! in"). They match pages about nothing in particular and pull a question's vector away from
//! its subject; the words that name a statement or a section ("the cash flow statement") stay.
//! The model answering still reads the whole question. Also here: the function words keyword
//! search leaves out, and the years a question joins to letters ("FY2018").

pub(super) use crate::dates::is_year;

/// Words of asking and answering, never of a document's subject.
#[rustfmt::skip]
const ASKING_WORDS: [&str; 39] = [
    "abilities", "according", "answer", "answers", "approach", "asked", "assuming", "based", "basing",
    "calculate", "clearly", "compute", "conclusions", "considering", "decimal", "details", "drawing", "give",
    "help", "information", "judgment", "judgments", "outlined", "perspective", "plainly", "please",
    "primarily", "provide", "provided", "question", "questions", "relying", "respond", "response", "shown",
    "standpoint", "stated", "using", "utilize",
];

/// Words a question is made of that say nothing about what it asks (they match nearly every
/// passage and would only add to the most a question could score).
pub(super) const FUNCTION_WORDS: [&str; 41] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "did", "do", "does", "for", "from", "how", "i", "in", "is",
    "it", "its", "of", "on", "or", "s", "that", "the", "their", "there", "this", "to", "was", "were", "what", "when",
    "where", "which", "who", "why", "will", "with", "you",
];

/// `question` without its words of asking (the question itself if nothing else is left).
pub fn search_text(question: &str) -> String {
    let kept: Vec<&str> = question
        .split_whitespace()
        .filter(|word| {
            let core = word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
            !ASKING_WORDS.contains(&core.as_str())
        })
        .collect();
    if kept.is_empty() {
        question.trim().to_string()
    } else {
        kept.join(" ")
    }
}

/// The words of `text` keyword search looks for: without the function words, and with the
/// year a word joins to letters ("FY2018") also alone.
pub fn keyword_text(text: &str) -> String {
    let mut words: Vec<&str> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() || FUNCTION_WORDS.contains(&word.to_lowercase().as_str()) {
            continue;
        }
        words.push(word);
        if let Some(year) = embedded_year(word) {
            words.push(year);
        }
    }
    words.join(" ")
}

/// The four-digit year at the end of a word that joins letters and the year ("FY2018",
/// "Q12023"), which a page writes apart ("fiscal 2018").
fn embedded_year(word: &str) -> Option<&str> {
    let split = word.len().checked_sub(4)?;
    let (letters, year) = (word.get(..split)?, word.get(split..)?);
    (is_year(year) && letters.chars().any(char::is_alphabetic)).then_some(year)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_asking_go_and_the_subject_and_its_statement_stay() {
        assert_eq!(
            search_text("What is Northwind's FY2019 inventory? Please answer using the balance sheet."),
            "What is Northwind's FY2019 inventory? the balance sheet."
        );
        assert_eq!(search_text("Please answer."), "Please answer.");
        assert!(ASKING_WORDS.windows(2).all(|w| w[0] < w[1]), "sorted, without repeats");
    }

    #[test]
    fn a_year_joined_to_letters_is_found_and_other_numbers_are_not_years() {
        assert_eq!(embedded_year("FY2018"), Some("2018"));
        assert_eq!(embedded_year("Q12023"), Some("2023"));
        assert_eq!(embedded_year("2018"), None);
        assert_eq!(embedded_year("AB1234"), None);
        assert!(is_year("1999") && !is_year("2,018") && !is_year("3000"));
    }
}
