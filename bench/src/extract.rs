//! `lectern-bench extract`: extraction quality and speed on the repository's corpus, file by file. For
//! each file: whether the manifest's sample phrase is on its page, word-level F1 against poppler's
//! `pdftotext` output (a bag of words per page), and pages per second for Lectern and for
//! `pdftotext` measured in the same run, and how many of its pages without text OCR read; then F1
//! averaged by category group, the speed ratio, and the pages OCR read.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use lectern::pdf::{is_usable, Extracted, OcrSettings, PdfReader};
use lectern::Error;
use lectern_text::score::{contains_phrase, reference_pages, WordCounts};
use serde::Deserialize;

use crate::args::ExtractBenchArgs;

/// One file of the corpus manifest, as far as the benchmark reads it.
#[derive(Debug, Deserialize)]
struct Entry {
    file: String,
    category: String,
    expect: String,
    pages: Option<u64>,
    user_password: Option<String>,
    sample_text: Option<String>,
    sample_page: Option<usize>,
}

/// What was measured for one file.
struct Row {
    sample: Option<bool>,
    words: Option<WordCounts>,
    pages: usize,
    ours: Duration,
    poppler: Option<Duration>,
    /// Pages without usable text, and how many of them OCR read text on, in how long.
    needing_ocr: usize,
    read_by_ocr: usize,
    ocr_time: Duration,
    error: Option<String>,
}

/// Where we differ from poppler because we think poppler is wrong, by file.
const DISAGREEMENTS: &[(&str, &str)] = &[
    (
        "script-ar-habibi.pdf",
        "it writes Arabic in visual order (words compared in either order)",
    ),
    (
        "script-ar-habibi-oneline-cmap.pdf",
        "it writes Arabic in visual order (words compared in either order)",
    ),
    (
        "rot-arabic-90-180-270-0.pdf",
        "it writes Arabic in visual order (words compared in either order)",
    ),
    (
        "text-geotopo-117p-german.pdf",
        "math: it writes A0 for A′, control codes for brackets, splits σ(a1 )",
    ),
];

