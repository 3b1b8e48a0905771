//! The part of a passage most likely to answer a question: of its lines (a table row is a line)
//! and the sentences of longer lines, the one sharing the most, and the rarest, words with the
//! question. Extractive answers show it in bold.

/// Words too common to tell passages apart.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "has", "have", "how", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "what", "when", "where", "which",
    "who", "whom", "why", "will", "with", "much", "many", "there", "their", "they",
];

/// Question words that ask for a number.
const NUMERIC: &[&str] = &[
    "much",
    "many",
    "number",
    "amount",
    "percentage",
    "percent",
    "rate",
    "total",
    "how",
];

/// The best span of `text` for `question` ([`best_span`]), trimmed.
pub fn best_line(question: &str, text: &str) -> Option<String> {
    let (start, end) = best_span(question, text)?;
    let line: String = text.chars().skip(start).take(end - start).collect();
    Some(line.trim().to_string())
}

/// The character range (start, end) of the best span of `text` for `question`, if any span
/// shares a word with it.
pub fn best_span(question: &str, text: &str) -> Option<(usize, usize)> {
    // Words the question quotes name what it asks about, not the answer: they weigh less.
    let quoted: Vec<String> = quotations(question)
        .iter()
        .flat_map(|q| words(q).map(|w| stem(&w)).collect::<Vec<_>>())
        .collect();
    let mut terms: Vec<(String, f64)> = Vec::new();
    for word in words(question).filter(|w| !STOPWORDS.contains(&w.as_str())) {
        let term = stem(&word);
        if terms.iter().all(|(t, _)| *t != term) {
            let digit = if term.chars().any(|c| c.is_ascii_digit()) {
                1.0
            } else {
                0.0
            };
            let weight = 1.0 + term.chars().count() as f64 / 8.0 + digit;
            let weight = if quoted.contains(&term) { weight * 0.3 } else { weight };
            terms.push((term, weight));
        }
    }
    if terms.is_empty() {
        return None;
    }
    let wants_number = words(question).any(|w| NUMERIC.contains(&w.as_str()));
    let mut best: Option<(f64, (usize, usize))> = None;
    for (start, end) in spans(text) {
        let span: String = text.chars().skip(start).take(end - start).collect();
        let span_words: Vec<String> = words(&span).map(|w| stem(&w)).collect();
        if span_words.is_empty() {
            continue;
        }
        let matched: f64 = terms
            .iter()
            .filter(|(t, _)| span_words.contains(t))
            .map(|(_, weight)| weight)
            .sum();
        if matched == 0.0 {
            continue;
        }
        let number_bonus = if wants_number && span.chars().any(|c| c.is_ascii_digit()) {
            0.5
        } else {
            0.0
        };
        let score = (matched + number_bonus) / (span_words.len() as f64).powf(0.3);
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, (start, end)));
        }
    }
    best.map(|(_, span)| span)
}

/// The parts of `text` in quotation marks: double or curly quotes, or straight single quotes
/// that open after a space (so that the apostrophes of "what's" and "company's" quote nothing).
fn quotations(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let close = match chars[i] {
            '"' => '"',
            '“' => '”',
            '‘' => '’',
            '\'' if i == 0 || chars[i - 1].is_whitespace() => '\'',
            _ => {
                i += 1;
                continue;
            }
        };
        let end = (i + 1..chars.len())
            .find(|&j| chars[j] == close && (close != '\'' || chars.get(j + 1).is_none_or(|c| !c.is_alphanumeric())));
        match end {
            Some(end) => {
                out.push(chars[i + 1..end].iter().collect());
                i = end + 1;
            }
            None => i += 1,
        }
    }
    out
}

