//! The prompt: instructions, earlier turns of the chat, the passages that fit, and the question,
//! sized with the model's own token counts.
//!
//! Passages are merged first: hits of the same page whose character ranges overlap or touch
//! become one passage (chunks overlap by design, and two neighbours together often hold a table
//! with its header), and a hit wholly inside another is dropped. The question, the instructions
//! and room for the answer come first; earlier turns are kept, newest first, up to a sixth of the
//! budget; the passages fill what is left, in rank order, each labelled `[n]` with its document
//! and page, what it sits under (a section's heading, a table's title and the line naming its
//! columns' periods, where the passage does not say them itself) and keeping its lines (a table
//! row stays one line with its label, each figure written with its column's period:
//! `columns.rs`). A passage that does not fit whole is left out rather than
//! cut, so a citation always points at text the model saw. The question is asked before the
//! passages and again after them, where a small model attends most.
//!
//! There is no worked example: small models copy an example's answer verbatim. Nor is the model
//! offered a way to decline: given one ("if no excerpt bears on the question, say: the documents
//! do not say"), the default model took it for 0.51 of the answerable questions of realqa and
//! 0.27 of the unanswerable ones, most often with the answer in its first excerpt. Lectern
//! decides when nothing bears on the question, before the model is asked (`bears_on_question`),
//! and a figure no passage supports is withheld (`check.rs`); see docs/figures.md.

use super::columns::with_periods;
use crate::chunk::column_periods;
use crate::llm::{LanguageModel, Message, Role};
use crate::search::Hit;

/// Tokens a chat template adds around each message (role markers, separators), a safe margin.
const PER_MESSAGE: usize = 8;

/// The instructions the model gets.
pub const INSTRUCTIONS: &str = "You answer questions about the user's documents. Use only the numbered \
excerpts in the user's message; they are text extracted from PDF pages, and table rows keep their labels \
on the same line. Begin with the direct answer: the number with its unit, the name, the date or a short \
phrase. Then add at most two sentences if they help. Cite the excerpt each fact comes from with its number \
in square brackets right after the fact, like [2]. Copy numbers exactly as written, with their units and \
scale (thousands, millions). When the answer must be calculated (a change, a ratio, a sum, an average), \
write the calculation with the excerpts' numbers, then an equals sign and its result. When the question \
asks for several things, list them. If the excerpts give part of the answer, give that part. Answer in the \
language of the question.";

/// What the model is asked, and the passages it was given.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub messages: Vec<Message>,
    /// The passages in label order: label `n` is `passages[n - 1]`. A passage may join several
    /// hits of one page.
    pub passages: Vec<Hit>,
    /// The tokens the prompt takes, by the model's count.
    pub tokens: usize,
}

/// Plans the prompt for `question` with `history` (earlier turns, oldest first) and `hits` (in
/// rank order), within `budget` prompt tokens (and the model's window less `answer_room`).
pub fn plan(
    model: &dyn LanguageModel,
    question: &str,
    history: &[Message],
    hits: &[Hit],
    budget: usize,
    answer_room: usize,
) -> Prompt {
    let budget = budget.min(model.context_window().saturating_sub(answer_room));
    let count = |text: &str| model.count_tokens(text) + PER_MESSAGE;
    let (head, tail) = frame(question);
    let mut used = count(INSTRUCTIONS) + count(&head) + count(&tail);

    let (turns, history_used) = recent_turns(model, history, (budget / 6).min(budget.saturating_sub(used)));
    used += history_used;

    let packed = pack(hits, budget.saturating_sub(used), &|text| model.count_tokens(text));
    let mut messages = vec![Message::new(Role::System, INSTRUCTIONS)];
    messages.extend(turns);
    messages.push(Message::new(Role::User, format!("{head}{}{tail}", packed.body)));
    Prompt {
        messages,
        passages: packed.passages,
        tokens: used + packed.tokens,
    }
}

/// The latest messages of `history` that fit in `room` tokens, oldest first, and the tokens they
/// take.
pub fn recent_turns(model: &dyn LanguageModel, history: &[Message], room: usize) -> (Vec<Message>, usize) {
    let mut turns = Vec::new();
    let mut used = 0;
    for message in history.iter().rev() {
        let cost = model.count_tokens(&message.content) + PER_MESSAGE;
        if used + cost > room {
            break;
        }
        used += cost;
        turns.push(message.clone());
    }
    turns.reverse();
    (turns, used)
}

/// Passages packed into a number of tokens as a prompt shows them.
#[derive(Debug, Clone)]
pub struct Packed {
    /// In label order: label `n` is `passages[n - 1]`. A passage may join several hits of one
    /// page.
    pub passages: Vec<Hit>,
    /// Their blocks ([`passage_block`]), one after another.
    pub body: String,
    /// The tokens the blocks take, by `count`.
    pub tokens: usize,
}

