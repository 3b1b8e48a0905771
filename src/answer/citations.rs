//! Citation markers parsed out of a model's answer as it streams.
//!
//! Passages are given to the model labelled `[1]`, `[2]`, ...; the model cites them the same way
//! (`[2]`, `[1, 3]`, `[^2]`, `[1][3]`). The parser sees the answer in whatever pieces the backend
//! delivers, so a marker may arrive split across pieces: an opening bracket is held back until
//! the marker closes or can no longer be one. Every label is checked against the passages
//! actually supplied: a label that names none is dropped; the others become footnotes `[^n]`
//! numbered by first appearance, a passage keeping its number when cited again. Text inside code
//! spans and fenced code (backtick runs) is passed through untouched, and so is anything between
//! brackets that is not a well-formed marker.

/// The longest bracketed text still considered a possible marker (`[^12, ^13, ^14]`).
const MAX_MARKER: usize = 40;

/// What the parser makes of a piece of the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Answer text, with markers already rewritten as footnote references.
    Text(String),
    /// A footnote seen for the first time: its number and the index of the passage it cites.
    NewFootnote { number: usize, passage: usize },
}

/// Rewrites citation markers in a streamed answer; see the module documentation.
#[derive(Debug)]
pub struct CitationParser {
    /// How many passages were supplied: labels 1..=supplied are valid.
    supplied: usize,
    /// Footnote numbers given so far, by passage index.
    numbers: Vec<Option<usize>>,
    /// The passages cited so far, in footnote order.
    cited: Vec<usize>,
    /// Text held back: a `[` that may start a marker, or a run of backticks that may continue.
    pending: String,
    /// The length of the backtick run that opened the code span we are in, if any.
    code_fence: Option<usize>,
    /// Whether the last text emitted ended in a footnote reference (to drop duplicates).
    last_was_footnote: Option<usize>,
}

impl CitationParser {
    /// A parser for an answer to `supplied` passages, labelled 1 to `supplied`.
    pub fn new(supplied: usize) -> CitationParser {
        CitationParser {
            supplied,
            numbers: vec![None; supplied],
            cited: Vec::new(),
            pending: String::new(),
            code_fence: None,
            last_was_footnote: None,
        }
    }

    /// The passages cited so far, in footnote order (footnote n is `cited()[n - 1]`).
    pub fn cited(&self) -> &[usize] {
        &self.cited
    }

    /// Feeds the next piece of the answer.
    pub fn push(&mut self, chunk: &str) -> Vec<Piece> {
        let mut out = Vec::new();
        for c in chunk.chars() {
            self.pending.push(c);
            self.advance(&mut out, false);
        }
        out
    }

    /// Flushes whatever is held back at the end of the answer.
    pub fn finish(&mut self) -> Vec<Piece> {
        let mut out = Vec::new();
        self.advance(&mut out, true);
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            emit_text(&mut out, &rest);
        }
        out
    }

    /// Decides what the held text is, once it can be decided.
    fn advance(&mut self, out: &mut Vec<Piece>, at_end: bool) {
        loop {
            let Some(first) = self.pending.chars().next() else {
                return;
            };
            if first == '`' {
                let run = self.pending.chars().take_while(|&c| c == '`').count();
                if run == self.pending.len() && !at_end {
                    return; // the run may go on
                }
                self.code_fence = match self.code_fence {
                    None => Some(run),
                    Some(open) if open == run => None,
                    Some(open) => Some(open),
                };
                let text: String = self.pending.drain(..run).collect();
                self.text(out, &text);
                continue;
            }
            if first == '[' && self.code_fence.is_none() {
                match self.marker() {
                    Marker::Incomplete if !at_end => return,
                    Marker::Incomplete | Marker::Not => {
                        self.pending.drain(..1);
                        self.text(out, "[");
                    }
                    Marker::Labels { len, labels } => {
                        self.pending.drain(..len);
                        for label in labels {
                            self.cite(out, label);
                        }
                    }
                }
                continue;
            }
            let end = self
                .pending
                .find(|c| c == '`' || (c == '[' && self.code_fence.is_none()))
                .unwrap_or(self.pending.len());
            let text: String = self.pending.drain(..end).collect();
            self.text(out, &text);
        }
    }

    /// Reads the marker at the start of the held text, which starts with `[`.
    fn marker(&self) -> Marker {
        let Some(close) = self.pending.find(']') else {
            let body = &self.pending[1..];
            return if self.pending.len() <= MAX_MARKER && body.chars().all(marker_char) {
                Marker::Incomplete
            } else {
                Marker::Not
            };
        };
        if close > MAX_MARKER {
            return Marker::Not;
        }
        let mut labels = Vec::new();
        for part in self.pending[1..close].split(',') {
            let part = part.trim();
            let part = part.strip_prefix('^').unwrap_or(part);
            if part.is_empty() || part.len() > 4 || !part.chars().all(|c| c.is_ascii_digit()) {
                return Marker::Not;
            }
            match part.parse::<usize>() {
                Ok(n) => labels.push(n),
                Err(_) => return Marker::Not,
            }
        }
        Marker::Labels { len: close + 1, labels }
    }

    /// Emits a footnote reference for passage label `label`, or nothing if it names no passage.
    fn cite(&mut self, out: &mut Vec<Piece>, label: usize) {
        if label == 0 || label > self.supplied {
            return;
        }
        let passage = label - 1;
        let number = match self.numbers[passage] {
            Some(n) => n,
            None => {
                self.cited.push(passage);
                let n = self.cited.len();
                self.numbers[passage] = Some(n);
                out.push(Piece::NewFootnote { number: n, passage });
                n
            }
        };
        if self.last_was_footnote == Some(number) {
            return; // "[1][1]" cites once
        }
        emit_text(out, &format!("[^{number}]"));
        self.last_was_footnote = Some(number);
    }

    fn text(&mut self, out: &mut Vec<Piece>, text: &str) {
        if !text.is_empty() {
            self.last_was_footnote = None;
            emit_text(out, text);
        }
    }
}

