//! Merging: the one order of ranked passages over every document, the best of a list, the
//! cosine of passages only the keyword list found, and the top `k` completed with their text
//! and context, a document whose passages cannot be read giving its places to the next passages.

use std::cmp::Ordering;
use std::collections::HashMap;

use crate::index::{Found, IndexError, Located, PassageKey, ScopeSearch};

/// One ranked passage, before its text is read.
#[derive(Debug, Clone)]
pub struct Ranked {
    /// Position of the document in the scope list.
    pub doc: usize,
    pub chunk_id: String,
    pub page: u32,
    pub char_start: u32,
    pub char_end: u32,
    pub score: f32,
    pub vector: Option<f32>,
    pub keyword: Option<f32>,
    /// `keyword` as a share of the most the question's terms could score in the scope.
    pub keyword_share: Option<f32>,
    pub vector_rank: Option<u32>,
    pub keyword_rank: Option<u32>,
    /// The text, once read.
    pub text: Option<String>,
    /// What the passage sits under, read with its text ([`crate::chunk::Chunk::context`]).
    pub context: String,
    /// Where the store holds the passage, when its list said.
    pub key: Option<PassageKey>,
    /// Whether the question named its page.
    pub named_page: bool,
}

/// A passage a store's list found, with its score so far.
pub fn ranked(found: Found) -> Ranked {
    let Found {
        doc,
        located,
        key,
        score,
    } = found;
    Ranked {
        doc,
        chunk_id: located.chunk_id,
        page: located.page,
        char_start: located.char_start,
        char_end: located.char_end,
        score,
        vector: None,
        keyword: None,
        keyword_share: None,
        vector_rank: None,
        keyword_rank: None,
        text: None,
        context: String::new(),
        key,
        named_page: false,
    }
}

/// The one order of results: score descending, then chunk id ascending, then scope position
/// (two copies of one PDF share chunk ids).
pub fn rank_order(a: &Ranked, b: &Ranked) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| a.chunk_id.cmp(&b.chunk_id))
        .then(a.doc.cmp(&b.doc))
}

/// The exact cosine of every passage that lacks one, where the question's model made its
/// document's vectors.
pub fn fill_vector_scores(hits: &mut [Ranked], scope: &dyn ScopeSearch) {
    let mut wanted: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, hit) in hits.iter().enumerate() {
        if hit.vector.is_none() {
            wanted.entry(hit.doc).or_default().push(i);
        }
    }
    let wanted: Vec<(usize, Vec<usize>)> = wanted.into_iter().collect();
    let located: Vec<(usize, Vec<Located>)> = wanted
        .iter()
        .map(|(doc, want)| {
            let located = want
                .iter()
                .map(|&i| Located {
                    chunk_id: hits[i].chunk_id.clone(),
                    page: hits[i].page,
                    char_start: hits[i].char_start,
                    char_end: hits[i].char_end,
                })
                .collect();
            (*doc, located)
        })
        .collect();
    for ((_, want), scores) in wanted.into_iter().zip(scope.vector_scores_of(&located)) {
        for (i, score) in want.into_iter().zip(scores) {
            if score.is_some() {
                hits[i].vector = score;
            }
        }
    }
}

/// The best `depth` of `list` in rank order, each told its 1-based rank.
pub fn top_of(mut list: Vec<Ranked>, depth: usize, mut set_rank: impl FnMut(&mut Ranked, u32)) -> Vec<Ranked> {
    list.sort_by(rank_order);
    list.truncate(depth);
    for (i, r) in list.iter_mut().enumerate() {
        set_rank(r, i as u32 + 1);
    }
    list
}

/// The first `k` of `ranked` with their text read. A document whose passages cannot be read is
/// dropped whole, and the next passages take its places; it comes back with why.
pub fn top_k(
    ranked: impl Iterator<Item = Ranked>,
    k: usize,
    scope: &dyn ScopeSearch,
) -> (Vec<Ranked>, Vec<(usize, IndexError)>) {
    let mut rest = ranked;
    let mut top: Vec<Ranked> = Vec::with_capacity(k);
    let mut unreadable: Vec<(usize, IndexError)> = Vec::new();
    loop {
        top.extend(
            rest.by_ref()
                .filter(|r| !unreadable.iter().any(|(doc, _)| *doc == r.doc))
                .take(k - top.len()),
        );
        let damaged = read_texts(&mut top, scope);
        if damaged.is_empty() {
            break;
        }
        top.retain(|r| !damaged.iter().any(|(doc, _)| *doc == r.doc));
        unreadable.extend(damaged);
    }
    (top, unreadable)
}

/// Reads the text of the passages that lack it; returns the documents whose passages could not
/// be read, with why.
fn read_texts(hits: &mut [Ranked], scope: &dyn ScopeSearch) -> Vec<(usize, IndexError)> {
    let lacking: Vec<usize> = (0..hits.len()).filter(|&i| hits[i].text.is_none()).collect();
    let wanted: Vec<(usize, Option<PassageKey>, &str)> = lacking
        .iter()
        .map(|&i| (hits[i].doc, hits[i].key, hits[i].chunk_id.as_str()))
        .collect();
    let read = scope.passages(&wanted);
    let mut unreadable: Vec<(usize, IndexError)> = Vec::new();
    for (i, passage) in lacking.into_iter().zip(read) {
        let hit = &mut hits[i];
        if unreadable.iter().any(|(doc, _)| *doc == hit.doc) {
            continue;
        }
        match passage {
            Ok((text, context)) => {
                hit.text = Some(text);
                hit.context = context;
            }
            Err(e) => unreadable.push((hit.doc, e)),
        }
    }
    unreadable
}