/// Packs `hits` (in rank order, neighbours of a page joined) into `room` tokens as `count`
/// counts them: each passage's block if it fits in what is left, else one of its hits that
/// does, else none of it.
pub fn pack(hits: &[Hit], room: usize, count: &dyn Fn(&str) -> usize) -> Packed {
    let mut packed = Packed {
        passages: Vec::new(),
        body: String::new(),
        tokens: 0,
    };
    for passage in merge(hits) {
        // A joined passage too long for what is left may still have a hit of its own that fits.
        let parts = hits.iter().filter(|h| inside(h, &passage)).cloned();
        for candidate in std::iter::once(passage.clone()).chain(parts) {
            let block = passage_block(
                packed.passages.len() + 1,
                &candidate.document_name,
                candidate.page,
                &candidate.context,
                &candidate.text,
            );
            let cost = count(&block);
            if packed.tokens + cost <= room {
                packed.tokens += cost;
                packed.body.push_str(&block);
                packed.passages.push(candidate);
                break;
            }
        }
    }
    packed
}

/// Whether `hit` and `passage` share text (the same page, ranges that overlap).
pub fn overlaps(hit: &Hit, passage: &Hit) -> bool {
    hit.document == passage.document
        && hit.page == passage.page
        && hit.char_start < passage.char_end
        && passage.char_start < hit.char_end
}

/// Whether `hit` is a strict part of `passage` (same page, a smaller range within it).
fn inside(hit: &Hit, passage: &Hit) -> bool {
    hit.document == passage.document
        && hit.page == passage.page
        && hit.char_start >= passage.char_start
        && hit.char_end <= passage.char_end
        && hit.char_end - hit.char_start < passage.char_end - passage.char_start
}

/// The last line of the user's message, right where the answer starts.
pub const ANSWER_CUE: &str = "Answer directly, citing the excerpt numbers.";

/// What comes before the passages of the user's message and what follows them: the question
/// is asked before and again after, nearest to where the answer starts.
pub fn frame(question: &str) -> (String, String) {
    let question = question.trim();
    (
        format!("Question: {question}\n\nExcerpts:\n\n"),
        format!("Question: {question}\n{ANSWER_CUE}"),
    )
}

/// One passage as the model sees it: its label, document and page, what it sits under (the
/// lines of its `context` after the document's label: a section, a table's title, the line
/// naming its columns) where the passage does not say it itself, then its lines, a table's rows
/// with their figures' periods ([`with_periods`]).
pub fn passage_block(label: usize, document: &str, page: u32, context: &str, text: &str) -> String {
    let text = compact_leaders(text.trim());
    let under: Vec<&str> = context
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|part| !part.is_empty() && !text.contains(part))
        .collect();
    let periods = under.iter().rev().find_map(|part| column_periods(part));
    let text = with_periods(&text, periods);
    let under = if under.is_empty() {
        String::new()
    } else {
        format!(" (under: {})", under.join(" · "))
    };
    format!("[{label}] {document}, page {page}{under}:\n{text}\n\n")
}

