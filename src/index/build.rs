//! Reading one document into its first index: extract pages, chunk them, write the tantivy index
//! in a temporary directory, then publish it atomically. The document is searchable by keyword
//! from then on; its vectors are added after (`embedding.rs`).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use thiserror::Error;

use super::dirs::IndexDirs;
use super::keywords::KeywordWriter;
use super::manifest::{Manifest, FORMAT_VERSION};
use super::ocr_pages::OcrPages;
use super::IndexError;
use crate::catalog::{now_millis, DocumentId, PdfMetadata};
use crate::chunk::{Chunker, Sections};
use crate::embed::EmbedError;
use crate::pdf::{
    is_usable, Extracted, Extraction, OcrFailure, OcrPage, OcrSettings, PageContent, PdfError, PdfReader, TextQuality,
};

/// How often a build waiting for a page's OCR looks whether it was cancelled.
const CANCEL_CHECK: Duration = Duration::from_millis(100);

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
    /// Pages read by OCR at once, each by a worker on one core.
    pub ocr_workers: usize,
    pub cancel: &'a AtomicBool,
}

/// Progress of a build, reported as it happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildProgress {
    pub pages_done: u64,
    pub pages_total: u64,
    /// The page being read by OCR, the last started if several are.
    pub ocr_page: Option<u32>,
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
    let result = build_in(dirs, &temp, &input, on_progress);
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
    dirs: &IndexDirs,
    temp: &Path,
    input: &BuildInput<'_>,
    on_progress: &mut dyn FnMut(BuildProgress),
) -> Result<Built, BuildError> {
    let mut pages = Pages {
        keywords: KeywordWriter::create(&temp.join("keywords"))?,
        sections: Sections::new(input.file_name, None),
        quality: TextQuality::default(),
        chars: 0,
        chunks: 0,
    };
    let mut extraction = input.reader.extract(input.pdf, input.password.clone());
    let mut meta = PdfMetadata::default();
    let mut ocr = match input.ocr {
        Some(ocr) => Some(Ocr::new(dirs, input, ocr)?),
        None => None,
    };
    let mut waiting: VecDeque<Waiting> = VecDeque::new();
    let mut progress = BuildProgress {
        pages_done: 0,
        pages_total: 0,
        ocr_page: None,
    };
    while let Some(step) = extraction.next_step() {
        if input.cancel.load(Ordering::Relaxed) {
            return Err(BuildError::Cancelled);
        }
        match step? {
            Extracted::Opened(m) => {
                progress.pages_total = m.page_count;
                pages.sections = Sections::new(input.file_name, m.title.as_deref());
                meta = m;
                on_progress(progress);
            }
            Extracted::Recognised { number, .. } | Extracted::Words { number, .. } => {
                return Err(PdfError::Crashed(format!("the reader sent page {number}'s words unasked")).into())
            }
            Extracted::Page {
                number,
                text,
                headings,
                has_text_layer,
                has_images,
                unmapped_fonts,
            } => {
                let reading = match ocr.as_mut() {
                    Some(ocr) if !is_usable(&text) => ocr.start(number),
                    _ => None,
                };
                if matches!(reading, Some(Reading::Running(_))) {
                    progress.ocr_page = Some(number);
                    on_progress(progress);
                }
                waiting.push_back(Waiting {
                    number,
                    text,
                    headings,
                    has_text_layer,
                    has_images,
                    unmapped_fonts,
                    reading,
                });
            }
        }
        // Pages go into the index in order, each once its OCR (if any) is done; no more pages
        // are read by OCR at once than the build may run.
        loop {
            let full = running(&waiting) >= input.ocr_workers.max(1);
            let Some(page) = waiting.pop_front_if(|next| full || next.is_done()) else {
                break;
            };
            pages.add(input, page, ocr.as_mut(), &mut progress)?;
            on_progress(progress);
        }
    }
    while let Some(page) = waiting.pop_front() {
        if input.cancel.load(Ordering::Relaxed) {
            return Err(BuildError::Cancelled);
        }
        pages.add(input, page, ocr.as_mut(), &mut progress)?;
        on_progress(progress);
    }
    progress.ocr_page = None;
    on_progress(progress);
    let (kept, failures, unavailable) = match ocr {
        Some(ocr) => (Some(ocr.pages), ocr.failures, ocr.unavailable),
        None => (None, Vec::new(), None),
    };
    if !pages.quality.is_usable() {
        let mut reason = pages.quality.no_text_reason();
        if let Some(why) = unavailable.or_else(|| failures.first().map(|f| f.to_string())) {
            reason = format!("{reason}; {why}");
        }
        return Ok(Built::NoText { meta, reason });
    }
    pages.keywords.finish()?;
    if let Some(kept) = kept {
        kept.publish(temp)?;
    }
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        content_hash: input.content_hash.to_string(),
        embedder: None,
        dimension: None,
        chunker: input.chunker.settings(),
        page_count: meta.page_count,
        chunk_count: pages.chunks,
        char_count: pages.chars,
        pages_needing_ocr: pages.quality.pages_needing_ocr(),
        pages_from_ocr: pages.quality.pages_from_ocr().to_vec(),
        ocr_failures: failures,
        title: meta.title,
        author: meta.author,
        pdf_created: meta.created,
        pdf_modified: meta.modified,
        created_at: now_millis(),
    };
    manifest.write(temp)?;
    Ok(Built::Ready(manifest))
}

