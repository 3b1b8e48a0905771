//! Reading a document's tantivy keyword index: an open, immutable reader with its totals, the
//! fast fields that say where a chunk is, and the stored text of a chunk. How a question is
//! scored over many such readers is `keyword_search.rs`'s.

use std::path::Path;

use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::columnar::{Column, StrColumn};
use tantivy::query::{Bm25StatisticsProvider, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, Index, ReloadPolicy, Searcher, TantivyDocument, Term};

use super::directory::SearchDirectory;
use super::keywords::{field, schema};
use super::IndexError;
use crate::chunk::prints_page_number;

/// The fields of the keyword schema a search reads by handle (positions come from fast
/// fields, by name).
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    pub chunk_id: Field,
    pub page: Field,
    pub text: Field,
}

impl Fields {
    pub fn new() -> Result<Fields, IndexError> {
        let schema = schema();
        let f = |name: &str| schema.get_field(name);
        Ok(Fields {
            chunk_id: f(field::CHUNK_ID)?,
            page: f(field::PAGE)?,
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
        KeywordReader::of(reader.searcher(), fields)
    }

    /// A reader over `searcher`'s segments, of an index with the keyword schema's fields.
    pub fn of(searcher: Searcher, fields: &Fields) -> Result<KeywordReader, IndexError> {
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

    /// The searcher over the index's segments, for running a query weighted elsewhere.
    pub fn searcher(&self) -> &Searcher {
        &self.searcher
    }

    /// How many chunks the index holds.
    pub fn num_docs(&self) -> u64 {
        self.num_docs
    }

    /// How many tokens the text field holds over all chunks.
    pub fn num_tokens(&self) -> u64 {
        self.num_tokens
    }

    /// The number of chunks holding `term`.
    pub fn doc_freq(&self, term: &Term) -> Result<u64, IndexError> {
        Ok(self.searcher.doc_freq(term)?)
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

    /// The chunks of page `page` (1-based) with their addresses, in their order on the page.
    pub fn page(&self, page: u32, fields: &Fields) -> Result<Vec<(DocAddress, Located)>, IndexError> {
        let query = TermQuery::new(
            Term::from_field_u64(fields.page, u64::from(page)),
            IndexRecordOption::Basic,
        );
        let mut chunks = self
            .searcher
            .search(&query, &DocSetCollector)?
            .into_iter()
            .map(|address| Ok((address, self.locate(address)?)))
            .collect::<Result<Vec<_>, IndexError>>()?;
        chunks.sort_by_key(|(_, located)| located.char_start);
        Ok(chunks)
    }

    /// The pages whose header or footer prints `number` ([`prints_page_number`]), in order.
    pub fn numbered_pages(&self, number: u32, fields: &Fields) -> Result<Vec<u32>, IndexError> {
        let query = TermQuery::new(
            Term::from_field_text(fields.text, &number.to_string()),
            IndexRecordOption::Basic,
        );
        let mut holding = self
            .searcher
            .search(&query, &DocSetCollector)?
            .into_iter()
            .collect::<Vec<_>>();
        holding.sort();
        let mut pages: Vec<u32> = Vec::new();
        for address in holding {
            let located = self.locate(address)?;
            if pages.contains(&located.page) {
                continue;
            }
            let Some((text, _)) = self.passage(address, fields)? else {
                continue;
            };
            let first = located.char_start == 0;
            let last = || -> Result<bool, IndexError> {
                let on_page = self.page(located.page, fields)?;
                Ok(on_page.last().is_some_and(|(_, l)| l.char_start == located.char_start))
            };
            if prints_page_number(&text, number, first, false)
                || (prints_page_number(&text, number, false, true) && last()?)
            {
                pages.push(located.page);
            }
        }
        pages.sort_unstable();
        Ok(pages)
    }

    /// The stored text of one chunk and its context (the first value of the text field, and the
    /// second if there is one: [`crate::chunk::Chunk::context`]), if the store holds them.
    pub fn passage(&self, address: DocAddress, fields: &Fields) -> Result<Option<(String, String)>, IndexError> {
        let doc: TantivyDocument = self.searcher.doc(address)?;
        let mut values = doc.get_all(fields.text).filter_map(|v| v.as_str());
        Ok(values
            .next()
            .map(|text| (text.to_string(), values.next().unwrap_or_default().to_string())))
    }

    /// The stored text and context of the chunk with this id, if the index holds it.
    pub fn passage_of_chunk(&self, chunk_id: &str, fields: &Fields) -> Result<Option<(String, String)>, IndexError> {
        let query = TermQuery::new(
            Term::from_field_text(fields.chunk_id, chunk_id),
            IndexRecordOption::Basic,
        );
        let found = self.searcher.search(&query, &TopDocs::with_limit(1))?;
        found
            .first()
            .map(|(_, address)| self.passage(*address, fields))
            .transpose()
            .map(Option::flatten)
    }
}
