//! Where each word of a page's stored text is on the page, for a page with a text layer: the page
//! is laid out again in a worker with the box of each word, and the words are matched to the
//! stored (normalised) text character by character, so a passage's stored offsets give the boxes
//! a viewer highlights. A page read by OCR keeps its boxes from the reading itself.

use unicode_normalization::UnicodeNormalization;

use super::WordBox;
use lectern_text::PageWord;

/// How many laid-out characters the match looks past for the next character of the text: a
/// hyphen dropped where a word was joined across a line end is one.
const LOOK_AHEAD: usize = 4;

/// The boxes of the characters of `text` (a page's normalised text) from `words` (the page's
/// words as laid out, in the same order): one per run of characters of one word. Characters
/// found in no word (there are none, short of a change of the extractor) get no box.
pub fn place(text: &str, words: &[PageWord]) -> Vec<WordBox> {
    // Each visible character of the words as normalising made it, with its word.
    let laid: Vec<(char, usize)> = words
        .iter()
        .enumerate()
        .flat_map(|(i, w)| {
            w.text
                .nfkc()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .map(move |c| (c, i))
        })
        .collect();
    let mut boxes: Vec<WordBox> = Vec::new();
    // The run being built: its characters and its word.
    let mut run: Option<(u32, u32, usize)> = None;
    let mut next = 0;
    for (position, c) in text.chars().enumerate() {
        let position = position as u32;
        let found = (next..laid.len().min(next + LOOK_AHEAD + 1)).find(|&k| laid[k].0 == c);
        let Some(k) = found.filter(|_| !c.is_whitespace()) else {
            boxes.extend(run.take().map(|r| word_box(r, words)));
            continue;
        };
        next = k + 1;
        let word = laid[k].1;
        match &mut run {
            Some((_, end, w)) if *w == word && *end == position => *end += 1,
            _ => {
                boxes.extend(run.take().map(|r| word_box(r, words)));
                run = Some((position, position + 1, word));
            }
        }
    }
    boxes.extend(run.map(|r| word_box(r, words)));
    boxes
}

fn word_box((start, end, word): (u32, u32, usize), words: &[PageWord]) -> WordBox {
    WordBox {
        start,
        end,
        bounds: words[word].bounds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, left: f32) -> PageWord {
        PageWord {
            text: text.into(),
            bounds: [left, 0.1, left + 0.1, 0.2],
        }
    }

    #[test]
    fn each_word_of_the_text_gets_the_box_it_was_laid_out_in() {
        let words = [
            word("The", 0.0),
            word("\u{FB01}rst", 0.2),
            word("exam-", 0.4),
            word("ple.", 0.6),
        ];
        // Normalised: the ligature expanded, the hyphenated word joined, a line break moved.
        let boxes = place("The first\nexample.", &words);
        let found: Vec<(u32, u32, f32)> = boxes.iter().map(|b| (b.start, b.end, b.bounds[0])).collect();
        assert_eq!(found, [(0, 3, 0.0), (4, 9, 0.2), (10, 14, 0.4), (14, 18, 0.6)]);
    }

    #[test]
    fn text_that_matches_no_word_gets_no_box() {
        let boxes = place("alpha zzz beta", &[word("alpha", 0.0), word("beta", 0.5)]);
        let found: Vec<(u32, u32)> = boxes.iter().map(|b| (b.start, b.end)).collect();
        assert_eq!(found, [(0, 5), (10, 14)]);
    }
}
