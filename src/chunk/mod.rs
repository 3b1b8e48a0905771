//! Page-aware chunking: each page's text is cut into windows of model tokens with overlap.
//!
//! Windows are counted with the embedding model's own tokenizer, so a chunk always fits the
//! model's input; a window prefers to end after a sentence. A chunk never crosses a page, carries
//! its page number and its character range in that page's (normalised) text, and has an id derived
//! from the document content and that range, so the same document always yields the same ids.

mod context;
mod page_numbers;
mod tables;

pub use context::Sections;
pub use page_numbers::prints_page_number;
pub use tables::{column_periods, statement_titled, Statement};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokenizers::Tokenizer;

use crate::catalog::ChunkId;

/// Sizes of the chunk windows, recorded in every index manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkerSettings {
    /// The most model tokens in a chunk (the model adds its own special tokens to these).
    pub max_tokens: usize,
    /// Tokens shared by consecutive chunks of a page.
    pub overlap_tokens: usize,
}

impl Default for ChunkerSettings {
    fn default() -> Self {
        ChunkerSettings {
            max_tokens: 250,
            overlap_tokens: 40,
        }
    }
}

/// One chunk of a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub id: ChunkId,
    /// 1-based page number.
    pub page: u32,
    /// Character (not byte) offsets in the page text, end exclusive.
    pub char_start: u32,
    pub char_end: u32,
    pub text: String,
    /// The document and section the chunk sits under ([`Sections`]): searched with the text,
    /// not part of it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context: String,
}

impl Chunk {
    /// What is embedded and indexed for the chunk: its context, then its text.
    pub fn searchable_text(&self) -> String {
        if self.context.is_empty() {
            self.text.clone()
        } else {
            format!("{}\n{}", self.context, self.text)
        }
    }
}

/// Cuts pages into chunks with a tokenizer.
pub struct Chunker {
    tokenizer: Tokenizer,
    settings: ChunkerSettings,
}

impl Chunker {
    /// A chunker counting with `tokenizer` (its truncation and padding are switched off here).
    pub fn new(mut tokenizer: Tokenizer, settings: ChunkerSettings) -> Chunker {
        tokenizer.with_padding(None);
        // Disabling truncation cannot fail.
        let _ = tokenizer.with_truncation(None);
        Chunker { tokenizer, settings }
    }

    pub fn settings(&self) -> ChunkerSettings {
        self.settings
    }

    /// The chunks of one page of a document whose content hash is `content_hash`.
    pub fn chunk_page(&self, content_hash: &str, page: u32, text: &str) -> Vec<Chunk> {
        let spans = match self.tokenizer.encode(text, false) {
            Ok(encoding) => encoding.get_offsets().to_vec(),
            Err(_) => whitespace_spans(text),
        };
        let spans: Vec<(usize, usize)> = spans.into_iter().filter(|(s, e)| e > s).collect();
        windows(&spans, text, self.settings)
            .into_iter()
            .map(|(start, end)| make_chunk(content_hash, page, text, start, end))
            .collect()
    }
}

/// Byte ranges of the windows over `spans` (token byte ranges in `text`).
fn windows(spans: &[(usize, usize)], text: &str, settings: ChunkerSettings) -> Vec<(usize, usize)> {
    let max = settings.max_tokens.max(1);
    let overlap = settings.overlap_tokens.min(max / 2);
    let mut out = Vec::new();
    let mut start = 0;
    while start < spans.len() {
        let mut end = (start + max).min(spans.len());
        if end < spans.len() {
            // Prefer to end after a sentence in the second half of the window.
            let earliest = start + max / 2;
            if let Some(cut) = (earliest..end).rev().find(|&i| ends_sentence(text, spans, i)) {
                end = cut + 1;
            }
        }
        out.push((spans[start].0, spans[end - 1].1));
        if end == spans.len() {
            break;
        }
        start = (end - overlap).max(start + 1);
    }
    out
}

/// True when token `i` closes a sentence: it ends with `.`, `?`, `!` or `;` and whitespace follows
/// (so `3.5` and `e.g.x` do not count).
fn ends_sentence(text: &str, spans: &[(usize, usize)], i: usize) -> bool {
    let token = &text[spans[i].0..spans[i].1];
    let gap_end = spans.get(i + 1).map_or(text.len(), |s| s.0);
    let gap = &text[spans[i].1..gap_end];
    token.ends_with(['.', '?', '!', ';']) && (gap.contains(char::is_whitespace) || gap_end == text.len())
}

fn make_chunk(content_hash: &str, page: u32, text: &str, start: usize, end: usize) -> Chunk {
    let char_start = text[..start].chars().count() as u32;
    let body = &text[start..end];
    let char_end = char_start + body.chars().count() as u32;
    let mut hasher = Sha256::new();
    hasher.update(content_hash.as_bytes());
    hasher.update(page.to_le_bytes());
    hasher.update(char_start.to_le_bytes());
    hasher.update(char_end.to_le_bytes());
    Chunk {
        id: ChunkId(hex::encode(&hasher.finalize()[..12])),
        page,
        char_start,
        char_end,
        text: body.to_string(),
        context: String::new(),
    }
}

/// Fallback spans when the tokenizer fails: one token per whitespace-separated word.
fn whitespace_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chunks_of(text: &str, max: usize, overlap: usize) -> Vec<Chunk> {
        let settings = ChunkerSettings {
            max_tokens: max,
            overlap_tokens: overlap,
        };
        windows(&whitespace_spans(text), text, settings)
            .into_iter()
            .map(|(s, e)| make_chunk("hash", 3, text, s, e))
            .collect()
    }

    #[test]
    fn offsets_are_in_characters_and_point_at_the_text() {
        let text = "Größe über alles. Zweiter Satz hier. Dritter.";
        for chunk in chunks_of(text, 4, 1) {
            let slice: String = text
                .chars()
                .skip(chunk.char_start as usize)
                .take((chunk.char_end - chunk.char_start) as usize)
                .collect();
            assert_eq!(slice, chunk.text);
            assert_eq!(chunk.page, 3);
        }
    }

    #[test]
    fn windows_prefer_sentence_ends() {
        let text = "one two three. four five six seven eight";
        let chunks = chunks_of(text, 5, 1);
        assert_eq!(chunks[0].text, "one two three.");
    }

    proptest! {
        #[test]
        fn chunks_cover_every_word_and_respect_the_size(words in proptest::collection::vec("[a-z]{1,8}[.]?", 0..300), max in 2usize..40, overlap in 0usize..10) {
            let text = words.join(" ");
            let chunks = chunks_of(&text, max, overlap);
            let covered: std::collections::HashSet<&str> = chunks.iter().flat_map(|c| c.text.split_whitespace()).collect();
            for w in text.split_whitespace() {
                prop_assert!(covered.contains(w));
            }
            for c in &chunks {
                prop_assert!(c.text.split_whitespace().count() <= max);
            }
            let again = chunks_of(&text, max, overlap);
            prop_assert_eq!(chunks, again);
        }
    }
}
