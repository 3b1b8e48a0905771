//! Markdown for answers: the footnote list, quotes of passages, and footnotes renumbered when
//! several answers are joined into one document (a chat export).

use super::Citation;
use crate::catalog::ChatMessage;
use crate::llm::Role;

/// How much of a passage a footnote quotes.
const QUOTE_CHARS: usize = 160;

/// The footnote definitions of `citations`: `[^1]: Name, page 3: "quote…"`, one per line.
pub fn footnote_list(citations: &[Citation]) -> String {
    citations
        .iter()
        .map(|c| footnote(c.number, c))
        .collect::<Vec<_>>()
        .join("\n")
}

fn footnote(number: usize, c: &Citation) -> String {
    let words = c.quote.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut quote: String = words.chars().take(QUOTE_CHARS).collect();
    if quote.len() < words.len() {
        quote.push('…');
    }
    format!(
        "[^{number}]: {}, page {}: \"{}\"",
        escape_quote(&c.document_name),
        c.page,
        escape_quote(&quote)
    )
}

/// Text from a document made inert as markdown: characters that would start links, footnotes,
/// emphasis, code or HTML are escaped.
pub fn escape_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '[' | ']' | '*' | '_' | '`' | '<' | '>' | '#' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `body` with each footnote reference `[^n]` (n from 1 to `count`) shifted to `[^n+offset]`, and
/// the matching footnote list; used to join several answers without their numbers clashing.
fn renumber_footnotes(body: &str, citations: &[Citation], offset: usize) -> (String, String) {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find("[^") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
        let number = digits
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=citations.len()).contains(n));
        match number {
            Some(n) if tail[digits.len()..].starts_with(']') => {
                out.push_str(&format!("[^{}]", n + offset));
                rest = &tail[digits.len() + 1..];
            }
            _ => {
                out.push_str("[^");
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    let list = citations
        .iter()
        .map(|c| footnote(c.number + offset, c))
        .collect::<Vec<_>>()
        .join("\n");
    (out, list)
}

/// A chat as one markdown document: each question as a heading, each answer with its footnotes
/// numbered through the whole chat, and the reference list at the end.
pub fn chat_markdown(title: &str, messages: &[ChatMessage]) -> String {
    let mut out = format!("# {title}\n");
    let mut references = Vec::new();
    let mut offset = 0;
    for message in messages {
        match message.role {
            Role::User => out.push_str(&format!("\n## {}\n", message.content.trim())),
            Role::Assistant | Role::System => {
                let (body, list) = renumber_footnotes(&message.content, &message.citations, offset);
                offset += message.citations.len();
                out.push_str(&format!("\n{}\n", body.trim()));
                if !list.is_empty() {
                    references.push(list);
                }
            }
        }
    }
    if !references.is_empty() {
        out.push_str(&format!("\n---\n\n{}\n", references.join("\n")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::DocumentId;

    fn citation(number: usize, quote: &str) -> Citation {
        Citation {
            number,
            document: DocumentId::new_random(),
            document_name: "a_b.pdf".into(),
            chunk_id: String::new(),
            page: 2,
            char_start: 0,
            char_end: 5,
            quote: quote.into(),
            score: 1.0,
            remote: None,
        }
    }

    #[test]
    fn footnotes_quote_inertly_and_renumber() {
        let c = vec![citation(1, "x <img src=x onerror=alert(1)> [^9]"), citation(2, "y")];
        assert_eq!(
            footnote_list(&c[..1]),
            "[^1]: a\\_b.pdf, page 2: \"x \\<img src=x onerror=alert(1)\\> \\[^9\\]\""
        );
        let (body, list) = renumber_footnotes("A[^1] B[^2] C[^3] [^x", &c, 4);
        assert_eq!(body, "A[^5] B[^6] C[^3] [^x");
        assert!(list.starts_with("[^5]: ") && list.contains("\n[^6]: "));
    }
}