pub fn run(args: &ExtractBenchArgs, ocr: Option<OcrSettings>) -> anyhow::Result<ExitCode> {
    let corpus = &args.corpus;
    let manifest_path = corpus.join("manifest.json");
    let manifest = std::fs::read_to_string(&manifest_path).map_err(Error::io(&manifest_path))?;
    let entries: Vec<Entry> = serde_json::from_str(&manifest)
        .map_err(|e| Error::io(&manifest_path)(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    println!(
        "lectern-bench extract: {} PDFs from {}\n",
        entries.len(),
        corpus.display()
    );
    println!(
        "  {:<52} {:<11} {:>6} {:>6} {:>7} {:>9} {:>9} {:>7}  note",
        "file", "category", "pages", "sample", "F1", "ours p/s", "pdftotext", "OCR'd"
    );
    let mut rows = Vec::new();
    for entry in &entries {
        let row = measure(corpus, entry, ocr.as_ref());
        print_row(entry, &row);
        rows.push(row);
    }
    print_totals(&entries, &rows);
    Ok(ExitCode::SUCCESS)
}

/// The password to open a file with: the manifest's user password, where it gives one.
fn password(entry: &Entry) -> Option<String> {
    entry.user_password.clone().filter(|p| !p.is_empty())
}

fn measure(corpus: &Path, entry: &Entry, ocr: Option<&OcrSettings>) -> Row {
    let pdf = corpus.join("pdfs").join(&entry.file);
    let started = Instant::now();
    let mut extraction = PdfReader::default().extract(&pdf, password(entry));
    let mut pages = Vec::new();
    let mut error = None;
    while let Some(step) = extraction.next_step() {
        match step {
            Ok(Extracted::Page { text, .. }) => pages.push(text),
            Ok(_) => {}
            Err(e) => error = Some(e.to_string()),
        }
    }
    let ours = started.elapsed();
    let needing: Vec<u32> = (1..=pages.len() as u32)
        .filter(|&n| !is_usable(&pages[n as usize - 1]))
        .collect();
    let started = Instant::now();
    let read_by_ocr = ocr.map_or(0, |settings| {
        needing
            .iter()
            .filter(|&&n| {
                let mut worker = PdfReader::default().recognise(&pdf, password(entry), n, settings);
                matches!(worker.next_step(), Some(Ok(Extracted::Recognised { page, .. })) if is_usable(&page.text))
            })
            .count()
    });
    let ocr_time = started.elapsed();
    let sample = match (&entry.sample_text, entry.sample_page, entry.expect.as_str()) {
        (Some(phrase), Some(page), "text") => Some(
            page.checked_sub(1)
                .and_then(|i| pages.get(i))
                .is_some_and(|text| contains_phrase(text, phrase)),
        ),
        _ => None,
    };
    let reference = expected_path(corpus, &entry.file);
    let words = std::fs::read_to_string(&reference).ok().map(|reference| {
        let mut counts = WordCounts::default();
        let reference = reference_pages(&reference);
        for i in 0..pages.len().max(reference.len()) {
            let ours = pages.get(i).map_or("", String::as_str);
            counts.add_page(ours, reference.get(i).copied().unwrap_or(""));
        }
        counts
    });
    Row {
        sample,
        words,
        pages: pages.len(),
        ours,
        poppler: time_pdftotext(&pdf, password(entry).as_deref()),
        needing_ocr: needing.len(),
        read_by_ocr,
        ocr_time,
        error,
    }
}

fn expected_path(corpus: &Path, file: &str) -> PathBuf {
    let stem = file.strip_suffix(".pdf").unwrap_or(file);
    corpus.join("expected").join(format!("{stem}.pdftotext.txt"))
}

/// How long `pdftotext` takes on the file (None when it fails or is not installed).
fn time_pdftotext(pdf: &Path, password: Option<&str>) -> Option<Duration> {
    let mut command = Command::new("pdftotext");
    if let Some(password) = password {
        command.arg("-upw").arg(password);
    }
    command.arg(pdf).arg("-").stdout(Stdio::null()).stderr(Stdio::null());
    let started = Instant::now();
    let status = command.status().ok()?;
    status.success().then(|| started.elapsed())
}

fn rate(pages: usize, time: Duration) -> String {
    if pages == 0 {
        return "-".into();
    }
    format!("{:.0}", pages as f64 / time.as_secs_f64().max(1e-9))
}

fn print_row(entry: &Entry, row: &Row) {
    let sample = match row.sample {
        Some(true) => "yes",
        Some(false) => "NO",
        None => "-",
    };
    let f1 = row.words.map_or("-".into(), |w| format!("{:.3}", w.f1()));
    let poppler = row.poppler.map_or("-".into(), |t| rate(row.pages, t));
    let mut note = row.error.clone().unwrap_or_default();
    if let Some((_, why)) = DISAGREEMENTS.iter().find(|(file, _)| *file == entry.file) {
        note = format!("poppler differs: {why}");
    }
    if entry.pages.is_some_and(|p| p != row.pages as u64) && entry.expect == "text" {
        note = format!("{} of {:?} pages; {note}", row.pages, entry.pages.unwrap_or(0));
    }
    note.truncate(note.floor_char_boundary(70));
    let ocr = if row.needing_ocr == 0 {
        "-".to_string()
    } else {
        format!("{}/{}", row.read_by_ocr, row.needing_ocr)
    };
    println!(
        "  {:<52} {:<11} {:>6} {:>6} {:>7} {:>9} {:>9} {:>7}  {note}",
        entry.file,
        entry.category,
        row.pages,
        sample,
        f1,
        rate(row.pages, row.ours),
        poppler,
        ocr
    );
}

/// The mean F1 of the files of the given categories that have a reference.
fn mean_f1(entries: &[Entry], rows: &[Row], categories: &[&str]) -> (f64, usize) {
    let scores: Vec<f64> = entries
        .iter()
        .zip(rows)
        .filter(|(e, _)| categories.contains(&e.category.as_str()) && e.expect == "text")
        .filter_map(|(_, r)| r.words.map(|w| w.f1()))
        .collect();
    (scores.iter().sum::<f64>() / scores.len().max(1) as f64, scores.len())
}

fn print_totals(entries: &[Entry], rows: &[Row]) {
    let samples: Vec<bool> = rows.iter().filter_map(|r| r.sample).collect();
    let found = samples.iter().filter(|&&s| s).count();
    println!("\ntotals");
    println!("  sample phrases found             {found} of {}", samples.len());
    for (name, categories, goal) in [
        (
            "text, multicolumn, structure",
            &["text", "multicolumn", "structure"][..],
            0.95,
        ),
        ("non-latin", &["non-latin"][..], 0.90),
        ("all files with a reference", &[][..], 0.0),
    ] {
        let (f1, files) = if categories.is_empty() {
            let all: Vec<&str> = entries.iter().map(|e| e.category.as_str()).collect();
            mean_f1(entries, rows, &all)
        } else {
            mean_f1(entries, rows, categories)
        };
        let goal = if goal > 0.0 {
            format!("(goal >= {goal:.2})")
        } else {
            String::new()
        };
        println!("  F1, {name:<29} {f1:.3} over {files} files {goal}");
    }
    // Speed over the files both sides read, text category.
    let (mut pages, mut ours, mut poppler) = (0usize, Duration::ZERO, Duration::ZERO);
    for (entry, row) in entries.iter().zip(rows) {
        if let (true, Some(t)) = (entry.category == "text", row.poppler) {
            pages += row.pages;
            ours += row.ours;
            poppler += t;
        }
    }
    let ours_rate = pages as f64 / ours.as_secs_f64().max(1e-9);
    let poppler_rate = pages as f64 / poppler.as_secs_f64().max(1e-9);
    println!(
        "  speed, text files ({pages} pages)    {ours_rate:.0} pages/s, pdftotext {poppler_rate:.0} pages/s, ratio {:.2}x",
        ours_rate / poppler_rate.max(1e-9)
    );
    let needing: usize = rows.iter().map(|r| r.needing_ocr).sum();
    let read: usize = rows.iter().map(|r| r.read_by_ocr).sum();
    let time: Duration = rows.iter().map(|r| r.ocr_time).sum();
    println!(
        "  pages without text read by OCR   {read} of {needing}, {:.2} pages/s (one at a time)",
        needing as f64 / time.as_secs_f64().max(1e-9)
    );
}
