//! Keyword search: BM25 over each document's tantivy index, scored with statistics summed over
//! every document in scope, so a passage scores the same whichever PDF of the scope holds it.

use std::collections::HashMap;
use std::path::Path;

use tantivy::query::{Bm25StatisticsProvider, BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::tokenizer::TokenizerManager;
use tantivy::{collector::TopDocs, DocAddress, Index, ReloadPolicy, Searcher, TantivyDocument, Term};

use crate::index::keywords::{field, schema};
use crate::index::IndexError;

/// The fields of the keyword schema every document shares.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub chunk_id: Field,
    pub page: Field,
    pub char_start: Field,
    pub char_end: Field,
    pub text: Field,
}

impl Fields {
    pub fn new() -> Result<Fields, IndexError> {
        let schema = schema();
        let f = |name: &str| schema.get_field(name);
        Ok(Fields {
            chunk_id: f(field::CHUNK_ID)?,
            page: f(field::PAGE)?,
            char_start: f(field::CHAR_START)?,
            char_end: f(field::CHAR_END)?,
            text: f(field::TEXT)?,
        })
    }
}

/// A chunk as the keyword index stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredChunk {
    pub chunk_id: String,
    pub page: u32,
    pub char_start: u32,
    pub char_end: u32,
    pub text: String,
}

/// An open, immutable keyword index of one document, with its totals precomputed.
pub struct KeywordReader {
    searcher: Searcher,
    num_docs: u64,
    num_tokens: u64,
}

impl KeywordReader {
    /// Opens the keyword index in `dir`.
    pub fn open(dir: &Path, fields: &Fields) -> Result<KeywordReader, IndexError> {
        let index = Index::open_in_dir(dir)?;
        // Indexes never change once published: no reload watcher, no warming threads, and a
        // small document-store cache (only the final hits are read from it).
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .doc_store_cache_num_blocks(1)
            .try_into()?;
        let searcher = reader.searcher();
        let num_docs = Bm25StatisticsProvider::total_num_docs(&searcher)?;
        let num_tokens = searcher.total_num_tokens(fields.text)?;
        Ok(KeywordReader {
            searcher,
            num_docs,
            num_tokens,
        })
    }

    /// The number of chunks holding `term`.
    pub fn doc_freq(&self, term: &Term) -> Result<u64, IndexError> {
        Ok(self.searcher.doc_freq(term)?)
    }

    /// The best `limit` chunks for `query` scored with `stats`, best first.
    pub fn search(
        &self,
        query: &dyn Query,
        stats: &ScopeStatistics,
        limit: usize,
    ) -> Result<Vec<(f32, DocAddress)>, IndexError> {
        Ok(self
            .searcher
            .search_with_statistics_provider(query, &TopDocs::with_limit(limit), stats)?)
    }

    /// The stored fields of one chunk.
    pub fn stored(&self, address: DocAddress, fields: &Fields) -> Result<StoredChunk, IndexError> {
        let doc: TantivyDocument = self.searcher.doc(address)?;
        let text = |f: Field| {
            doc.get_first(f)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let number = |f: Field| doc.get_first(f).and_then(|v| v.as_u64()).unwrap_or_default() as u32;
        Ok(StoredChunk {
            chunk_id: text(fields.chunk_id),
            page: number(fields.page),
            char_start: number(fields.char_start),
            char_end: number(fields.char_end),
            text: text(fields.text),
        })
    }

    /// The stored chunk with this id, if the index holds it.
    pub fn by_chunk_id(&self, chunk_id: &str, fields: &Fields) -> Result<Option<StoredChunk>, IndexError> {
        let query = TermQuery::new(
            Term::from_field_text(fields.chunk_id, chunk_id),
            IndexRecordOption::Basic,
        );
        let found = self.searcher.search(&query, &TopDocs::with_limit(1))?;
        found
            .first()
            .map(|(_, address)| self.stored(*address, fields))
            .transpose()
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

/// A question as a disjunction of its terms (any may match; BM25 ranks), never a parse error.
pub fn query_of(terms: &[Term]) -> BooleanQuery {
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
