//! Text extraction of an untrusted PDF, page by page, in a worker process ([`super::worker`]) with
//! limits on its memory, CPU time and reading time. The pages stream back over a pipe; a worker
//! that exceeds a limit is killed, and one that dies turns into an error that says why.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::ocr::{OcrSettings, WordBox};
use super::read::Extracted;
use super::worker::{Reply, Request, Task, WORKER_ARG};
use super::PdfError;

/// What a worker says, line by line, as the thread that reads it passes it on.
type Replies = Receiver<Result<Reply, PdfError>>;

/// The most one reply line may hold: a page's text is at most 32 MiB, escaped.
const MAX_REPLY: u64 = 128 << 20;

/// How much of a worker's error output is kept to tell why it died.
const STDERR_TAIL: usize = 16 << 10;

/// Bounds on the work one document may cause.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Limits {
    /// Files larger than this are refused before parsing.
    pub max_bytes: u64,
    /// Time the worker may spend reading (time spent waiting for the caller to take a page does
    /// not count); also its CPU time.
    pub timeout: Duration,
    /// Bytes any one stream (or one page's content) may decompress to.
    pub max_decompressed: usize,
    /// Memory the worker may allocate.
    pub max_memory: u64,
    /// Pages a document may have.
    pub max_pages: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 1 << 30,
            timeout: Duration::from_secs(600),
            max_decompressed: 256 << 20,
            max_memory: 1 << 30,
            max_pages: 50_000,
        }
    }
}

/// How untrusted PDFs are read: the program run as the worker, and the worker's limits.
#[derive(Debug, Clone)]
pub struct PdfReader {
    /// A program that calls [`super::serve_if_asked`] first thing: this one, by default.
    pub program: PathBuf,
    pub limits: Limits,
    /// PDFium (`libpdfium.so`), the second reader of the files lopdf cannot open; none: no
    /// second reader.
    pub pdfium: Option<PathBuf>,
}

impl Default for PdfReader {
    fn default() -> Self {
        PdfReader {
            // A program that cannot name itself fails each extraction with `WorkerStart`.
            program: std::env::current_exe().unwrap_or_default(),
            limits: Limits::default(),
            pdfium: None,
        }
    }
}

impl PdfReader {
    /// Starts extracting `path` (with `password` for an encrypted file) in a worker.
    pub fn extract(&self, path: &Path, password: Option<String>) -> Extraction {
        self.start(Request {
            path: path.to_path_buf(),
            password,
            limits: self.limits,
            task: Task::Text {
                pdfium: self.pdfium.clone(),
            },
        })
    }

    /// Starts reading page `page` of `path` by OCR in a worker of its own, so that a page that
    /// exhausts a limit fails alone.
    pub fn recognise(&self, path: &Path, password: Option<String>, page: u32, settings: &OcrSettings) -> Extraction {
        self.start(Request {
            path: path.to_path_buf(),
            password,
            limits: self.limits,
            task: Task::Recognise {
                page,
                settings: settings.clone(),
            },
        })
    }

    /// Where each word of page `page` of `path` is, placed on the page's text as extraction
    /// stores it; read in a worker, like the text.
    pub fn page_words(&self, path: &Path, password: Option<String>, page: u32) -> Result<Vec<WordBox>, PdfError> {
        let mut extraction = self.start(Request {
            path: path.to_path_buf(),
            password,
            limits: self.limits,
            task: Task::Words { page },
        });
        while let Some(step) = extraction.next_step() {
            if let Extracted::Words { words, .. } = step? {
                return Ok(words);
            }
        }
        Ok(Vec::new())
    }

    fn start(&self, request: Request) -> Extraction {
        let (worker, rx) = match Worker::spawn(&self.program, &request) {
            Ok((worker, rx)) => (Some(worker), rx),
            Err(e) => {
                let (tx, rx) = sync_channel(1);
                let _ = tx.send(Err(PdfError::WorkerStart(format!("{}: {e}", self.program.display()))));
                (None, rx)
            }
        };
        Extraction {
            rx,
            worker,
            limits: self.limits,
            waited: Duration::ZERO,
            received: None,
            finished: false,
            peak_memory: None,
        }
    }
}

