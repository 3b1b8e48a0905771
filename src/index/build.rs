//! Reading one document into its first index: extract pages, chunk them, write the tantivy index
//! in a temporary directory, then publish it atomically. The document is searchable by keyword
//! from then on; its vectors are added after (`embedding.rs`).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use thiserror::Error;

use super::dirs::IndexDirs;
use super::keywords::KeywordWriter;
use super::manifest::{Manifest, FORMAT_VERSION};
use super::IndexError;
use crate::catalog::{now_millis, DocumentId, PdfMetadata};
use crate::chunk::{Chunker, Sections};
use crate::embed::EmbedError;
use crate::pdf::{is_usable, Extracted, OcrSettings, PageContent, PdfError, PdfReader, TextQuality};

/// Everything one build needs.
pub struct BuildInput<'a> {
    pub id: DocumentId,
    pub pdf: &'a Path,
    /// The document's file name, part of every chunk's context.
    pub file_name: &'a str,
    pub password: Option<String>,
    pub content_hash: &'a str,
    pub chunker: &'a Chunker,
    pub reader: &'a PdfReader,
    /// How pages without text are read by OCR; `None` leaves them unread.
    pub ocr: Option<&'a OcrSettings>,
    pub cancel: &'a AtomicBool,
}

/// Progress of a build, reported as it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildProgress {
    pub pages_done: u64,
    pub pages_total: u64,
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

/// Builds and publishes the keyword index of `input.id`; on any failure the temporary directory
/// is removed and no index appears.
pub fn build(
    dirs: &IndexDirs,
    input: BuildInput<'_>,
    on_progress: &mut dyn FnMut(BuildProgress),
) -> Result<Built, BuildError> {
    let temp = dirs.begin(input.id)?;
    let result = build_in(&temp, &input, on_progress);
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
    on_progress: &mut dyn FnMut(BuildProgress),
) -> Result<Built, BuildError> {
    let mut keywords = KeywordWriter::create(&temp.join("keywords"))?;
    let mut extraction = input.reader.extract(input.pdf, input.password.clone());
    let mut meta = PdfMetadata::default();
    let mut sections = Sections::new(input.file_name, None);
    let mut quality = TextQuality::default();
    let mut ocr = Ocr::default();
    let mut progress = BuildProgress {
        pages_done: 0,
        pages_total: 0,
    };
    let (mut chars, mut chunk_count) = (0u64, 0u64);
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
            Extracted::Recognised { number, .. } => {
                return Err(PdfError::Crashed(format!("the reader sent page {number} read by OCR unasked")).into())
            }
            Extracted::Page {
                number,
                mut text,
                headings,
                has_text_layer,
                has_images,
                unmapped_fonts,
            } => {
                let mut from_ocr = false;
                if let Some(settings) = input.ocr.filter(|_| !is_usable(&text) && ocr.is_available()) {
                    if let Some(read) = ocr.read(input, settings, number)? {
                        text = read;
                        from_ocr = true;
                    }
                }
                quality.add(PageContent {
                    number,
                    text: &text,
                    has_text_layer,
                    has_images,
                    unmapped_fonts: &unmapped_fonts,
                    ocr: from_ocr,
                });
                chars += text.chars().count() as u64;
                let mut chunks = input.chunker.chunk_page(input.content_hash, number, &text);
                sections.place(&text, &headings, &mut chunks);
                keywords.add(&chunks)?;
                chunk_count += chunks.len() as u64;
                progress.pages_done = u64::from(number);
                on_progress(progress);
            }
        }
    }
    on_progress(progress);
    if !quality.is_usable() {
        let reason = match &ocr.unavailable {
            Some(why) => format!("{}; {why}", quality.no_text_reason()),
            None => quality.no_text_reason(),
        };
        return Ok(Built::NoText { meta, reason });
    }
    keywords.finish()?;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        content_hash: input.content_hash.to_string(),
        embedder: None,
        dimension: None,
        chunker: input.chunker.settings(),
        page_count: meta.page_count,
        chunk_count,
        char_count: chars,
        pages_needing_ocr: quality.pages_needing_ocr(),
        pages_from_ocr: quality.pages_from_ocr().to_vec(),
        title: meta.title,
        author: meta.author,
        pdf_created: meta.created,
        created_at: now_millis(),
    };
    manifest.write(temp)?;
    Ok(Built::Ready(manifest))
}

/// The OCR of a document's pages without text, as they come: each page in a worker of its own,
/// so a page that exhausts a limit or crashes the reader fails alone.
#[derive(Default)]
struct Ocr {
    /// Why OCR cannot run on this machine, once a worker has said so.
    unavailable: Option<String>,
}

impl Ocr {
    fn is_available(&self) -> bool {
        self.unavailable.is_none()
    }

    /// The text OCR reads on page `number`; `None` when it cannot run here. A page it fails on
    /// reads as empty, and stays among the pages that need OCR.
    fn read(
        &mut self,
        input: &BuildInput<'_>,
        settings: &OcrSettings,
        number: u32,
    ) -> Result<Option<String>, BuildError> {
        let mut worker = input
            .reader
            .recognise(input.pdf, input.password.clone(), number, settings);
        match worker.next_step() {
            Some(Ok(Extracted::Recognised { text, .. })) => Ok(Some(text)),
            Some(Err(e @ PdfError::OcrUnavailable(_))) => {
                self.unavailable = Some(e.to_string());
                Ok(None)
            }
            Some(Err(e @ (PdfError::NeedsPassword | PdfError::WrongPassword))) => Err(e.into()),
            _ => Ok(Some(String::new())),
        }
    }
}
