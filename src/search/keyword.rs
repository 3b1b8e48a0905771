//! Keyword search: BM25 over each document's tantivy index, scored with statistics summed over
//! every document in scope, so a passage scores the same whichever PDF of the scope holds it.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::Path;

use tantivy::columnar::{Column, StrColumn};
use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, EnableScoring, Occur, Query, TermQuery, Weight};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::tokenizer::TokenizerManager;
use tantivy::{collector::TopDocs, DocAddress, Index, ReloadPolicy, Searcher, TantivyDocument, Term};

use super::directory::SearchDirectory;
use crate::index::keywords::{field, schema};
use crate::index::IndexError;

/// The fields of the keyword schema a search reads by handle (positions come from fast
/// fields, by name).
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub chunk_id: Field,
    pub text: Field,
}

impl Fields {
    pub fn new() -> Result<Fields, IndexError> {
        let schema = schema();
        let f = |name: &str| schema.get_field(name);
        Ok(Fields {
            chunk_id: f(field::CHUNK_ID)?,
            text: f(field::TEXT)?,
        })
    }
}

/// Where a chunk is: its id, page and character range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub chunk_id: String,
    pub page: u32,
    pub char_start: u32,
    pub char_end: u32,
}

/// An open, immutable keyword index of one document, with its totals precomputed.
pub struct KeywordReader {
    searcher: Searcher,
    num_docs: u64,
    num_tokens: u64,
    /// Per segment, the fast-field columns that locate a chunk.
    positions: Vec<PositionColumns>,
}

/// The columns of one segment that say where its chunks are.
struct PositionColumns {
    ids: Option<StrColumn>,
    page: Column<u64>,
    start: Column<u64>,
    end: Column<u64>,
}

impl KeywordReader {
    /// Opens the keyword index in `dir`.
    pub fn open(dir: &Path, fields: &Fields) -> Result<KeywordReader, IndexError> {
        let index = Index::open(SearchDirectory::open(dir)?)?;
        // Indexes never change once published: no reload watcher, no warming threads, and no
        // document-store cache (only a question's few hits are read from the store).
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .doc_store_cache_num_blocks(0)
            .try_into()?;
        let searcher = reader.searcher();
        let num_docs = Bm25StatisticsProvider::total_num_docs(&searcher)?;
        let num_tokens = searcher.total_num_tokens(fields.text)?;
        let positions = searcher
            .segment_readers()
            .iter()
            .map(|segment| {
                let fast = segment.fast_fields();
                Ok(PositionColumns {
                    ids: fast.str(field::CHUNK_ID)?,
                    page: fast.u64(field::PAGE)?,
                    start: fast.u64(field::CHAR_START)?,
                    end: fast.u64(field::CHAR_END)?,
                })
            })
            .collect::<Result<_, IndexError>>()?;
        Ok(KeywordReader {
            searcher,
            num_docs,
            num_tokens,
            positions,
        })
    }

    /// The number of chunks holding `term`.
    pub fn doc_freq(&self, term: &Term) -> Result<u64, IndexError> {
        Ok(self.searcher.doc_freq(term)?)
    }

    /// Offers this document's chunks that match `query` to `hits`, skipping, by block-max WAND,
    /// the blocks of postings that cannot beat the hits kept so far (from any document).
    pub fn collect(&self, query: &ScopeQuery, pos: usize, hits: &mut KeywordHits) -> Result<(), IndexError> {
        for (ord, segment) in self.searcher.segment_readers().iter().enumerate() {
            query
                .weight
                .for_each_pruning(hits.threshold(), segment, &mut |doc, score| {
                    hits.offer(score, pos, DocAddress::new(ord as u32, doc));
                    hits.threshold()
                })?;
        }
        Ok(())
    }

    /// Prepares `terms` for searching every document of a scope with its statistics: the BM25
    /// weights depend on the scope only, so they are computed once per question, not per document.
    pub fn prepare(&self, terms: &[Term], stats: &ScopeStatistics) -> Result<ScopeQuery, IndexError> {
        let scoring = EnableScoring::enabled_from_statistics_provider(stats, &self.searcher);
        Ok(ScopeQuery {
            weight: query_of(terms).weight(scoring)?,
        })
    }