/// Characters a marker can hold before its closing bracket.
fn marker_char(c: char) -> bool {
    c.is_ascii_digit() || c == '^' || c == ',' || c == ' '
}

enum Marker {
    /// Could still become a marker: wait for more text.
    Incomplete,
    /// Is not a marker: the bracket is text.
    Not,
    /// A marker `len` bytes long naming these labels.
    Labels { len: usize, labels: Vec<usize> },
}

/// Appends text, merging it with text just before it.
fn emit_text(out: &mut Vec<Piece>, text: &str) {
    if let Some(Piece::Text(last)) = out.last_mut() {
        last.push_str(text);
    } else {
        out.push(Piece::Text(text.to_string()));
    }
}

/// The answer text of `pieces`, joined.
pub fn text_of(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Text(t) => Some(t.as_str()),
            Piece::NewFootnote { .. } => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn parse(supplied: usize, chunks: &[&str]) -> (String, Vec<usize>) {
        let mut parser = CitationParser::new(supplied);
        let mut pieces = Vec::new();
        for c in chunks {
            pieces.extend(parser.push(c));
        }
        pieces.extend(parser.finish());
        (text_of(&pieces), parser.cited().to_vec())
    }

    #[test]
    fn numbers_footnotes_by_first_appearance_and_reuses_them() {
        let (text, cited) = parse(5, &["Paris [3]. Tall [1, 3]. Again [^3][3]."]);
        assert_eq!(text, "Paris [^1]. Tall [^2][^1]. Again [^1].");
        assert_eq!(cited, vec![2, 0]);
    }

    #[test]
    fn drops_labels_that_name_no_supplied_passage() {
        let (text, cited) = parse(2, &["A [7]. B [0]. C [2, 9]."]);
        assert_eq!(text, "A . B . C [^1].");
        assert_eq!(cited, vec![1]);
    }

    #[test]
    fn leaves_malformed_markers_and_code_alone() {
        let (text, cited) = parse(3, &["[a] [1 [ 2 x] `[1]` ```\n[2]\n``` [", "3"]);
        assert_eq!(text, "[a] [1 [ 2 x] `[1]` ```\n[2]\n``` [3");
        assert!(cited.is_empty());
    }

    #[test]
    fn a_marker_split_across_chunks_is_still_a_marker() {
        let (text, cited) = parse(12, &["See [", "1", "2", "]", " and `", "`[1]`", "` [1", "]"]);
        assert_eq!(text, "See [^1] and ``[1]`` [^2]");
        assert_eq!(cited, vec![11, 0]);
    }

    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ]{0,8}",
            (0usize..9).prop_map(|n| format!("[{n}]")),
            (0usize..9, 0usize..9).prop_map(|(a, b)| format!("[^{a}, {b}]")),
            Just("`".to_string()),
            Just("```".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just("[x]".to_string()),
        ]
    }

    proptest! {
        /// However the answer is cut into pieces, the result is the same.
        #[test]
        fn splitting_never_changes_the_result(
            parts in proptest::collection::vec(fragment(), 0..20),
            cuts in proptest::collection::vec(0usize..200, 0..12),
        ) {
            let whole: String = parts.concat();
            let chars: Vec<char> = whole.chars().collect();
            let mut points: Vec<usize> = cuts.into_iter().map(|c| c.min(chars.len())).collect();
            points.sort_unstable();
            let mut chunks = Vec::new();
            let mut from = 0;
            for p in points.into_iter().chain([chars.len()]) {
                chunks.push(chars[from..p].iter().collect::<String>());
                from = p;
            }
            let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
            prop_assert_eq!(parse(5, &refs), parse(5, &[whole.as_str()]));
        }

        /// Every footnote names a supplied passage, footnotes are numbered 1, 2, ... in order of
        /// first appearance, and no passage gets two numbers.
        #[test]
        fn footnotes_are_valid_and_numbered_in_order(parts in proptest::collection::vec(fragment(), 0..20)) {
            let mut parser = CitationParser::new(5);
            let mut pieces = parser.push(&parts.concat());
            pieces.extend(parser.finish());
            let mut passages = Vec::new();
            for piece in &pieces {
                if let Piece::NewFootnote { number, passage } = piece {
                    prop_assert_eq!(*number, passages.len() + 1);
                    prop_assert!(*passage < 5 && !passages.contains(passage));
                    passages.push(*passage);
                }
            }
            prop_assert_eq!(passages.as_slice(), parser.cited());
        }
    }
}
