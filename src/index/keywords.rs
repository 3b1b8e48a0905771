//! The tantivy keyword index of a document's chunks. Every document uses the identical schema, so
//! that statistics can be summed across a folder at query time.

use std::path::Path;

use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, FAST, INDEXED, STORED, STRING,
};
use tantivy::tokenizer::TokenizerManager;
use tantivy::{doc, DocAddress, Index, IndexWriter, Searcher, TantivyDocument};

use super::IndexError;
use crate::catalog::ChunkId;
use crate::chunk::Chunk;

/// Field names of the keyword schema.
pub mod field {
    pub const CHUNK_ID: &str = "chunk_id";
    pub const PAGE: &str = "page";
    pub const CHAR_START: &str = "char_start";
    pub const CHAR_END: &str = "char_end";
    pub const TEXT: &str = "text";
}

/// The analyzer of the text field, and of questions searched in it: tantivy's own English one
/// (words lower-cased and stemmed, so "expenditures" finds "expenditure").
pub const ANALYZER: &str = "en_stem";

/// Every word of `text` as [`ANALYZER`] indexes it, in order.
pub fn analysed(text: &str) -> Vec<String> {
    let Some(mut analyzer) = TokenizerManager::default().get(ANALYZER) else {
        return Vec::new();
    };
    let mut words = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while let Some(token) = stream.next() {
        words.push(token.text.clone());
    }
    words
}

/// The length BM25 reads for a passage of `words` words: tantivy's, kept on one byte (exact up
/// to 40 words, then on a log scale), so that a passage scores alike in every store.
pub fn scored_length(words: u32) -> u32 {
    tantivy::fieldnorm::FieldNormReader::constant(1, words).fieldnorm(0)
}

/// The distinct words of `text` as [`ANALYZER`] indexes them, in order of first appearance: a
/// question's keyword terms.
pub fn terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in analysed(text) {
        if !terms.contains(&word) {
            terms.push(word);
        }
    }
    terms
}

/// The schema shared by every document's keyword index.
pub fn schema() -> Schema {
    let mut builder = Schema::builder();
    // Positions are fast fields too: a search locates its candidates without touching the
    // document store, and reads the store only for the text of the hits it returns.
    builder.add_text_field(field::CHUNK_ID, STRING | STORED | FAST);
    builder.add_u64_field(field::PAGE, INDEXED | STORED | FAST);
    builder.add_u64_field(field::CHAR_START, STORED | FAST);
    builder.add_u64_field(field::CHAR_END, STORED | FAST);
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    builder.add_text_field(field::TEXT, text);
    builder.build()
}

/// The fields a passage is written with, in a document's index and in the library's.
#[derive(Clone, Copy)]
pub(crate) struct ChunkFields {
    id: Field,
    page: Field,
    start: Field,
    end: Field,
    text: Field,
}

impl ChunkFields {
    pub(crate) fn of(schema: &Schema) -> Result<ChunkFields, IndexError> {
        let f = |name: &str| schema.get_field(name);
        Ok(ChunkFields {
            id: f(field::CHUNK_ID)?,
            page: f(field::PAGE)?,
            start: f(field::CHAR_START)?,
            end: f(field::CHAR_END)?,
            text: f(field::TEXT)?,
        })
    }

    /// The index's document of `c`. The context is a second value of the text field: searched
    /// like the text, while a hit's stored text (the first value) stays the page's.
    pub(crate) fn document(&self, c: &Chunk) -> TantivyDocument {
        let mut document = doc!(
            self.id => c.id.0.as_str(),
            self.page => u64::from(c.page),
            self.start => u64::from(c.char_start),
            self.end => u64::from(c.char_end),
            self.text => c.text.as_str(),
        );
        if !c.context.is_empty() {
            document.add_text(self.text, &c.context);
        }
        document
    }
}

/// Writes chunks into a new keyword index.
pub struct KeywordWriter {
    writer: IndexWriter,
    fields: ChunkFields,
}

impl KeywordWriter {
    /// Creates an empty index in `dir`.
    pub fn create(dir: &Path) -> Result<KeywordWriter, IndexError> {
        std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
        let schema = schema();
        let index = Index::create_in_dir(dir, schema.clone())?;
        let writer = index.writer_with_num_threads(1, 20_000_000)?;
        Ok(KeywordWriter {
            writer,
            fields: ChunkFields::of(&schema)?,
        })
    }

    /// Adds chunks (visible after [`KeywordWriter::finish`]).
    pub fn add(&mut self, chunks: &[Chunk]) -> Result<(), IndexError> {
        for c in chunks {
            self.writer.add_document(self.fields.document(c))?;
        }
        Ok(())
    }

    /// Commits and waits for merges, leaving a finished index.
    pub fn finish(mut self) -> Result<(), IndexError> {
        self.writer.commit()?;
        self.writer.wait_merging_threads()?;
        Ok(())
    }
}