/// The passage that best supports an answer that cited none: the one sharing the most of the
/// answer's own numbers (weighing double) and words (not those it repeats from the question), if
/// it shares at least a number or two such words.
pub fn supporting_passage(question: &str, answer: &str, passages: &[&str]) -> Option<usize> {
    let asked: Vec<String> = words(question).map(|w| stem(&w)).collect();
    let terms: Vec<String> = words(answer)
        .filter(|w| {
            !STOPWORDS.contains(&w.as_str()) && (w.chars().count() > 2 || w.chars().any(|c| c.is_ascii_digit()))
        })
        .map(|w| stem(&w))
        .filter(|t| !asked.contains(t))
        .collect();
    let mut best: Option<(f64, usize)> = None;
    for (i, passage) in passages.iter().enumerate() {
        let passage_words: Vec<String> = words(passage).map(|w| stem(&w)).collect();
        let mut shared: Vec<&String> = terms.iter().filter(|t| passage_words.contains(t)).collect();
        shared.sort_unstable();
        shared.dedup();
        let score: f64 = shared
            .iter()
            .map(|t| {
                if t.chars().any(|c| c.is_ascii_digit()) {
                    2.0
                } else {
                    1.0
                }
            })
            .sum();
        if score >= 2.0 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, i));
        }
    }
    best.map(|(_, i)| i)
}

/// Candidate spans in characters: each line, and each sentence of a line longer than 200
/// characters.
fn spans(text: &str) -> Vec<(usize, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line_start = 0;
    for i in 0..=chars.len() {
        if i < chars.len() && chars[i] != '\n' {
            continue;
        }
        if i - line_start > 200 {
            let mut start = line_start;
            for j in line_start..i {
                let ends_sentence = matches!(chars[j], '.' | '!' | '?' | ';')
                    && chars.get(j + 1).is_none_or(|c| c.is_whitespace())
                    && j + 1 - start > 20;
                if ends_sentence {
                    out.push((start, j + 1));
                    start = j + 1;
                }
            }
            if i > start {
                out.push((start, i));
            }
        } else if i > line_start {
            out.push((line_start, i));
        }
        line_start = i + 1;
    }
    out.into_iter()
        .map(|(s, e)| {
            let lead = chars[s..e].iter().take_while(|c| c.is_whitespace()).count();
            (s + lead, e)
        })
        .filter(|(s, e)| e > s)
        .collect()
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// A word without a plural or possessive `s`.
fn stem(word: &str) -> String {
    match word.strip_suffix('s') {
        Some(stem) if stem.chars().count() > 3 => stem.to_string(),
        _ => word.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_row_with_the_asked_label_wins() {
        let table = "Consolidated statement of cash flows\nNet income 1,204 998\nCapital expenditures (1,577) (1,350)\nDividends paid (420) (400)";
        assert_eq!(
            best_line("What were the capital expenditures in 2022?", table).as_deref(),
            Some("Capital expenditures (1,577) (1,350)")
        );
    }

    #[test]
    fn long_lines_are_cut_into_sentences() {
        let text = format!(
            "{} The filing deadline for nonresident aliens is June 15. {}",
            "Background words about the form and its many parts go here at length.".repeat(3),
            "More words follow about other matters entirely unrelated.".repeat(2)
        );
        assert_eq!(
            best_line("When is the filing deadline?", &text).as_deref(),
            Some("The filing deadline for nonresident aliens is June 15.")
        );
        assert_eq!(best_line("the of and", "anything"), None);
    }

    #[test]
    fn an_answer_without_citations_is_matched_to_the_passage_it_draws_on() {
        let passages = [
            "Denmark has an area of 43,094 km2.",
            "France is the largest country, 551,695 km2.",
        ];
        let question = "Which country is the largest?";
        let answer = "The largest is France, with 551,695 km2.";
        assert_eq!(supporting_passage(question, answer, &passages), Some(1));
        assert_eq!(supporting_passage(question, "I do not know.", &passages), None);
        assert_eq!(supporting_passage(question, "The largest country.", &passages), None);
    }

    #[test]
    fn apostrophes_quote_nothing() {
        assert_eq!(
            quotations("What's the company's 'net sales' and \"EBIT\"?"),
            vec!["net sales", "EBIT"]
        );
    }

    #[test]
    fn words_the_question_quotes_weigh_less_than_the_others() {
        let text =
            "Variation Itself - Variations on Lorem Ipsum.\nAndrew Jackson has waived all copyright to this work.";
        assert_eq!(
            best_line(
                "Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?",
                text
            )
            .as_deref(),
            Some("Andrew Jackson has waived all copyright to this work.")
        );
    }
}
