//! Building one document's index: extract pages, chunk them, embed the chunks in batches, write
//! the LanceDB table and the tantivy index in a temporary directory, then publish it atomically.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use thiserror::Error;
use tokio::runtime::Handle;

use super::dirs::IndexDirs;
use super::keywords::KeywordWriter;
use super::manifest::{Manifest, FORMAT_VERSION};
use super::vectors::VectorWriter;
use super::IndexError;
use crate::catalog::{now_millis, DocumentId, PdfMetadata};
use crate::chunk::{Chunk, Chunker, Sections};
use crate::embed::{EmbedError, Embedder};
use crate::pdf::{Extracted, PageContent, PdfError, PdfReader, TextQuality};

/// Chunks embedded and written together.
const BATCH: usize = 64;

/// Everything one build needs.
pub struct BuildInput<'a> {
    pub id: DocumentId,
    pub pdf: &'a Path,
    /// The document's file name, part of every chunk's context.
    pub file_name: &'a str,
    pub password: Option<String>,
    pub content_hash: &'a str,
    pub embedder: &'a dyn Embedder,
    pub chunker: &'a Chunker,
    pub reader: &'a PdfReader,
    pub cancel: &'a AtomicBool,
}

/// Progress of a build, reported as it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildProgress {
    pub pages_done: u64,
    pub pages_total: u64,
    pub chunks_embedded: u64,
}

/// How a build ended when nothing failed.
#[derive(Debug)]
pub enum Built {
    /// The index is in place.
    Ready(Manifest),
    /// The PDF opened but has no usable text layer (the reason says why); no index was kept.
    NoText { meta: PdfMetadata, reason: String },
}

/// Why a build failed.
#[derive(Debug, Error)]
pub enum BuildError {
    #[error(transparent)]
    Pdf(#[from] PdfError),
    #[error(transparent)]
    Embed(#[from] EmbedError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("indexing was cancelled")]
    Cancelled,
}

/// Builds and publishes the index of `input.id`; on any failure the temporary directory is removed
/// and no index appears.
pub fn build(
    dirs: &IndexDirs,
    input: BuildInput<'_>,
    runtime: &Handle,
    on_progress: &mut dyn FnMut(BuildProgress),
) -> Result<Built, BuildError> {
    let temp = dirs.begin(input.id)?;
    let result = build_in(&temp, &input, runtime, on_progress);
    match result {
        Ok(Built::Ready(manifest)) => {
            dirs.commit(input.id, &temp)?;
            Ok(Built::Ready(manifest))
        }
        other => {
            let _ = std::fs::remove_dir_all(&temp);
            other
        }
    }
}

fn build_in(
    temp: &Path,
    input: &BuildInput<'_>,
    runtime: &Handle,
    on_progress: &mut dyn FnMut(BuildProgress),
) -> Result<Built, BuildError> {
    let dimension = input.embedder.dimension();
    let mut keywords = KeywordWriter::create(&temp.join("keywords"))?;
    let mut vectors = runtime.block_on(VectorWriter::create(&temp.join("vectors"), dimension))?;
    let mut extraction = input.reader.extract(input.pdf, input.password.clone());
    let mut meta = PdfMetadata::default();
    let mut sections = Sections::new(input.file_name, None);
    let mut quality = TextQuality::default();
    let mut pending: Vec<Chunk> = Vec::new();
    let mut progress = BuildProgress {
        pages_done: 0,
        pages_total: 0,
        chunks_embedded: 0,
    };
    let mut chars = 0u64;
    let mut flush = |pending: &mut Vec<Chunk>, progress: &mut BuildProgress| -> Result<(), BuildError> {
        if pending.is_empty() {
            return Ok(());
        }
        let searchable: Vec<String> = pending.iter().map(Chunk::searchable_text).collect();
        let texts: Vec<&str> = searchable.iter().map(String::as_str).collect();
        let embedded = input.embedder.embed(&texts)?;
        if let Some(bad) = embedded.iter().find(|v| v.len() != dimension) {
            return Err(EmbedError::Dimension {
                expected: dimension,
                got: bad.len(),
            }
            .into());
        }
        runtime.block_on(vectors.append(pending, &embedded))?;
        keywords.add(pending)?;
        progress.chunks_embedded += pending.len() as u64;
        pending.clear();
        Ok(())
    };
    while let Some(step) = extraction.next_step() {
        if input.cancel.load(Ordering::Relaxed) {
            return Err(BuildError::Cancelled);
        }
        match step? {
            Extracted::Opened(m) => {
                progress.pages_total = m.page_count;
                sections = Sections::new(input.file_name, m.title.as_deref());
                meta = m;
                on_progress(progress);
            }
            Extracted::Page {
                number,
                text,
                headings,
                has_text_layer,
                has_images,
                unmapped_fonts,
            } => {
                quality.add(PageContent {
                    number,
                    text: &text,
                    has_text_layer,
                    has_images,
                    unmapped_fonts: &unmapped_fonts,
                });
                chars += text.chars().count() as u64;
                let mut chunks = input.chunker.chunk_page(input.content_hash, number, &text);
                sections.place(&text, &headings, &mut chunks);
                pending.extend(chunks);
                if pending.len() >= BATCH {
                    flush(&mut pending, &mut progress)?;
                }
                progress.pages_done = u64::from(number);
                on_progress(progress);
            }
        }
    }
    flush(&mut pending, &mut progress)?;
    on_progress(progress);
    if !quality.is_usable() {
        return Ok(Built::NoText {
            meta,
            reason: quality.no_text_reason(),
        });
    }
    keywords.finish()?;
    runtime.block_on(vectors.finish())?;
    runtime.block_on(super::block::write_from_table(temp, dimension))?;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        content_hash: input.content_hash.to_string(),
        embedder: input.embedder.id(),
        dimension,
        chunker: input.chunker.settings(),
        page_count: meta.page_count,
        chunk_count: progress.chunks_embedded,
        char_count: chars,
        pages_needing_ocr: quality.pages_needing_ocr(),
        title: meta.title,
        author: meta.author,
        pdf_created: meta.created,
        created_at: now_millis(),
    };
    manifest.write(temp)?;
    Ok(Built::Ready(manifest))
}
