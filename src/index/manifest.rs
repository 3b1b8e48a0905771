//! `manifest.json`: what an index holds and how it was made. Written last, so a directory with a
//! readable manifest of the current format is a complete index.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::IndexError;
use crate::catalog::PdfMetadata;
use crate::chunk::ChunkerSettings;
use crate::pdf::OcrFailure;

/// The on-disk format version of an index directory. 2: keyword positions are fast fields and
/// `vectors.block` is written with every index. 3: a table's rows are read as lines (the text
/// indexed changed). 4: chunks are indexed and embedded with their document and section
/// ([`crate::chunk::Sections`]). 5: an index is published with its keyword index first and
/// without vectors (`embedder` and `dimension` absent), then again with them; the embedder is
/// known by its identity ([`crate::Embedder::id`]). 6: words are indexed stemmed
/// ([`super::keywords::ANALYZER`]). 7: a table's columns of figures are read with their rows'
/// labels when they have headers or totals without a label (the text indexed changed). An
/// index of another version is built again.
pub const FORMAT_VERSION: u32 = 7;
/// The oldest format read as [`FORMAT_VERSION`].
const OLDEST_READ: u32 = 7;
/// The manifest's file name inside an index directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The description of one document's index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    pub content_hash: String,
    /// The model whose vectors the index holds, and their width; both `None` while the index
    /// is searchable by keyword only.
    pub embedder: Option<String>,
    pub dimension: Option<usize>,
    pub chunker: ChunkerSettings,
    pub page_count: u64,
    pub chunk_count: u64,
    pub char_count: u64,
    /// Pages without readable text (scans, fonts without Unicode), not indexed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_needing_ocr: Vec<u32>,
    /// Pages whose text was read by OCR.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages_from_ocr: Vec<u32>,
    /// Pages OCR could not read, and why (they are among the pages needing OCR).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ocr_failures: Vec<OcrFailure>,
    pub title: Option<String>,
    pub author: Option<String>,
    pub pdf_created: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdf_modified: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

impl Manifest {
    /// What the document's status says of its pages read by OCR, failed or left unread, if any.
    pub fn ocr_note(&self) -> Option<String> {
        crate::pdf::ocr_note(&self.pages_needing_ocr, &self.pages_from_ocr, &self.ocr_failures)
    }

    /// The PDF metadata recorded with the index (lets a duplicate reuse it without extraction).
    pub fn metadata(&self) -> PdfMetadata {
        PdfMetadata {
            title: self.title.clone(),
            author: self.author.clone(),
            created: self.pdf_created.clone(),
            modified: self.pdf_modified.clone(),
            page_count: self.page_count,
        }
    }

    /// The identity and width of the vectors the index holds, if it holds vectors.
    pub fn vectors(&self) -> Option<(&str, usize)> {
        Some((self.embedder.as_deref()?, self.dimension?))
    }

    /// Reads the manifest of the index in `dir`.
    pub fn read(dir: &Path) -> Result<Manifest, IndexError> {
        let path = dir.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path).map_err(IndexError::io(&path))?;
        let mut manifest: Manifest = serde_json::from_str(&text).map_err(|e| IndexError::Manifest {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        if !(OLDEST_READ..=FORMAT_VERSION).contains(&manifest.format_version) {
            return Err(IndexError::Manifest {
                path,
                reason: format!("format version {} is not {FORMAT_VERSION}", manifest.format_version),
            });
        }
        manifest.format_version = FORMAT_VERSION;
        Ok(manifest)
    }

    /// Writes the manifest into `dir` and flushes it to disk.
    pub fn write(&self, dir: &Path) -> Result<(), IndexError> {
        let path = dir.join(MANIFEST_FILE);
        let text = serde_json::to_string_pretty(self).map_err(|e| IndexError::Manifest {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        std::fs::write(&path, text).map_err(IndexError::io(&path))?;
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(IndexError::io(&path))
    }
}
