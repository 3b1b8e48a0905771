//! Publishing an index from chunks that are already embedded, in one go: the search benchmark's
//! synthetic libraries and the search tests use it; the indexing pipeline (`build.rs`) streams
//! pages instead.

use super::block;
use super::keywords::KeywordWriter;
use super::vectors::VectorWriter;
use super::{IndexDirs, IndexError, Manifest, FORMAT_VERSION};
use crate::catalog::{now_millis, DocumentId, PdfMetadata};
use crate::chunk::{Chunk, ChunkerSettings};

/// What the manifest records besides the chunks.
pub struct Provenance<'a> {
    pub content_hash: &'a str,
    pub embedder: &'a str,
    pub chunker: ChunkerSettings,
    pub metadata: &'a PdfMetadata,
}

/// Writes and publishes the index of `id` holding `chunks` with their `vectors` (same order).
pub async fn publish(
    dirs: &IndexDirs,
    id: DocumentId,
    chunks: &[Chunk],
    vectors: &[Vec<f32>],
    dimension: usize,
    provenance: &Provenance<'_>,
) -> Result<Manifest, IndexError> {
    let temp = dirs.begin(id)?;
    let mut keywords = KeywordWriter::create(&temp.join("keywords"))?;
    keywords.add(chunks)?;
    keywords.finish()?;
    let mut table = VectorWriter::create(&temp.join("vectors"), dimension).await?;
    table.append(chunks, vectors).await?;
    table.finish().await?;
    block::write_from_table(&temp, dimension).await?;
    let m = provenance.metadata;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        content_hash: provenance.content_hash.to_string(),
        embedder: provenance.embedder.to_string(),
        dimension,
        chunker: provenance.chunker,
        page_count: m.page_count,
        chunk_count: chunks.len() as u64,
        char_count: chunks
            .iter()
            .map(|c| u64::from(c.char_end.saturating_sub(c.char_start)))
            .sum(),
        pages_needing_ocr: Vec::new(),
        title: m.title.clone(),
        author: m.author.clone(),
        pdf_created: m.created.clone(),
        created_at: now_millis(),
    };
    manifest.write(&temp)?;
    dirs.commit(id, &temp)?;
    Ok(manifest)
}
