//! `indexes/.library/keywords/`: one tantivy index over the passages of every covered document,
//! with the same fields as a document's own index (so a question's terms and a scope's
//! statistics are the same terms) and the document's key as a fast field, so that one query
//! finds the best passages of a whole library and keeps those of the documents in scope.
//! Passage text is not stored here: a hit is located from fast fields, and its text read from
//! its document's own index.

use std::path::Path;
use std::sync::{Arc, Mutex};

use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STRING};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, Term};

use crate::catalog::DocumentId;
use crate::chunk::Chunk;
use crate::index::directory::SearchDirectory;
use crate::index::keywords::{field, ChunkFields, ANALYZER};
use crate::index::{Fields, IndexError, KeywordReader};

/// The fast field holding a passage's document key ([`key_of`]).
pub const DOC: &str = "doc";
/// The writer's memory budget.
const WRITER_BYTES: usize = 50_000_000;

/// A document's key in the library index: the first half of its id (ids are random; two covered
/// documents with one key are refused by the keeper).
pub fn key_of(id: DocumentId) -> u64 {
    id.0.as_u64_pair().0
}

/// The library index's schema: a document index's fields in the same order (the same field
/// numbers, so terms are interchangeable), then the document key.
fn schema() -> Schema {
    let mut builder = Schema::builder();
    builder.add_text_field(field::CHUNK_ID, STRING | FAST);
    builder.add_u64_field(field::PAGE, FAST);
    builder.add_u64_field(field::CHAR_START, FAST);
    builder.add_u64_field(field::CHAR_END, FAST);
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    builder.add_text_field(field::TEXT, text);
    builder.add_u64_field(DOC, INDEXED | FAST);
    builder.build()
}

/// The library's keyword index, open for reading and, in the indexer, for writing.
pub struct LibraryKeywords {
    index: Index,
    reader: IndexReader,
    fields: LibraryFields,
    writer: Mutex<Option<IndexWriter>>,
    /// The reader of the latest searcher, with its statistics, by searcher generation.
    current: Mutex<Option<(u64, Arc<KeywordReader>)>>,
}

impl LibraryKeywords {
    /// Opens the index in `dir`, or creates an empty one there (replacing one of another schema).
    pub fn open(dir: &Path) -> Result<LibraryKeywords, IndexError> {
        std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
        let index = match Index::open_or_create(SearchDirectory::open(dir)?, schema()) {
            Ok(index) => index,
            Err(tantivy::TantivyError::SchemaError(_)) => {
                std::fs::remove_dir_all(dir).map_err(IndexError::io(dir))?;
                std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
                Index::open_or_create(SearchDirectory::open(dir)?, schema())?
            }
            Err(e) => return Err(e.into()),
        };
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::OnCommitWithDelay)
            .doc_store_cache_num_blocks(0)
            .try_into()?;
        Ok(LibraryKeywords {
            fields: LibraryFields::of(&index.schema())?,
            index,
            reader,
            writer: Mutex::new(None),
            current: Mutex::new(None),
        })
    }

    /// The reader of the index as last committed.
    pub fn reader(&self) -> Result<Arc<KeywordReader>, IndexError> {
        let searcher = self.reader.searcher();
        let generation = searcher.generation().generation_id();
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, reader)) = current.as_ref().filter(|(g, _)| *g == generation) {
            return Ok(reader.clone());
        }
        let reader = Arc::new(KeywordReader::of(searcher, &self.fields.keyword)?);
        *current = Some((generation, reader.clone()));
        Ok(reader)
    }

    /// Runs `write` with the index's writer, taken the first time (it fails while another
    /// process holds it), then commits and reloads.
    pub fn write(&self, write: impl FnOnce(&mut Writer<'_>) -> Result<(), IndexError>) -> Result<(), IndexError> {
        let mut guard = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(self.index.writer_with_num_threads(1, WRITER_BYTES)?);
        }
        let Some(writer) = guard.as_mut() else {
            return Ok(());
        };
        let mut w = Writer {
            writer,
            fields: &self.fields,
        };
        let written = write(&mut w);
        if written.is_err() {
            writer.rollback()?;
            return written;
        }
        writer.commit()?;
        self.reader.reload()?;
        Ok(())
    }
}

/// The fields a passage is written with.
struct LibraryFields {
    keyword: Fields,
    chunk: ChunkFields,
    doc: Field,
}

impl LibraryFields {
    fn of(schema: &Schema) -> Result<LibraryFields, IndexError> {
        Ok(LibraryFields {
            keyword: Fields::new()?,
            chunk: ChunkFields::of(schema)?,
            doc: schema.get_field(DOC)?,
        })
    }
}

/// The writer, lent for one commit.
pub struct Writer<'a> {
    writer: &'a mut IndexWriter,
    fields: &'a LibraryFields,
}

impl Writer<'_> {
    /// Removes every passage of `id`.
    pub fn remove(&mut self, id: DocumentId) {
        self.writer
            .delete_term(Term::from_field_u64(self.fields.doc, key_of(id)));
    }

    /// Puts the passages of `id` in place of any it had.
    pub fn replace(&mut self, id: DocumentId, chunks: &[Chunk]) -> Result<(), IndexError> {
        self.remove(id);
        let key = key_of(id);
        for c in chunks {
            let mut document = self.fields.chunk.document(c);
            document.add_u64(self.fields.doc, key);
            self.writer.add_document(document)?;
        }
        Ok(())
    }
}
