//! `lectern-bench ocr DIR`: OCR of scanned copies of PDFs with a text layer (made by
//! `scripts/make-scans.py`), against the text layer of the originals. Lectern reads each scanned
//! page the way indexing does (PDFium renders it, Tesseract finds which way is up and reads it, in
//! a worker process of its own); the baseline is the `tesseract` command on the same page images,
//! as `ocrmypdf` runs it. Both read as many pages at once as there are cores, each on one thread.
//! Printed per scanned copy and per variant (300 dpi, 200 dpi, skewed): word F1 against the
//! original's text, pages per second, and the peak memory of one page's process.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lectern::pdf::{Extracted, OcrSettings, PdfReader};
use lectern::{Error, LibraryConfig};
use lectern_text::score::WordCounts;
use serde::Deserialize;

use crate::args::OcrBenchArgs;
use crate::hostile::peak_memory_of;

/// One scanned copy, as `scans.json` lists it.
#[derive(Debug, Deserialize)]
struct Scan {
    original: PathBuf,
    scan: String,
    images: String,
    variant: String,
    pages: u32,
}

/// What one reader made of one scanned copy.
#[derive(Default, Clone, Copy)]
struct Read {
    words: WordCounts,
    time: Duration,
    peak: u64,
}

pub fn run(config: LibraryConfig, args: &OcrBenchArgs) -> anyhow::Result<ExitCode> {
    let listing = args.dir.join("scans.json");
    let text = std::fs::read_to_string(&listing).map_err(Error::io(&listing))?;
    let scans: Vec<Scan> = serde_json::from_str(&text)?;
    let settings = config
        .ocr_settings()
        .ok_or_else(|| anyhow::anyhow!("OCR is off (LECTERN_OCR=off)"))?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "lectern-bench ocr: {} scanned copies from {}, {threads} pages at once, one thread each\n",
        scans.len(),
        args.dir.display()
    );
    println!(
        "  {:<48} {:>5} {:>8} {:>10} {:>8} {:>10} {:>9} {:>9}",
        "scanned copy", "pages", "F1", "tesseract", "pages/s", "tesseract", "peak MB", "tesseract"
    );
    let mut totals: Vec<(String, Read, Read, u32)> = Vec::new();
    for scan in &scans {
        let reference = original_pages(&config.reader, &scan.original, scan.pages)?;
        let images: Vec<PathBuf> = (1..=scan.pages)
            .map(|n| args.dir.join(&scan.images).join(format!("page-{n:03}.png")))
            .collect();
        let theirs = measure(threads, &reference, |i| tesseract(&images[i]));
        let pdf = args.dir.join(&scan.scan);
        let ours = measure(threads, &reference, |i| {
            lectern_ocr(&config.reader, &pdf, i as u32 + 1, &settings)
        });
        println!(
            "  {:<48} {:>5} {:>8.3} {:>10.3} {:>8.2} {:>10.2} {:>9} {:>9}",
            scan.scan,
            scan.pages,
            ours.words.f1(),
            theirs.words.f1(),
            rate(scan.pages, ours.time),
            rate(scan.pages, theirs.time),
            ours.peak >> 20,
            theirs.peak >> 20
        );
        match totals.iter_mut().find(|(variant, ..)| *variant == scan.variant) {
            Some((_, o, t, pages)) => {
                add(o, &ours);
                add(t, &theirs);
                *pages += scan.pages;
            }
            None => totals.push((scan.variant.clone(), ours, theirs, scan.pages)),
        }
    }
    println!("\ntotals by variant (F1 over all words; speed over all pages)");
    for (variant, ours, theirs, pages) in &totals {
        let (ours_rate, theirs_rate) = (rate(*pages, ours.time), rate(*pages, theirs.time));
        println!(
            "  {variant:<8} {pages:>4} pages  F1 {:.3} (tesseract {:.3})  {ours_rate:.2} pages/s (tesseract {theirs_rate:.2}, ratio {:.2}x)  peak {} MB (tesseract {} MB)",
            ours.words.f1(),
            theirs.words.f1(),
            ours_rate / theirs_rate.max(1e-9),
            ours.peak >> 20,
            theirs.peak >> 20
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn add(total: &mut Read, read: &Read) {
    total.words.matched += read.words.matched;
    total.words.extracted += read.words.extracted;
    total.words.reference += read.words.reference;
    total.time += read.time;
    total.peak = total.peak.max(read.peak);
}

fn rate(pages: u32, time: Duration) -> f64 {
    f64::from(pages) / time.as_secs_f64().max(1e-9)
}

/// The text of the first `pages` pages of `original`, from its text layer.
fn original_pages(reader: &PdfReader, original: &Path, pages: u32) -> anyhow::Result<Vec<String>> {
    let mut extraction = reader.extract(original, None);
    let mut texts = Vec::new();
    while let Some(step) = extraction.next_step() {
        if let Extracted::Page { text, .. } = step? {
            texts.push(text);
        }
    }
    texts.truncate(pages as usize);
    Ok(texts)
}

/// Reads every page with `read` (the page's text and its process's peak memory), `threads` at
/// once; the words against `reference` and the time it all took.
fn measure(threads: usize, reference: &[String], read: impl Fn(usize) -> (String, u64) + Sync) -> Read {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(vec![(String::new(), 0u64); reference.len()]);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= reference.len() {
                    break;
                }
                let page = read(i);
                if let Ok(mut results) = results.lock() {
                    results[i] = page;
                }
            });
        }
    });
    let time = started.elapsed();
    let results = results.into_inner().unwrap_or_default();
    let mut words = WordCounts::default();
    for ((text, _), reference) in results.iter().zip(reference) {
        words.add_page(text, reference);
    }
    Read {
        words,
        time,
        peak: results.iter().map(|(_, peak)| *peak).max().unwrap_or(0),
    }
}

/// Page `number` of the scanned copy `pdf`, read as indexing reads it.
fn lectern_ocr(reader: &PdfReader, pdf: &Path, number: u32, settings: &OcrSettings) -> (String, u64) {
    let mut worker = reader.recognise(pdf, None, number, settings);
    let text = match worker.next_step() {
        Some(Ok(Extracted::Recognised { page, .. })) => page.text,
        other => {
            eprintln!("{} page {number}: {other:?}", pdf.display());
            String::new()
        }
    };
    while worker.next_step().is_some() {}
    (text, worker.worker_peak_memory().unwrap_or(0))
}

/// The page image `png` read by the `tesseract` command on one thread, with its peak memory
/// (its own `VmHWM`, read while it runs).
fn tesseract(png: &Path) -> (String, u64) {
    let child = Command::new("tesseract")
        .arg(png)
        .arg("stdout")
        .args(["--psm", "3", "-l", "eng"])
        .env("OMP_THREAD_LIMIT", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) => {
            eprintln!("tesseract: {e}; install it with: apt-get install tesseract-ocr");
            return (String::new(), 0);
        }
    };
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let reader = child.stdout.take().map(|mut out| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut out, &mut text);
            text
        })
    });
    while matches!(child.try_wait(), Ok(None)) {
        peak = peak.max(peak_memory_of(&status));
        std::thread::sleep(Duration::from_millis(5));
    }
    let text = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    (text, peak)
}
