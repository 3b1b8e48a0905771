//! Per-document indexes on disk: `indexes/<doc-id>/` holds `manifest.json`, a LanceDB table
//! (`vectors/`) and a tantivy index (`keywords/`) of the same chunks.

pub mod block;
mod build;
mod dirs;
mod error;
pub mod keywords;
mod manifest;
mod publish;
pub mod vectors;

use std::path::Path;

pub use build::{build, BuildError, BuildInput, BuildProgress, Built};
pub use dirs::{IndexDirs, Sweep};
pub use error::IndexError;
pub use manifest::{Manifest, FORMAT_VERSION, MANIFEST_FILE};
pub use publish::{publish, Provenance};

/// Checks that the index in `dir` is complete and whole: a readable manifest, and a vector table
/// and keyword index that both hold exactly the chunks the manifest counts.
pub async fn verify(dir: &Path) -> Result<Manifest, IndexError> {
    let manifest = Manifest::read(dir)?;
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