/// A running extraction; iterate it with [`Extraction::next_step`]. Dropping it ends the worker.
pub struct Extraction {
    rx: Replies,
    worker: Option<Worker>,
    limits: Limits,
    /// Time spent waiting for the worker: its reading time.
    waited: Duration,
    /// What the worker said while [`Extraction::wait_for_step`] waited, not yet taken.
    received: Option<Result<Result<Reply, PdfError>, RecvTimeoutError>>,
    finished: bool,
    peak_memory: Option<u64>,
}

impl Extraction {
    /// The next step, `None` at the end, or an error (after which the extraction is over).
    pub fn next_step(&mut self) -> Option<Result<Extracted, PdfError>> {
        if self.finished {
            return None;
        }
        let received = match self.received.take() {
            Some(received) => received,
            None => self.receive(self.limits.timeout),
        };
        let last = match received {
            Ok(Ok(Reply::Step(step))) => return Some(Ok(step)),
            Ok(Ok(Reply::Done)) => None,
            Ok(Ok(Reply::Failed(e)) | Err(e)) => Some(Err(e)),
            Err(RecvTimeoutError::Timeout) => Some(Err(PdfError::Timeout(self.limits.timeout.as_secs()))),
            // The worker stopped without its last word: it died.
            Err(RecvTimeoutError::Disconnected) => {
                let exit = self.end(false);
                Some(Err(exit.map_or_else(
                    || PdfError::Crashed("the reader stopped before the end of the file".into()),
                    |exit| exit.death(&self.limits),
                )))
            }
        };
        self.finished = true;
        self.end(true);
        last
    }

    /// Waits up to `wait` for the worker's next word; whether [`Extraction::next_step`] now
    /// returns at once. Lets a caller that reads several workers side by side stop waiting
    /// (dropping the extraction ends its worker).
    pub fn wait_for_step(&mut self, wait: Duration) -> bool {
        if self.finished || self.received.is_some() {
            return true;
        }
        match self.receive(wait) {
            Err(RecvTimeoutError::Timeout) if self.waited < self.limits.timeout => false,
            received => {
                self.received = Some(received);
                true
            }
        }
    }

    /// What the worker says within `wait`, and no later than its reading time allows.
    fn receive(&mut self, wait: Duration) -> Result<Result<Reply, PdfError>, RecvTimeoutError> {
        let began = Instant::now();
        let received = self
            .rx
            .recv_timeout(wait.min(self.limits.timeout.saturating_sub(self.waited)));
        self.waited += began.elapsed();
        received
    }

    /// The most memory the worker held (its peak resident set), once it has ended.
    pub fn worker_peak_memory(&self) -> Option<u64> {
        self.peak_memory
    }

    /// Ends the worker (killing it first if `kill`) and waits for it: how it ended, if it ran.
    fn end(&mut self, kill: bool) -> Option<Exit> {
        let (exit, peak) = self.worker.take()?.reap(kill);
        self.peak_memory = Some(peak);
        Some(exit)
    }
}

impl Drop for Extraction {
    fn drop(&mut self) {
        self.end(true);
    }
}

/// A worker process and the threads that read its output.
struct Worker {
    child: Child,
    stderr: JoinHandle<Vec<u8>>,
}

impl Worker {
    fn spawn(program: &Path, request: &Request) -> std::io::Result<(Worker, Replies)> {
        // Written out first: a request that cannot be (a path that is not UTF-8) starts no process.
        let mut line = serde_json::to_vec(request).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut child = Command::new(program)
            .arg(WORKER_ARG)
            // Tesseract's OpenMP threads: one, as the indexer runs pages side by side.
            .env("OMP_THREAD_LIMIT", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        match Worker::attach(&mut child, &line) {
            Ok((stderr, rx)) => Ok((Worker { child, stderr }, rx)),
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                Err(e)
            }
        }
    }

