//! BM25 statistics summed over every document of a scope (chunk count, token count, and the
//! chunks holding each of a question's terms), and the most a question's terms could score.

use std::collections::HashMap;

use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::Field;
use tantivy::Term;

use crate::index::{IndexError, KeywordReader};

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
        self.num_docs += reader.num_docs();
        self.num_tokens += reader.num_tokens();
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
