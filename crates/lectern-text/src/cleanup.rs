//! The last pass over a page's text: presentation-form ligatures become letters, soft hyphens
//! go, and a word hyphenated across a line end is joined again.

use unicode_normalization::UnicodeNormalization;

const SOFT_HYPHEN: char = '\u{AD}';

/// Bidirectional formatting marks, which some writers (and pdftotext) put around RTL runs.
pub fn is_bidi_mark(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Ligatures and other presentation forms (U+FB00..U+FB4F) become their NFKC letters; soft
/// hyphens are dropped.
pub fn expand_ligatures(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            SOFT_HYPHEN => {}
            '\u{FB00}'..='\u{FB4F}' => out.extend(std::iter::once(c).nfkc()),
            _ => out.push(c),
        }
    }
    out
}

/// Joins a word hyphenated across a line end ("exam-" then "ple ...") when the hyphen follows a
/// letter and the next line starts with a lower-case letter; the rest of the word moves up.
pub fn join_hyphenated(text: &str) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let mut i = 0;
    while i + 1 < lines.len() {
        let trimmed = lines[i].trim_end();
        let before_hyphen = trimmed.strip_suffix('-').and_then(|rest| rest.chars().last());
        let next = lines[i + 1].trim_start();
        if !(before_hyphen.is_some_and(char::is_alphabetic) && next.chars().next().is_some_and(char::is_lowercase)) {
            i += 1;
            continue;
        }
        let (word, rest) = next.split_once(char::is_whitespace).unwrap_or((next, ""));
        let joined = format!("{}{word}", &trimmed[..trimmed.len() - 1]);
        let rest = rest.trim_start().to_string();
        lines[i] = joined;
        if rest.is_empty() {
            // The whole next line moved up: the joined line may end in a hyphen again.
            lines.remove(i + 1);
        } else {
            lines[i + 1] = rest;
            i += 1;
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ligatures_become_letters_and_soft_hyphens_go() {
        assert_eq!(
            expand_ligatures("\u{FB01}lled e\u{FB03}cient co\u{AD}operate"),
            "filled efficient cooperate"
        );
        assert_eq!(expand_ligatures("caf\u{E9} \u{2019}"), "caf\u{E9} \u{2019}");
    }

    #[test]
    fn hyphenated_words_are_joined_before_lower_case() {
        assert_eq!(join_hyphenated("an exam-\nple of it"), "an example\nof it");
        assert_eq!(join_hyphenated("see X-\nRay"), "see X-\nRay");
        assert_eq!(join_hyphenated("pages 3-\n4"), "pages 3-\n4");
        assert_eq!(join_hyphenated("a-\nb-\nc d"), "abc\nd");
        assert_eq!(join_hyphenated("end-\n"), "end-\n");
    }
}
