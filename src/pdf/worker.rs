//! The PDF worker: this same program, run again as a child process to read one untrusted PDF
//! under hard limits, the way browsers and Apache Tika read documents. A file that exhausts the
//! worker's memory, loops, or crashes the parser ends the worker, never the program that asked.
//!
//! Every program that indexes calls [`serve_if_asked`] first thing in `main`. The parent sends
//! one [`Request`] (a JSON line on the worker's stdin, so a password never shows on a command
//! line); the worker sets its own limits, then answers with one [`Reply`] per line on stdout and
//! ends with [`Reply::Done`] or [`Reply::Failed`]. A worker that stops without either died.

use std::io::{BufRead, Read, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::ocr::OcrSettings;
use super::read::{read, recognise, words, Extracted};
use super::{Limits, PdfError};

/// The first argument that turns a program into a PDF worker.
pub const WORKER_ARG: &str = "--lectern-pdf-worker";

/// The most a request line may hold (a path and a password).
const MAX_REQUEST: u64 = 1 << 20;

/// What the parent asks of a worker.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Request {
    pub path: PathBuf,
    pub password: Option<String>,
    pub limits: Limits,
    pub task: Task,
}

/// What a worker does with the file.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Task {
    /// Reads its metadata and the text of every page, with PDFium (the library at `pdfium`) as
    /// the second reader if given.
    Text { pdfium: Option<PathBuf> },
    /// Reads one page by OCR.
    Recognise { page: u32, settings: OcrSettings },
    /// Finds where each word of one page's text is.
    Words { page: u32 },
}

/// One line of a worker's answer.
#[derive(Debug, Serialize, Deserialize)]
pub(super) enum Reply {
    Step(Extracted),
    Failed(PdfError),
    Done,
}

/// Runs as a PDF worker, and exits, when the program was started as one ([`WORKER_ARG`]);
/// otherwise returns at once.
pub fn serve_if_asked() {
    if std::env::args_os().nth(1).is_some_and(|arg| arg == WORKER_ARG) {
        std::process::exit(serve());
    }
}

fn serve() -> i32 {
    let mut line = String::new();
    if std::io::stdin().lock().take(MAX_REQUEST).read_line(&mut line).is_err() {
        return 2;
    }
    let Ok(request) = serde_json::from_str::<Request>(&line) else {
        return 2;
    };
    restrict(&request.limits);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut send = |reply: &Reply| -> bool {
        serde_json::to_writer(&mut out, reply).is_ok() && out.write_all(b"\n").is_ok() && out.flush().is_ok()
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let (path, password) = (&request.path, request.password.as_deref());
        let mut emit = |step| send(&Reply::Step(step));
        match &request.task {
            Task::Text { pdfium } => read(path, password, &request.limits, pdfium.as_deref(), &mut emit),
            Task::Recognise { page, settings } => recognise(path, password, *page, settings, &mut emit),
            Task::Words { page } => words(path, password, &request.limits, *page, &mut emit),
        }
    }));
    let last = match outcome {
        Ok(Ok(())) => Reply::Done,
        Ok(Err(e)) => Reply::Failed(e),
        Err(panic) => Reply::Failed(PdfError::Crashed(crate::panic::message(panic.as_ref()))),
    };
    send(&last);
    0
}

/// Caps the worker's own memory (private writable mappings: the heap, however allocated), its
/// CPU time (the kernel ends it past the limit, even if its parent is gone), and core dumps.
fn restrict(limits: &Limits) {
    let cpu = limits.timeout.as_secs().max(1);
    for (resource, soft, hard) in [
        (libc::RLIMIT_DATA, limits.max_memory, limits.max_memory),
        (libc::RLIMIT_CPU, cpu, cpu + 5),
        (libc::RLIMIT_CORE, 0, 0),
    ] {
        let limit = libc::rlimit {
            rlim_cur: soft as libc::rlim_t,
            rlim_max: hard as libc::rlim_t,
        };
        // SAFETY: `limit` is a valid rlimit that outlives the call. A limit the kernel refuses
        // leaves the worker with its parent's, and the parent's wall-clock limit still holds.
        unsafe {
            libc::setrlimit(resource, &limit);
        }
    }
}
