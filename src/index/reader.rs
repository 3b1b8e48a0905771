//! One document's index, open for search: its vector block resident, its keyword reader open,
//! and the reads a query makes of them afterwards (exact vectors, row positions, passage text).

use std::path::{Path, PathBuf};

use tantivy::DocAddress;

use super::block::{self, ExactRow, ResidentBlock, RowMeta};
use super::keyword_reader::{Fields, KeywordReader};
use super::{IndexError, Manifest, MANIFEST_FILE};

/// One document's index, open and ready to search.
pub struct DocIndex {
    pub generation: i64,
    pub dir: PathBuf,
    pub block: ResidentBlock,
    pub keywords: KeywordReader,
}

impl DocIndex {
    /// Opens the index in `dir`, checking its manifest against the question's vectors and its
    /// vector block against the manifest.
    pub fn open(dir: &Path, generation: i64, dimension: usize, fields: &Fields) -> Result<DocIndex, IndexError> {
        let manifest = Manifest::read(dir)?;
        if manifest.dimension != dimension {
            return Err(IndexError::OtherEmbedder {
                path: dir.join(MANIFEST_FILE),
                embedder: manifest.embedder,
                dimension: manifest.dimension,
                wanted: dimension,
            });
        }
        // A published index is never written to: a block that cannot be read is damage, for
        // the indexer to verify and rebuild beside it.
        let block = block::read_counted(dir, dimension, manifest.chunk_count)?;
        let keywords = KeywordReader::open(&dir.join("keywords"), fields)?;
        Ok(DocIndex {
            generation,
            dir: dir.to_path_buf(),
            block,
            keywords,
        })
    }

    /// The exact vectors of `rows` with their positions; `None` if the index was rebuilt since
    /// it was opened.
    pub fn read_exact(&self, rows: &[u32]) -> Result<Option<Vec<ExactRow>>, IndexError> {
        block::read_exact(&self.dir, self.block.stamp, rows)
    }

    /// The position of every row; `None` if the index was rebuilt since it was opened.
    pub fn read_meta(&self) -> Result<Option<Vec<RowMeta>>, IndexError> {
        block::read_meta(&self.dir, self.block.stamp)
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
