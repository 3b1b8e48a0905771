//! The LanceDB table of a document's chunks: id, page, character range, text and vector.

use std::path::Path;
use std::sync::Arc;

use arrow_array::types::Float32Type;
use arrow_array::{FixedSizeListArray, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lancedb::{Connection, Table};

use super::IndexError;
use crate::chunk::Chunk;

/// The table's name inside a document's `vectors/` database.
pub const TABLE: &str = "chunks";

/// The Arrow schema of the chunk table for vectors of `dimension`.
pub fn schema(dimension: usize) -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("chunk_id", DataType::Utf8, false),
        Field::new("page", DataType::UInt32, false),
        Field::new("char_start", DataType::UInt32, false),
        Field::new("char_end", DataType::UInt32, false),
        Field::new("text", DataType::Utf8, false),
        Field::new(
            "vector",
            DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, true)), dimension as i32),
            false,
        ),
    ]))
}

/// Appends chunks and their vectors to a new table.
pub struct VectorWriter {
    db: Connection,
    table: Option<Table>,
    schema: SchemaRef,
    dimension: usize,
}

impl VectorWriter {
    /// Opens the database directory `dir` for a table of `dimension`-wide vectors.
    pub async fn create(dir: &Path, dimension: usize) -> Result<VectorWriter, IndexError> {
        std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
        let db = lancedb::connect(&dir.to_string_lossy()).execute().await?;
        Ok(VectorWriter {
            db,
            table: None,
            schema: schema(dimension),
            dimension,
        })
    }

    /// Appends one batch of chunks with their vectors (same order, same length).
    pub async fn append(&mut self, chunks: &[Chunk], vectors: &[Vec<f32>]) -> Result<(), IndexError> {
        if chunks.is_empty() {
            return Ok(());
        }
        let batch = self.batch(chunks, vectors)?;
        match &self.table {
            Some(table) => {
                table.add(batch).execute().await?;
            }
            None => {
                self.table = Some(self.db.create_table(TABLE, batch).execute().await?);
            }
        }
        Ok(())
    }

    /// Makes sure the table exists even for a document without chunks.
    pub async fn finish(self) -> Result<(), IndexError> {
        if self.table.is_none() {
            self.db.create_empty_table(TABLE, self.schema.clone()).execute().await?;
        }
        Ok(())
    }

    fn batch(&self, chunks: &[Chunk], vectors: &[Vec<f32>]) -> Result<RecordBatch, IndexError> {
        let vectors = FixedSizeListArray::from_iter_primitive::<Float32Type, _, _>(
            vectors
                .iter()
                .map(|v| Some(v.iter().copied().map(Some).collect::<Vec<_>>())),
            self.dimension as i32,
        );
        Ok(RecordBatch::try_new(
            self.schema.clone(),
            vec![
                Arc::new(StringArray::from_iter_values(chunks.iter().map(|c| c.id.0.as_str()))),
                Arc::new(UInt32Array::from_iter_values(chunks.iter().map(|c| c.page))),
                Arc::new(UInt32Array::from_iter_values(chunks.iter().map(|c| c.char_start))),
                Arc::new(UInt32Array::from_iter_values(chunks.iter().map(|c| c.char_end))),
                Arc::new(StringArray::from_iter_values(chunks.iter().map(|c| c.text.as_str()))),
                Arc::new(vectors),
            ],
        )?)
    }
}

/// The number of rows in the chunk table of the database in `dir`.
pub async fn count(dir: &Path) -> Result<u64, IndexError> {
    let db = lancedb::connect(&dir.to_string_lossy()).execute().await?;
    let table = db.open_table(TABLE).execute().await?;
    Ok(table.count_rows(None).await? as u64)
}
