//! Page-by-page text extraction on a thread of its own, behind a deadline and a panic guard.
//! The text of each page comes from `lectern-text`, which interprets the page's content itself.
//!
//! A PDF parser meets hostile input: it may panic, loop or allocate without end. Extraction
//! therefore runs on a dedicated thread that sends pages through a small bounded channel (memory
//! stays bounded however many pages there are), turns a panic into [`PdfError::Panic`], and the
//! reader gives up with [`PdfError::Timeout`] once the deadline passes. A thread stuck inside the
//! parser cannot be killed; it is detached and its result discarded.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use lectern_text::{Extractor, OpenError};
use lopdf::Document;
use unicode_normalization::UnicodeNormalization;

use super::info::read_info;
use super::PdfError;
use crate::catalog::PdfMetadata;

/// Bounds on the work one document may cause.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Files larger than this are refused before parsing.
    pub max_bytes: u64,
    /// Wall-clock time for the whole extraction.
    pub timeout: Duration,
    /// Bytes any one stream (or one page's content) may decompress to.
    pub max_decompressed: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 1 << 30,
            timeout: Duration::from_secs(600),
            max_decompressed: 256 << 20,
        }
    }
}

/// One step of an extraction.
#[derive(Debug)]
pub enum Extracted {
    /// The file opened; its metadata and page count.
    Opened(PdfMetadata),
    /// The text of one page (1-based), normalised.
    Page {
        number: u32,
        text: String,
        /// The page's section headings, normalised, in reading order.
        headings: Vec<String>,
        /// The page shows glyphs (invisible OCR text included), whether or not they map to text.
        has_text_layer: bool,
        /// The page paints images; with no text layer, it is probably a scan.
        has_images: bool,
        /// Fonts of the page whose glyphs map to no Unicode text (base font names).
        unmapped_fonts: Vec<String>,
    },
}

/// A running extraction; iterate it with [`Extraction::next`].
pub struct Extraction {
    rx: Receiver<Result<Extracted, PdfError>>,
    deadline: Instant,
    timeout: Duration,
    finished: bool,
}

impl Extraction {
    /// Starts extracting `path` (with `password` for an encrypted file) on its own thread.
    pub fn start(path: &Path, password: Option<String>, limits: Limits) -> Extraction {
        let (tx, rx) = sync_channel(8);
        let path = path.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("lectern-extract".into())
            .spawn(move || {
                let outcome = catch_unwind(AssertUnwindSafe(|| run(&path, password.as_deref(), limits, &tx)));
                let error = match outcome {
                    Ok(Ok(())) => return,
                    Ok(Err(e)) => e,
                    Err(panic) => PdfError::Panic(crate::panic::message(panic.as_ref())),
                };
                let _ = tx.send(Err(error));
            });
        let rx = match spawned {
            Ok(_) => rx,
            Err(e) => {
                let (tx, rx) = sync_channel(1);
                let _ = tx.send(Err(PdfError::Io(e)));
                rx
            }
        };
        Extraction {
            rx,
            deadline: Instant::now() + limits.timeout,
            timeout: limits.timeout,
            finished: false,
        }
    }

    /// The next step, `None` at the end, or an error (after which the extraction is over).
    pub fn next_step(&mut self) -> Option<Result<Extracted, PdfError>> {
        if self.finished {
            return None;
        }
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(remaining) {
            Ok(Ok(step)) => Some(Ok(step)),
            Ok(Err(e)) => {
                self.finished = true;
                Some(Err(e))
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.finished = true;
                None
            }
            Err(RecvTimeoutError::Timeout) => {
                self.finished = true;
                Some(Err(PdfError::Timeout(self.timeout.as_secs())))
            }
        }
    }
}

/// Opens the document and sends its pages, stopping early if the receiver went away.
fn run(
    path: &PathBuf,
    password: Option<&str>,
    limits: Limits,
    tx: &SyncSender<Result<Extracted, PdfError>>,
) -> Result<(), PdfError> {
    let size = std::fs::metadata(path)?.len();
    if size > limits.max_bytes {
        return Err(PdfError::TooLarge {
            size,
            limit: limits.max_bytes,
        });
    }
    let doc = open(path, password, limits)?;
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(PdfError::NoPages);
    }
    let (title, author, created) = read_info(&doc);
    let meta = PdfMetadata {
        title,
        author,
        created,
        page_count: pages.len() as u64,
    };
    if tx.send(Ok(Extracted::Opened(meta))).is_err() {
        return Ok(());
    }
    let mut extractor = Extractor::new(
        &doc,
        lectern_text::Limits {
            max_decompressed: limits.max_decompressed,
            ..lectern_text::Limits::default()
        },
    );
    for (index, (_, &page_id)) in pages.iter().enumerate() {
        let page = extractor.page(page_id);
        let step = Extracted::Page {
            number: index as u32 + 1,
            text: normalise(&page.text),
            headings: page.headings.iter().map(|h| normalise(h)).collect(),
            has_text_layer: page.has_text_layer,
            has_images: page.has_images,
            unmapped_fonts: page.unmapped_fonts,
        };
        if tx.send(Ok(step)).is_err() {
            return Ok(());
        }
    }
    Ok(())
}

/// Loads the document, telling a missing or wrong password apart from a damaged file.
fn open(path: &Path, password: Option<&str>, limits: Limits) -> Result<Document, PdfError> {
    let bytes = std::fs::read(path)?;
    lectern_text::open(&bytes, password, limits.max_decompressed).map_err(|e| match e {
        OpenError::NeedsPassword => PdfError::NeedsPassword,
        OpenError::WrongPassword => PdfError::WrongPassword,
        OpenError::Parse(e) => PdfError::Parse(e.to_string()),
    })
}

/// NFKC (ligatures become letters), control characters become spaces, runs of spaces collapse,
/// and lines are trimmed. Offsets of chunks refer to this normalised text.
pub fn normalise(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in raw.nfkc().collect::<String>().lines() {
        let mut last_space = true;
        let start = out.len();
        for c in line.chars() {
            let c = if c.is_control() || c.is_whitespace() { ' ' } else { c };
            if c == ' ' {
                if !last_space {
                    out.push(' ');
                }
                last_space = true;
            } else {
                out.push(c);
                last_space = false;
            }
        }
        if out.ends_with(' ') {
            out.pop();
        }
        if out.len() > start {
            out.push('\n');
        }
    }
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalise_collapses_spaces_and_ligatures() {
        assert_eq!(
            normalise("  the \u{FB01}rst\t\tline  \n\n  second\u{0}line "),
            "the first line\nsecond line"
        );
    }
}
