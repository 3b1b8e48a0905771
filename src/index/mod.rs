//! Per-document indexes on disk: `indexes/<doc-id>/` holds `manifest.json`, a LanceDB table
//! (`vectors/`) and a tantivy index (`keywords/`) of the same chunks, and `vectors.block`, the
//! vectors laid out for the query path. The format is written here (`build.rs`, `manifest.rs`,
//! `vectors.rs`, `keywords.rs`, `block.rs`) and read here: `reader.rs` opens one document's index
//! for search (through `directory.rs` and `keyword_reader.rs`) and `cache.rs` keeps it open
//! between queries.

pub mod block;
mod build;
mod cache;
mod directory;
mod dirs;
mod error;
mod keyword_reader;
pub mod keywords;
mod manifest;
mod reader;
pub mod vectors;

use std::path::Path;

pub use build::{build, BuildError, BuildInput, BuildProgress, Built};
pub use cache::IndexCache;
pub use directory::raise_open_file_limit;
pub use dirs::{IndexDirs, Sweep};
pub use error::IndexError;
pub use keyword_reader::{Fields, KeywordReader, Located};
pub use manifest::{Manifest, FORMAT_VERSION, MANIFEST_FILE};
pub use reader::DocIndex;

/// Checks that the index in `dir` is complete and whole: a readable manifest, and a vector
/// block, vector table and keyword index that all hold exactly the chunks the manifest counts.
pub async fn verify(dir: &Path) -> Result<Manifest, IndexError> {
    let manifest = Manifest::read(dir)?;
    block::read_counted(dir, manifest.dimension, manifest.chunk_count)?;
    let vectors = vectors::count(&dir.join("vectors")).await?;
    let keywords = keywords::count(&dir.join("keywords"))?;
    if vectors != manifest.chunk_count || keywords != manifest.chunk_count {
        return Err(IndexError::Manifest {
            path: dir.join(MANIFEST_FILE),
            reason: format!(
                "the manifest counts {} chunks, the vector table holds {vectors} and the keyword index {keywords}",
                manifest.chunk_count
            ),
        });
    }
    Ok(manifest)
}