    /// Sends the request to a started worker and starts the threads that read what it says.
    fn attach(child: &mut Child, line: &[u8]) -> std::io::Result<(JoinHandle<Vec<u8>>, Replies)> {
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(std::io::Error::other("the worker's pipes were not opened"));
        };
        // Small enough for the pipe's buffer; closing stdin tells the worker the request is whole.
        stdin.write_all(line)?;
        drop(stdin);
        // A few pages ahead at most: the worker waits for the caller, and its memory stays bounded.
        let (tx, rx) = sync_channel(4);
        std::thread::Builder::new()
            .name("lectern-pdf-replies".into())
            .spawn(move || read_replies(stdout, &tx))?;
        let stderr = std::thread::Builder::new()
            .name("lectern-pdf-stderr".into())
            .spawn(move || stderr_tail(stderr))?;
        Ok((stderr, rx))
    }

    /// Waits for the worker to end (killing it first if `kill`): how it ended and its peak memory.
    fn reap(mut self, kill: bool) -> (Exit, u64) {
        if kill {
            let _ = self.child.kill();
        }
        let pid = self.child.id() as libc::pid_t;
        let mut status: libc::c_int = 0;
        // SAFETY: an all-zero rusage is a valid value of this plain C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is this process's child and not yet reaped (`Child::wait` is never
        // called); `status` and `usage` are valid for writes for the duration of the call.
        let reaped = loop {
            let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
            if rc != -1 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break rc == pid;
            }
        };
        let stderr = self.stderr.join().unwrap_or_default();
        let exit = Exit {
            status: reaped.then_some(status),
            stderr,
        };
        // Linux reports the peak resident set in kilobytes.
        (exit, usage.ru_maxrss.max(0) as u64 * 1024)
    }
}

/// How a worker ended.
struct Exit {
    status: Option<libc::c_int>,
    stderr: Vec<u8>,
}

impl Exit {
    /// Why a worker that ended without its last word died.
    fn death(&self, limits: &Limits) -> PdfError {
        let said = String::from_utf8_lossy(&self.stderr);
        if said.contains("memory allocation of") || said.contains("out of memory") {
            return PdfError::OutOfMemory {
                limit: limits.max_memory,
            };
        }
        if said.contains("has overflowed its stack") {
            return PdfError::Crashed("its structure nests too deeply".into());
        }
        match self.status {
            Some(status) if libc::WIFSIGNALED(status) => match libc::WTERMSIG(status) {
                libc::SIGXCPU => PdfError::Timeout(limits.timeout.as_secs()),
                // Sent to stop the program (its process group: a terminal's Ctrl-C, a logout, a
                // service manager): not the file's doing.
                signal @ (libc::SIGTERM | libc::SIGINT | libc::SIGHUP) => PdfError::Stopped(format!("signal {signal}")),
                signal => PdfError::Crashed(format!(
                    "the reader was ended by signal {signal}{}",
                    signal_name(signal)
                )),
            },
            Some(status) if libc::WEXITSTATUS(status) != 0 => {
                PdfError::Crashed(format!("the reader exited with status {}", libc::WEXITSTATUS(status)))
            }
            _ => PdfError::Crashed("the reader stopped before the end of the file".into()),
        }
    }
}

/// What a signal that ends a reader usually means, in words.
fn signal_name(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGSEGV | libc::SIGBUS => ": it read memory it should not have",
        libc::SIGABRT => ": it aborted",
        libc::SIGKILL => ": it was killed, perhaps by the system for lack of memory",
        libc::SIGILL => ": it ran an instruction this processor does not have",
        _ => "",
    }
}

/// Passes the worker's replies on until its output ends or the reader of `tx` goes away.
fn read_replies(stdout: ChildStdout, tx: &SyncSender<Result<Reply, PdfError>>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut line = Vec::new();
        let read = (&mut reader).take(MAX_REPLY).read_until(b'\n', &mut line);
        let reply = match read {
            Ok(0) | Err(_) => return,
            Ok(n) if n as u64 >= MAX_REPLY => Err(PdfError::Parse(format!(
                "a page of this PDF holds more than {} MB of text",
                MAX_REPLY >> 20
            ))),
            // A line cut short is a worker that died while writing.
            Ok(_) if !line.ends_with(b"\n") => return,
            Ok(_) => serde_json::from_slice::<Reply>(&line)
                .map_err(|e| PdfError::Crashed(format!("the reader sent a reply that makes no sense: {e}"))),
        };
        let stop = reply.is_err();
        if tx.send(reply).is_err() || stop {
            return;
        }
    }
}

/// The last few kilobytes the worker wrote to its error output.
fn stderr_tail(mut stderr: ChildStderr) -> Vec<u8> {
    let mut tail = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf) {
        if n == 0 {
            break;
        }
        tail.extend_from_slice(&buf[..n]);
        if tail.len() > 2 * STDERR_TAIL {
            tail.drain(..tail.len() - STDERR_TAIL);
        }
    }
    tail
}
