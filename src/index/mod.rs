//! Per-document indexes on disk: `indexes/<doc-id>/` holds `manifest.json`, a tantivy index
//! (`keywords/`) of the document's chunks and, once they are embedded, a LanceDB table
//! (`vectors/`) of the same chunks and `vectors.block`, the vectors laid out for the query path,
//! and, for pages read by OCR, `ocr/` with each word's box (`ocr_pages.rs`).
//! An index is published twice: keyword-searchable as soon as the PDF is read (`build.rs`), then
//! with its vectors (`embedding.rs`). The format is written here (`manifest.rs`, `vectors.rs`,
//! `keywords.rs`, `block.rs`) and read here: `reader.rs` opens one document's index
//! for search (through `directory.rs` and `keyword_reader.rs`) and `cache.rs` keeps it open
//! between queries. What a library asks of its indexes is a contract, [`IndexStore`]
//! (`store.rs`); [`LocalStore`] (`local.rs`) keeps it over these directories, scoring keywords
//! with a scope's statistics (`statistics.rs`, `keyword_search.rs`), and [`PgStore`]
//! (`postgres/`) in a PostgreSQL database with pgvector.

pub mod block;
mod build;
mod cache;
mod directory;
mod dirs;
mod embedding;
mod error;
mod keyword_reader;
mod keyword_search;
pub mod keywords;
mod local;
mod manifest;
mod ocr_pages;
mod postgres;
mod reader;
mod statistics;
mod store;
pub mod vectors;
mod wide;

use std::path::Path;

pub use build::{build, BuildError, BuildInput, BuildProgress, Built};
pub use cache::IndexCache;
pub use directory::raise_open_file_limit;
pub use dirs::{IndexDirs, Sweep};
pub use embedding::{embed, EmbedInput, EmbedProgress};
pub use error::IndexError;
pub use keyword_reader::{Fields, KeywordReader, Located};
pub use local::{LocalStore, WIDE_INDEX_FROM};
pub use manifest::{Manifest, FORMAT_VERSION, MANIFEST_FILE};
pub use ocr_pages::page_words;
pub use postgres::PgStore;
pub use reader::DocIndex;
pub use store::{DocumentIndex, Found, IndexStore, PassageKey, Publication, ScopeSearch, Wanted};
pub use wide::Kept;

/// Checks that the index in `dir` is complete and whole: a readable manifest, a keyword index
/// and, if the manifest names vectors, a vector block and vector table, all holding exactly the
/// chunks the manifest counts.
pub async fn verify(dir: &Path) -> Result<Manifest, IndexError> {
    let manifest = Manifest::read(dir)?;
    let miscounted = |what: &str, found: u64| IndexError::Manifest {
        path: dir.join(MANIFEST_FILE),
        reason: format!("the manifest counts {} chunks, {what} {found}", manifest.chunk_count),
    };
    let keywords = keywords::count(&dir.join("keywords"))?;
    if keywords != manifest.chunk_count {
        return Err(miscounted("the keyword index holds", keywords));
    }
    if let Some((_, dimension)) = manifest.vectors() {
        block::read_counted(dir, dimension, manifest.chunk_count)?;
        let vectors = vectors::count(&dir.join("vectors")).await?;
        if vectors != manifest.chunk_count {
            return Err(miscounted("the vector table holds", vectors));
        }
    }
    Ok(manifest)
}