/// `text` with each run of four or more dots (the leaders of a table of contents or a statement's
/// rows, ". . . . ." or ".....") as one "…": they cost the model a token a dot and say nothing.
fn compact_leaders(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let (mut j, mut dots) = (i, 0);
        while j < chars.len() && (chars[j] == '.' || (chars[j] == ' ' && chars.get(j + 1) == Some(&'.'))) {
            dots += usize::from(chars[j] == '.');
            j += 1;
        }
        if dots >= 4 {
            out.push_str(" … ");
            i = j;
            while chars.get(i) == Some(&' ') {
                i += 1;
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The hits as passages, in the rank of their best hit: hits of one page whose ranges overlap or
/// touch are joined into one, and a hit inside another is dropped.
pub fn merge(hits: &[Hit]) -> Vec<Hit> {
    let mut passages: Vec<Hit> = Vec::new();
    for hit in hits {
        let joined = passages.iter_mut().any(|p| join(p, hit));
        if !joined {
            passages.push(hit.clone());
        }
    }
    // A join can make two earlier passages meet.
    let mut merged: Vec<Hit> = Vec::new();
    for passage in passages {
        if !merged.iter_mut().any(|p| join(p, &passage)) {
            merged.push(passage);
        }
    }
    merged
}

/// Joins `other` into `passage` if both are of the same page and their ranges overlap or touch
/// and the texts agree where they overlap; whether it did.
fn join(passage: &mut Hit, other: &Hit) -> bool {
    if passage.document != other.document || passage.page != other.page {
        return false;
    }
    let (a, b) = (passage.char_start, passage.char_end);
    let (c, d) = (other.char_start, other.char_end);
    if c > b || a > d {
        return false;
    }
    if c >= a && d <= b {
        return true;
    }
    if a >= c && b <= d {
        let score = passage.score.max(other.score);
        *passage = other.clone();
        passage.score = score;
        return true;
    }
    let (first, second) = if a <= c { (&*passage, other) } else { (other, &*passage) };
    let first_chars: Vec<char> = first.text.chars().collect();
    let second_chars: Vec<char> = second.text.chars().collect();
    let overlap = (first.char_end - second.char_start) as usize;
    if second.char_end <= first.char_end || overlap > second_chars.len() || overlap > first_chars.len() {
        return false;
    }
    if first_chars[first_chars.len() - overlap..] != second_chars[..overlap] {
        return false;
    }
    let text: String = first_chars
        .iter()
        .chain(second_chars[overlap..].iter())
        .collect::<String>();
    let (start, end) = (first.char_start, second.char_end);
    passage.text = text;
    passage.char_start = start;
    passage.char_end = end;
    passage.score = passage.score.max(other.score);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{DocumentId, FolderId};
    use crate::search::ScoreComponents;

    fn hit(doc: DocumentId, page: u32, start: u32, text: &str, score: f32) -> Hit {
        Hit {
            document: doc,
            document_name: "r.pdf".into(),
            folder: FolderId(1),
            folder_path: "F".into(),
            chunk_id: format!("{page}-{start}"),
            page,
            char_start: start,
            char_end: start + text.chars().count() as u32,
            text: text.into(),
            score,
            components: ScoreComponents::default(),
            remote: None,
            context: String::new(),
        }
    }

    #[test]
    fn overlapping_hits_of_a_page_become_one_passage() {
        let doc = DocumentId::new_random();
        let page = "Revenue 2023 2022\nProduct 10 9\nServices 5 4\nTotal 15 13";
        let first = &page[..30];
        let second = &page[18..];
        let merged = merge(&[
            hit(doc, 3, 18, second, 0.9),
            hit(doc, 4, 0, "other page", 0.8),
            hit(doc, 3, 0, first, 0.7),
        ]);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].text, page);
        assert_eq!((merged[0].char_start, merged[0].char_end), (0, page.len() as u32));
        assert_eq!(merged[0].score, 0.9);
        assert_eq!(merged[1].page, 4);
    }

    #[test]
    fn a_passage_says_what_it_sits_under_unless_it_says_it_itself() {
        let context = "NORTHWIND 2016 10K\nItem 8\nCONSOLIDATED STATEMENTS OF INCOME\n2016 2015 2014";
        assert_eq!(
            passage_block(2, "a.pdf", 62, context, "Operating income 1,611,240 1,020,530 455,870"),
            "[2] a.pdf, page 62 (under: Item 8 · CONSOLIDATED STATEMENTS OF INCOME · 2016 2015 2014):\n\
             Operating income — 2016: 1,611,240; 2015: 1,020,530; 2014: 455,870\n\n"
        );
        assert_eq!(
            passage_block(
                1,
                "a.pdf",
                62,
                context,
                "CONSOLIDATED STATEMENTS OF INCOME\n2016 2015 2014\nItem 8 x"
            ),
            "[1] a.pdf, page 62:\nCONSOLIDATED STATEMENTS OF INCOME\n2016 2015 2014\nItem 8 x\n\n"
        );
        assert_eq!(passage_block(1, "a.pdf", 3, "", "text"), "[1] a.pdf, page 3:\ntext\n\n");
    }

    #[test]
    fn leaders_become_one_ellipsis_and_numbers_keep_their_points() {
        assert_eq!(
            compact_leaders("Robbery. . . . . . . . . 102.1 25.5\nArson...... 9.8\nEnd. Next... ok"),
            "Robbery … 102.1 25.5\nArson … 9.8\nEnd. Next... ok"
        );
    }

    #[test]
    fn hits_that_do_not_touch_or_disagree_stay_apart() {
        let doc = DocumentId::new_random();
        let apart = merge(&[hit(doc, 1, 0, "abc", 0.5), hit(doc, 1, 10, "xyz", 0.4)]);
        assert_eq!(apart.len(), 2);
        let disagree = merge(&[hit(doc, 1, 0, "abcdef", 0.5), hit(doc, 1, 3, "XYZghi", 0.4)]);
        assert_eq!(disagree.len(), 2);
        let inside = merge(&[hit(doc, 1, 0, "abcdef", 0.5), hit(doc, 1, 2, "cd", 0.4)]);
        assert_eq!(inside.len(), 1);
        let around = merge(&[hit(doc, 1, 2, "cd", 0.5), hit(doc, 1, 0, "abcdef", 0.4)]);
        assert_eq!(
            (around.len(), around[0].text.as_str(), around[0].score),
            (1, "abcdef", 0.5)
        );
        let touching = merge(&[hit(doc, 1, 0, "abc", 0.5), hit(doc, 1, 3, "def", 0.4)]);
        assert_eq!(touching[0].text, "abcdef");
    }
}
