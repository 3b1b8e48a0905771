//! Merging: the one order of ranked passages over every document, the best of a list, and the
//! top `k` completed with their text and context, a document whose passages cannot be read giving its places
//! to the next passages.

use std::cmp::Ordering;

use tantivy::DocAddress;

use super::fan_out::Opened;
use crate::index::{Fields, IndexError, Located};

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
    /// Where the keyword index holds the passage, when it was a keyword hit.
    pub address: Option<DocAddress>,
}

/// A passage of the document at scope position `doc`, with one score so far.
pub fn ranked(doc: usize, located: Located, address: Option<DocAddress>, score: f32) -> Ranked {
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
        address,
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
    opened: &Opened,
    fields: &Fields,
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
        let damaged = read_texts(&mut top, opened, fields);
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
fn read_texts(hits: &mut [Ranked], opened: &Opened, fields: &Fields) -> Vec<(usize, IndexError)> {
    let mut unreadable: Vec<(usize, IndexError)> = Vec::new();
    for hit in hits.iter_mut() {
        let Some(index) = opened.get(&hit.doc) else { continue };
        if hit.text.is_some() || unreadable.iter().any(|(doc, _)| *doc == hit.doc) {
            continue;
        }
        match index.passage(hit.address, &hit.chunk_id, fields) {
            Ok((text, context)) => {
                hit.text = Some(text);
                hit.context = context;
            }
            Err(e) => unreadable.push((hit.doc, e)),
        }
    }
    unreadable
}