/// The number of chunks in the keyword index in `dir`.
pub fn count(dir: &Path) -> Result<u64, IndexError> {
    let index = Index::open_in_dir(dir)?;
    Ok(index.reader()?.searcher().num_docs())
}

/// The chunks of a published keyword index, read back in a fixed order (the index never changes
/// once published, so the order is the same in every process that reads it).
pub struct StoredChunks {
    searcher: Searcher,
    addresses: Vec<DocAddress>,
    dir: std::path::PathBuf,
}

impl StoredChunks {
    pub fn open(dir: &Path) -> Result<StoredChunks, IndexError> {
        let searcher = Index::open_in_dir(dir)?.reader()?.searcher();
        let addresses = searcher
            .segment_readers()
            .iter()
            .enumerate()
            .flat_map(|(ord, segment)| {
                (0..segment.max_doc())
                    .filter(|&doc| !segment.is_deleted(doc))
                    .map(move |doc| DocAddress::new(ord as u32, doc))
            })
            .collect();
        Ok(StoredChunks {
            searcher,
            addresses,
            dir: dir.to_path_buf(),
        })
    }

    pub fn len(&self) -> usize {
        self.addresses.len()
    }

    pub fn is_empty(&self) -> bool {
        self.addresses.is_empty()
    }

    /// Every chunk, in the order they were indexed.
    pub fn all(&self) -> Result<Vec<Chunk>, IndexError> {
        self.read(0..self.len())
    }

    /// The chunks at `range` of the order, as they were indexed (text and context).
    pub fn read(&self, range: std::ops::Range<usize>) -> Result<Vec<Chunk>, IndexError> {
        let f = ChunkFields::of(self.searcher.schema())?;
        let damaged = |what: &str| IndexError::Damaged {
            path: self.dir.clone(),
            reason: format!("a stored passage has no {what}"),
        };
        let number = |doc: &TantivyDocument, field, what: &str| {
            doc.get_first(field)
                .and_then(|v| v.as_u64())
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| damaged(what))
        };
        self.addresses[range]
            .iter()
            .map(|&address| {
                let doc: TantivyDocument = self.searcher.doc(address)?;
                let mut texts = doc.get_all(f.text).filter_map(|v| v.as_str());
                Ok(Chunk {
                    id: ChunkId(
                        doc.get_first(f.id)
                            .and_then(|v| v.as_str())
                            .ok_or_else(|| damaged("id"))?
                            .to_string(),
                    ),
                    page: number(&doc, f.page, "page")?,
                    char_start: number(&doc, f.start, "start")?,
                    char_end: number(&doc, f.end, "end")?,
                    text: texts.next().ok_or_else(|| damaged("text"))?.to_string(),
                    context: texts.next().unwrap_or_default().to_string(),
                })
            })
            .collect()
    }
}

/// A page's stored text put back together from its chunks, each at its character offsets, so
/// that a citation's range reads the same in it; a gap no chunk covers (white space the chunker
/// dropped) reads as spaces. Empty for a page without text.
pub fn page_text(chunks: &[Chunk], page: u32) -> String {
    page_with_gaps(chunks, page, ' ').trim_end().to_string()
}

/// A page's text put back together from its chunks at their character offsets, each gap no
/// chunk covers filled with `gap`.
pub fn page_with_gaps(chunks: &[Chunk], page: u32, gap: char) -> String {
    let on_page: Vec<&Chunk> = chunks.iter().filter(|c| c.page == page).collect();
    let len = on_page.iter().map(|c| c.char_end as usize).max().unwrap_or(0);
    let mut text = vec![gap; len];
    for chunk in on_page {
        let slots = text.get_mut(chunk.char_start as usize..).unwrap_or_default();
        for (slot, ch) in slots.iter_mut().zip(chunk.text.chars()) {
            *slot = ch;
        }
    }
    text.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(page: u32, start: u32, text: &str) -> Chunk {
        Chunk {
            id: ChunkId(format!("c{start}")),
            page,
            char_start: start,
            char_end: start + text.chars().count() as u32,
            text: text.to_string(),
            context: String::new(),
        }
    }

    #[test]
    fn a_page_is_put_back_at_its_offsets_overlaps_and_gaps_included() {
        let chunks = [
            chunk(1, 0, "Émile wrote"),
            chunk(1, 6, "wrote the report."),
            chunk(1, 25, "Page two?"),
            chunk(2, 0, "Other page"),
        ];
        let text = page_text(&chunks, 1);
        assert_eq!(text, "Émile wrote the report.  Page two?");
        let c = &chunks[2];
        let cited: String = text.chars().skip(c.char_start as usize).take(9).collect();
        assert_eq!(cited, c.text);
        assert_eq!(page_text(&chunks, 3), "");
    }
}