/// What the pages add up to, as they go into the index in order.
struct Pages {
    keywords: KeywordWriter,
    sections: Sections,
    quality: TextQuality,
    chars: u64,
    chunks: u64,
}

impl Pages {
    /// Takes `page` into the index, with its text read by OCR once that is done.
    fn add(
        &mut self,
        input: &BuildInput<'_>,
        page: Waiting,
        ocr: Option<&mut Ocr>,
        progress: &mut BuildProgress,
    ) -> Result<(), BuildError> {
        let number = page.number;
        let recognised = match (page.reading, ocr) {
            (Some(reading), Some(ocr)) => ocr.finish(number, reading, input.cancel)?,
            _ => None,
        };
        let text = recognised.as_ref().map_or(page.text, |r| r.text.clone());
        self.quality.add(PageContent {
            number,
            text: &text,
            has_text_layer: page.has_text_layer,
            has_images: page.has_images,
            unmapped_fonts: &page.unmapped_fonts,
            ocr: recognised.is_some(),
        });
        self.chars += text.chars().count() as u64;
        let mut chunks = input.chunker.chunk_page(input.content_hash, number, &text);
        self.sections.place(&text, &page.headings, &mut chunks);
        self.keywords.add(&chunks)?;
        self.chunks += chunks.len() as u64;
        progress.pages_done = u64::from(number);
        if progress.ocr_page == Some(number) {
            progress.ocr_page = None;
        }
        Ok(())
    }
}

/// A page read, waiting for its OCR (if it needs one) before it goes into the index.
struct Waiting {
    number: u32,
    text: String,
    headings: Vec<String>,
    has_text_layer: bool,
    has_images: bool,
    unmapped_fonts: Vec<String>,
    reading: Option<Reading>,
}

impl Waiting {
    fn is_done(&mut self) -> bool {
        match &mut self.reading {
            Some(Reading::Running(worker)) => worker.wait_for_step(Duration::ZERO),
            _ => true,
        }
    }
}

/// How many of the `waiting` pages are being read by OCR.
fn running(waiting: &VecDeque<Waiting>) -> usize {
    waiting
        .iter()
        .filter(|w| matches!(w.reading, Some(Reading::Running(_))))
        .count()
}

/// The OCR of one page.
enum Reading {
    /// Read by an earlier build.
    Kept(OcrPage),
    /// Being read, in a worker of its own (dropping it ends the worker).
    Running(Box<Extraction>),
}

/// The OCR of a document's pages without text: each page in a worker of its own, so a page
/// that exhausts a limit or crashes the reader fails alone, and each page read is kept, so a
/// build that stops goes on from there.
struct Ocr {
    reader: PdfReader,
    pdf: PathBuf,
    password: Option<String>,
    settings: OcrSettings,
    pages: OcrPages,
    /// Why OCR cannot run on this machine, once a worker has said so.
    unavailable: Option<String>,
    /// The pages OCR failed on, and why.
    failures: Vec<OcrFailure>,
}

impl Ocr {
    fn new(dirs: &IndexDirs, input: &BuildInput<'_>, settings: &OcrSettings) -> Result<Ocr, BuildError> {
        let dir = dirs.ocr_pages(input.id);
        Ok(Ocr {
            reader: input.reader.clone(),
            pdf: input.pdf.to_path_buf(),
            password: input.password.clone(),
            settings: settings.clone(),
            pages: OcrPages::open(&dir, input.content_hash, &settings.languages)?,
            unavailable: None,
            failures: Vec::new(),
        })
    }

    /// Starts reading page `number`, unless OCR cannot run here; a page an earlier build read is
    /// not read again.
    fn start(&mut self, number: u32) -> Option<Reading> {
        if self.unavailable.is_some() {
            return None;
        }
        if let Some(page) = self.pages.get(number) {
            return Some(Reading::Kept(page));
        }
        Some(Reading::Running(Box::new(self.reader.recognise(
            &self.pdf,
            self.password.clone(),
            number,
            &self.settings,
        ))))
    }

    /// Page `number` as read; `None` when OCR cannot run here or failed on the page, which then
    /// reads as empty and stays among the pages that need OCR.
    /// Waiting for it ends when the build is cancelled.
    fn finish(&mut self, number: u32, reading: Reading, cancel: &AtomicBool) -> Result<Option<OcrPage>, BuildError> {
        let mut worker = match reading {
            Reading::Kept(page) => return Ok(Some(page)),
            Reading::Running(worker) => worker,
        };
        while !worker.wait_for_step(CANCEL_CHECK) {
            if cancel.load(Ordering::Relaxed) {
                return Err(BuildError::Cancelled);
            }
        }
        let outcome = worker.next_step();
        let failure = match outcome {
            Some(Ok(Extracted::Recognised { page, .. })) => {
                self.pages.put(number, &page)?;
                return Ok(Some(page));
            }
            Some(Err(e @ PdfError::OcrUnavailable(_))) => {
                self.unavailable = Some(e.to_string());
                return Ok(None);
            }
            // Not the page's failure: the file's, or the reader's, or the file's drive's.
            Some(Err(
                e @ (PdfError::NeedsPassword | PdfError::WrongPassword | PdfError::Stopped(_) | PdfError::Gone(_)),
            )) => return Err(e.into()),
            Some(Err(PdfError::OcrFailed { reason, .. })) => reason,
            Some(Err(e)) => e.to_string(),
            Some(Ok(_)) | None => "the reader sent no text for the page".to_string(),
        };
        self.failures.push(OcrFailure {
            page: number,
            reason: failure,
        });
        Ok(None)
    }
}
