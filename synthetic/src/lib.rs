//! Publishing a document's index from chunks that are already embedded, in one go, into any
//! index store: the search benchmark's synthetic libraries and the search tests use it.
//! The product indexes PDFs with `lectern::index::build`, which streams pages instead; this crate
//! is not part of it. [`hostile`] writes the adversarial PDFs, [`large`] the long and bulky ones.

pub mod hostile;
pub mod large;

use lectern::catalog::{now_millis, DocumentId, PdfMetadata};
use lectern::chunk::{Chunk, ChunkerSettings};
use lectern::index::{IndexError, IndexStore, Manifest, Publication, FORMAT_VERSION};

/// What the manifest records besides the chunks.
pub struct Provenance<'a> {
    pub content_hash: &'a str,
    pub embedder: &'a str,
    pub chunker: ChunkerSettings,
    pub metadata: &'a PdfMetadata,
}

/// Publishes into `store` the index of `id` holding `chunks` with their `vectors` (same order).
pub async fn publish(
    store: &dyn IndexStore,
    id: DocumentId,
    chunks: &[Chunk],
    vectors: &[Vec<f32>],
    dimension: usize,
    provenance: &Provenance<'_>,
) -> Result<Manifest, IndexError> {
    let m = provenance.metadata;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        content_hash: provenance.content_hash.to_string(),
        embedder: Some(provenance.embedder.to_string()),
        dimension: Some(dimension),
        chunker: provenance.chunker,
        page_count: m.page_count,
        chunk_count: chunks.len() as u64,
        char_count: chunks
            .iter()
            .map(|c| u64::from(c.char_end.saturating_sub(c.char_start)))
            .sum(),
        pages_needing_ocr: Vec::new(),
        pages_from_ocr: Vec::new(),
        ocr_failures: Vec::new(),
        title: m.title.clone(),
        author: m.author.clone(),
        pdf_created: m.created.clone(),
        pdf_modified: m.modified.clone(),
        created_at: now_millis(),
    };
    store
        .publish(Publication {
            id,
            manifest: &manifest,
            chunks,
            vectors,
            term: None,
        })
        .await?;
    Ok(manifest)
}
