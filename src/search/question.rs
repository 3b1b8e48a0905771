//! What of a question is searched: the question without the words that ask rather than name
//! ("please answer", "round your answer to two decimal places", "based on the information shown
//! in"). They match pages about nothing in particular and pull a question's vector away from
//! its subject; the words that name a statement or a section ("the cash flow statement") stay.
//! The model answering still reads the whole question.

/// Words of asking and answering, never of a document's subject.
const ASKING_WORDS: [&str; 39] = [
    "abilities",
    "according",
    "answer",
    "answers",
    "approach",
    "asked",
    "assuming",
    "based",
    "basing",
    "calculate",
    "clearly",
    "compute",
    "conclusions",
    "considering",
    "decimal",
    "details",
    "drawing",
    "give",
    "help",
    "information",
    "judgment",
    "judgments",
    "outlined",
    "perspective",
    "plainly",
    "please",
    "primarily",
    "provide",
    "provided",
    "question",
    "questions",
    "relying",
    "respond",
    "response",
    "shown",
    "standpoint",
    "stated",
    "using",
    "utilize",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_asking_go_and_the_subject_and_its_statement_stay() {
        assert_eq!(
            search_text("What is Best Buy's FY2019 inventory? Please answer using the balance sheet."),
            "What is Best Buy's FY2019 inventory? the balance sheet."
        );
        assert_eq!(search_text("Please answer."), "Please answer.");
        assert!(ASKING_WORDS.windows(2).all(|w| w[0] < w[1]), "sorted, without repeats");
    }
}
