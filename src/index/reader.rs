//! One document's index, open for search: its vector block (if it has one yet) resident, its
//! keyword reader open,
//! and the reads a query makes of them afterwards (exact vectors, row positions, passage text).

use std::path::{Path, PathBuf};

use tantivy::DocAddress;

use super::block::{self, ExactRow, ResidentBlock, RowMeta};
use super::keyword_reader::{Fields, KeywordReader};
use super::{IndexError, Manifest};

/// One document's index, open and ready to search.
pub struct DocIndex {
    pub generation: i64,
    pub dir: PathBuf,
    /// The vectors, with the model that made them; `None` while the index is searchable by
    /// keyword only.
    pub vectors: Option<Vectors>,
    pub keywords: KeywordReader,
}

/// An index's vectors, resident, and the model that made them.
pub struct Vectors {
    pub embedder: String,
    pub block: ResidentBlock,
}

impl DocIndex {
    /// Opens the index in `dir`, checking its vector block against its manifest.
    pub fn open(dir: &Path, generation: i64, fields: &Fields) -> Result<DocIndex, IndexError> {
        let manifest = Manifest::read(dir)?;
        // A published index is never written to: a block that cannot be read is damage, for
        // the indexer to verify and rebuild beside it.
        let vectors = match manifest.vectors() {
            Some((embedder, dimension)) => Some(Vectors {
                embedder: embedder.to_string(),
                block: block::read_counted(dir, dimension, manifest.chunk_count)?,
            }),
            None => None,
        };
        let keywords = KeywordReader::open(&dir.join("keywords"), fields)?;
        Ok(DocIndex {
            generation,
            dir: dir.to_path_buf(),
            vectors,
            keywords,
        })
    }

    /// The resident vectors if the model named `embedder` made them (no score of one model is
    /// ever compared with another's).
    pub fn vectors_of(&self, embedder: &str) -> Option<&ResidentBlock> {
        self.vectors
            .as_ref()
            .filter(|v| v.embedder == embedder)
            .map(|v| &v.block)
    }

    /// The stamp of the vector block read, if any.
    fn stamp(&self) -> u64 {
        self.vectors.as_ref().map_or(0, |v| v.block.stamp)
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

    /// The stored text of a passage, found by its keyword-index address when the keyword search
    /// found it, else by chunk id. A passage the store lacks is damage.
    pub fn passage_text(
        &self,
        address: Option<DocAddress>,
        chunk_id: &str,
        fields: &Fields,
    ) -> Result<String, IndexError> {
        let text = match address {
            Some(address) => self.keywords.text(address, fields)?,
            None => self.keywords.text_of_chunk(chunk_id, fields)?,
        };
        text.ok_or_else(|| IndexError::Damaged {
            path: self.dir.join("keywords"),
            reason: format!("the text of passage {chunk_id} is missing"),
        })
    }

    /// The error for an index that was rebuilt while a query read it.
    pub fn changed(&self) -> IndexError {
        IndexError::Damaged {
            path: self.dir.join(block::BLOCK_FILE),
            reason: "the index was rebuilt while it was being searched".into(),
        }
    }
}
