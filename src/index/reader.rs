//! One document's index, open for search: its keyword reader open, its vector block (if it has
//! one yet) read in on the first search that scores vectors (instant search, by keyword only,
//! never holds them), and the reads a query makes of them afterwards (exact vectors, row
//! positions, passage text).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tantivy::DocAddress;

use super::block::{self, ExactRow, ResidentBlock, RowMeta};
use super::keyword_reader::{Fields, KeywordReader};
use super::{IndexError, Manifest};

/// One document's index, open and ready to search.
pub struct DocIndex {
    pub generation: i64,
    pub dir: PathBuf,
    /// What the manifest says of the vectors; `None` while the index is searchable by keyword
    /// only.
    made: Option<Made>,
    /// The vector block, once a search has scored vectors.
    vectors: OnceLock<ResidentBlock>,
    pub keywords: KeywordReader,
}

/// The vectors an index holds, as its manifest says: the model that made them, their
/// dimension, and how many rows the block must have.
struct Made {
    embedder: String,
    dimension: usize,
    chunks: u64,
}

impl DocIndex {
    /// Opens the index in `dir`, checking its vector block against its manifest.
    pub fn open(dir: &Path, generation: i64, fields: &Fields) -> Result<DocIndex, IndexError> {
        let manifest = Manifest::read(dir)?;
        let made = manifest.vectors().map(|(embedder, dimension)| Made {
            embedder: embedder.to_string(),
            dimension,
            chunks: manifest.chunk_count,
        });
        let keywords = KeywordReader::open(&dir.join("keywords"), fields)?;
        Ok(DocIndex {
            generation,
            dir: dir.to_path_buf(),
            made,
            vectors: OnceLock::new(),
            keywords,
        })
    }

    /// The resident vectors if the model named `embedder` made them (no score of one model is
    /// ever compared with another's), read in the first time. A published index is never
    /// written to: a block that cannot be read is damage, for the indexer to verify and
    /// rebuild beside it.
    pub fn vectors_of(&self, embedder: &str) -> Result<Option<&ResidentBlock>, IndexError> {
        let Some(made) = self.made.as_ref().filter(|m| m.embedder == embedder) else {
            return Ok(None);
        };
        if let Some(block) = self.vectors.get() {
            return Ok(Some(block));
        }
        // Two searches may both read it; the first to finish is kept.
        let block = block::read_counted(&self.dir, made.dimension, made.chunks)?;
        Ok(Some(self.vectors.get_or_init(|| block)))
    }

    /// The resident vector block, if a search has read it.
    pub fn resident_vectors(&self) -> Option<&ResidentBlock> {
        self.vectors.get()
    }

    /// The stamp of the vector block read, if any.
    fn stamp(&self) -> u64 {
        self.vectors.get().map_or(0, |block| block.stamp)
    }

    /// The exact vectors of `rows` with their positions; `None` if the index was rebuilt since
    /// it was opened.
    pub fn read_exact(&self, rows: &[u32]) -> Result<Option<Vec<ExactRow>>, IndexError> {
        block::read_exact(&self.dir, self.stamp(), rows)
    }

    /// The position of every row; `None` if the index was rebuilt since it was opened.
    pub fn read_meta(&self) -> Result<Option<Vec<RowMeta>>, IndexError> {
        block::read_meta(&self.dir, self.stamp())
    }

    /// The stored text of a passage and its context, found by its keyword-index address when the
    /// keyword search found it, else by chunk id. A passage the store lacks is damage.
    pub fn passage(
        &self,
        address: Option<DocAddress>,
        chunk_id: &str,
        fields: &Fields,
    ) -> Result<(String, String), IndexError> {
        let text = match address {
            Some(address) => self.keywords.passage(address, fields)?,
            None => self.keywords.passage_of_chunk(chunk_id, fields)?,
        };
        text.ok_or_else(|| IndexError::Damaged {
            path: self.dir.join("keywords"),
            reason: format!("the text of passage {chunk_id} is missing"),
        })
    }
}
