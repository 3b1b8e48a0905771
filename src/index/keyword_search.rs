//! Keyword search over many documents' tantivy indexes as one: a question's BM25 weights,
//! computed once from the statistics of the whole scope (`statistics.rs`), run on each
//! document, pruning by block-max WAND against the best hits kept so far from any document.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use tantivy::query::{BooleanQuery, EnableScoring, Occur, Query, TermQuery, Weight};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, Term};

use super::statistics::ScopeStatistics;
use super::{IndexError, KeywordReader};

/// BM25 scores are kept to this many significant bits (of f32's 24). One passage's score is a
/// sum over the question's terms in an order that depends on the index searched, so the same
/// score can come out one unit in the last place apart in a document's own index and in the
/// library's. Kept to fewer bits (a relative step of 1 in 65,536), such ties are exact again (but
/// for the rare pair on either side of a step) and fall to the tie-break, so the passages kept at
/// the end of a list of many ties are the same whichever index is searched. Cutting bits lowers a
/// score, never raises it, so the pruning threshold (just below the worst score kept) stays exact.
const SCORE_BITS: u32 = 16;
const SCORE_MASK: u32 = !((1 << (24 - SCORE_BITS)) - 1);

/// The best keyword hits over many documents: score descending, then document position, then
/// address within the document.
pub struct KeywordHits {
    limit: usize,
    heap: BinaryHeap<Reverse<KeywordHit>>,
}

/// One keyword hit: its BM25 score, the document's position in the scope, the chunk's address.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeywordHit {
    pub score: f32,
    pub pos: usize,
    pub address: DocAddress,
}

impl Eq for KeywordHit {}
impl PartialOrd for KeywordHit {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for KeywordHit {
    /// Greater is better.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.score
            .total_cmp(&other.score)
            .then(other.pos.cmp(&self.pos))
            .then(other.address.cmp(&self.address))
    }
}

impl KeywordHits {
    pub fn new(limit: usize) -> KeywordHits {
        KeywordHits {
            limit,
            heap: BinaryHeap::with_capacity(limit + 1),
        }
    }

    /// The score a chunk must reach to be offered: just below the worst kept hit once the list
    /// is full, so that a tie still gets its turn at the tie-break.
    pub fn threshold(&self) -> f32 {
        match self.heap.peek() {
            Some(Reverse(worst)) if self.heap.len() >= self.limit => worst.score.next_down(),
            _ => f32::MIN,
        }
    }

    /// Offers a hit; its score is kept to [`SCORE_BITS`] bits (see there).
    pub fn offer(&mut self, score: f32, pos: usize, address: DocAddress) {
        let score = f32::from_bits(score.to_bits() & SCORE_MASK);
        let hit = KeywordHit { score, pos, address };
        if self.heap.len() < self.limit {
            self.heap.push(Reverse(hit));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if hit > worst.0 {
                *worst = Reverse(hit);
            }
        }
    }

    /// Adds the hits another collector kept (per thread, then merged).
    pub fn merge(&mut self, other: KeywordHits) {
        for Reverse(hit) in other.heap {
            self.offer(hit.score, hit.pos, hit.address);
        }
    }

    /// The kept hits, best first.
    pub fn into_sorted(self) -> Vec<KeywordHit> {
        let mut hits: Vec<KeywordHit> = self.heap.into_iter().map(|Reverse(h)| h).collect();
        hits.sort_by(|a, b| b.cmp(a));
        hits
    }
}

/// A question's keyword query, weighted with a scope's statistics, ready to run on any document.
pub struct ScopeQuery {
    weight: Box<dyn Weight>,
}

impl ScopeQuery {
    /// Prepares `terms` for searching every document of a scope with its statistics: the BM25
    /// weights depend on the scope only, so they are computed once per question, not per document.
    pub fn prepare(reader: &KeywordReader, terms: &[Term], stats: &ScopeStatistics) -> Result<ScopeQuery, IndexError> {
        let scoring = EnableScoring::enabled_from_statistics_provider(stats, reader.searcher());
        Ok(ScopeQuery {
            weight: query_of(terms).weight(scoring)?,
        })
    }

    /// Offers the chunks of `reader` that match to `hits`, skipping, by block-max WAND, the blocks
    /// of postings that cannot beat the hits kept so far (from any document).
    pub fn collect(&self, reader: &KeywordReader, pos: usize, hits: &mut KeywordHits) -> Result<(), IndexError> {
        for (ord, segment) in reader.searcher().segment_readers().iter().enumerate() {
            self.weight
                .for_each_pruning(hits.threshold(), segment, &mut |doc, score| {
                    hits.offer(score, pos, DocAddress::new(ord as u32, doc));
                    hits.threshold()
                })?;
        }
        Ok(())
    }
}

impl ScopeQuery {
    /// Offers the chunks of segment `ord` of the library's index `reader` that match and whose
    /// document key ([`super::wide::DOC`]) is one of `members`, under the scope position it
    /// maps to. Pruning stays exact: a chunk left out never raises the bar.
    pub fn collect_members(
        &self,
        reader: &KeywordReader,
        ord: usize,
        members: &HashMap<u64, usize>,
        hits: &mut KeywordHits,
    ) -> Result<(), IndexError> {
        let Some(segment) = reader.searcher().segment_readers().get(ord) else {
            return Ok(());
        };
        let keys = segment.fast_fields().u64(super::wide::DOC)?;
        self.weight
            .for_each_pruning(hits.threshold(), segment, &mut |doc, score| {
                if let Some(pos) = keys.first(doc).and_then(|key| members.get(&key)) {
                    hits.offer(score, *pos, DocAddress::new(ord as u32, doc));
                }
                hits.threshold()
            })?;
        Ok(())
    }
}

/// A question as a disjunction of its terms (any may match; BM25 ranks), never a parse error.
fn query_of(terms: &[Term]) -> BooleanQuery {
    BooleanQuery::new(
        terms
            .iter()
            .map(|t| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(t.clone(), IndexRecordOption::WithFreqs));
                (Occur::Should, q)
            })
            .collect(),
    )
}