    /// Where a chunk is, from the fast fields (the document store is not read).
    pub fn locate(&self, address: DocAddress) -> Result<Located, IndexError> {
        let doc = address.doc_id;
        let Some(columns) = self.positions.get(address.segment_ord as usize) else {
            return Err(IndexError::Tantivy(tantivy::TantivyError::InvalidArgument(format!(
                "no segment {}",
                address.segment_ord
            ))));
        };
        let mut chunk_id = String::new();
        if let Some(ids) = &columns.ids {
            if let Some(ord) = ids.term_ords(doc).next() {
                ids.ord_to_str(ord, &mut chunk_id)
                    .map_err(|e| IndexError::Tantivy(e.into()))?;
            }
        }
        let number = |column: &Column<u64>| column.first(doc).unwrap_or(0) as u32;
        Ok(Located {
            chunk_id,
            page: number(&columns.page),
            char_start: number(&columns.start),
            char_end: number(&columns.end),
        })
    }

    /// The stored text of one chunk (the first value of the text field: a second one is the
    /// chunk's context), if the store holds it.
    pub fn text(&self, address: DocAddress, fields: &Fields) -> Result<Option<String>, IndexError> {
        let doc: TantivyDocument = self.searcher.doc(address)?;
        Ok(doc.get_first(fields.text).and_then(|v| v.as_str()).map(str::to_string))
    }

    /// The stored text of the chunk with this id, if the index holds it.
    pub fn text_of_chunk(&self, chunk_id: &str, fields: &Fields) -> Result<Option<String>, IndexError> {
        let query = TermQuery::new(
            Term::from_field_text(fields.chunk_id, chunk_id),
            IndexRecordOption::Basic,
        );
        let found = self.searcher.search(&query, &TopDocs::with_limit(1))?;
        found
            .first()
            .map(|(_, address)| self.text(*address, fields))
            .transpose()
            .map(Option::flatten)
    }
}

/// The distinct terms of a question, as the text field's analyzer produces them.
pub fn query_terms(question: &str, fields: &Fields) -> Vec<Term> {
    let Some(mut analyzer) = TokenizerManager::default().get("default") else {
        return Vec::new();
    };
    let mut terms: Vec<Term> = Vec::new();
    let mut stream = analyzer.token_stream(question);
    while let Some(token) = stream.next() {
        let term = Term::from_field_text(fields.text, &token.text);
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    terms
}

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

    pub fn offer(&mut self, score: f32, pos: usize, address: DocAddress) {
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

/// BM25 statistics summed over the documents in scope.
#[derive(Debug, Clone, Default)]
pub struct ScopeStatistics {
    num_docs: u64,
    num_tokens: u64,
    doc_freqs: HashMap<Term, u64>,
}

impl ScopeStatistics {
    /// Adds one document's totals and term counts.
    pub fn add(&mut self, reader: &KeywordReader, terms: &[Term]) -> Result<(), IndexError> {
        self.num_docs += reader.num_docs;
        self.num_tokens += reader.num_tokens;
        for term in terms {
            *self.doc_freqs.entry(term.clone()).or_default() += reader.doc_freq(term)?;
        }
        Ok(())
    }

    /// Adds statistics gathered elsewhere (per thread, then merged).
    pub fn merge(&mut self, other: ScopeStatistics) {
        self.num_docs += other.num_docs;
        self.num_tokens += other.num_tokens;
        for (term, n) in other.doc_freqs {
            *self.doc_freqs.entry(term).or_default() += n;
        }
    }
}

impl ScopeStatistics {
    /// The highest BM25 score any passage could reach for `terms`: every term's IDF times
    /// `k1 + 1` (the limit of a term's weight as its frequency grows).
    pub fn score_bound(&self, terms: &[Term]) -> f32 {
        const K1_PLUS_ONE: f32 = 2.2;
        let n = self.num_docs as f32;
        terms
            .iter()
            .map(|t| {
                let df = self.doc_freqs.get(t).copied().unwrap_or(0) as f32;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln() * K1_PLUS_ONE
            })
            .sum()
    }
}

impl Bm25StatisticsProvider for ScopeStatistics {
    fn total_num_tokens(&self, _field: Field) -> tantivy::Result<u64> {
        Ok(self.num_tokens)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.num_docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        Ok(self.doc_freqs.get(term).copied().unwrap_or(0))
    }
}
