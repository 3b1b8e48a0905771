//! The tantivy keyword index of a document's chunks. Every document uses the identical schema, so
//! that statistics can be summed across a folder at query time.

use std::path::Path;

use tantivy::schema::{Schema, FAST, INDEXED, STORED, STRING, TEXT};
use tantivy::{doc, Index, IndexWriter};

use super::IndexError;
use crate::chunk::Chunk;

/// Field names of the keyword schema.
pub mod field {
    pub const CHUNK_ID: &str = "chunk_id";
    pub const PAGE: &str = "page";
    pub const CHAR_START: &str = "char_start";
    pub const CHAR_END: &str = "char_end";
    pub const TEXT: &str = "text";
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
    builder.add_text_field(field::TEXT, TEXT | STORED);
    builder.build()
}

/// Writes chunks into a new keyword index.
pub struct KeywordWriter {
    writer: IndexWriter,
    schema: Schema,
}

impl KeywordWriter {
    /// Creates an empty index in `dir`.
    pub fn create(dir: &Path) -> Result<KeywordWriter, IndexError> {
        std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
        let schema = schema();
        let index = Index::create_in_dir(dir, schema.clone())?;
        let writer = index.writer_with_num_threads(1, 20_000_000)?;
        Ok(KeywordWriter { writer, schema })
    }

    /// Adds chunks (visible after [`KeywordWriter::finish`]).
    pub fn add(&mut self, chunks: &[Chunk]) -> Result<(), IndexError> {
        let f = |name: &str| self.schema.get_field(name);
        let (id, page, start, end, text) = (
            f(field::CHUNK_ID)?,
            f(field::PAGE)?,
            f(field::CHAR_START)?,
            f(field::CHAR_END)?,
            f(field::TEXT)?,
        );
        for c in chunks {
            // The context is a second value of the text field: searched like the text, while a
            // hit's stored text (the first value) stays the page's.
            let mut document = doc!(
                id => c.id.0.as_str(),
                page => u64::from(c.page),
                start => u64::from(c.char_start),
                end => u64::from(c.char_end),
                text => c.text.as_str(),
            );
            if !c.context.is_empty() {
                document.add_text(text, &c.context);
            }
            self.writer.add_document(document)?;
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
