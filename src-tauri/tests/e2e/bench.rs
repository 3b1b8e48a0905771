//! The app's figures, each beside its baseline in one run (ignored tests; `scripts/bench-app.sh`
//! runs them): start to an interactive window and idle memory, empty library against 1,000
//! documents; instant search's keystroke to results on 1,000 documents, against its goal; the
//! chat box's input latency, idle against while 50 PDFs are indexing and while 1,000 files are
//! being added (a drop of a large directory). And the window at 10,000 documents against 1,000
//! (`bench_large_library`): start, the tree's first paint, scrolling, opening a folder, the
//! library's state, instant search.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{corpus_pdf, Desktop};
use crate::{invoke, open_quick_search, start, LONG, SHORT};

/// Starts per library: the first is the cold one, the median of all is reported too.
const STARTS: usize = 3;
/// What is typed into the chat box, one key per WebDriver command.
const TYPED: &str = "what did the committee decide about the budget";
/// What is typed into instant search (Ctrl+K), one key per WebDriver command.
const SEARCHED: &str = "budget committee decision";
/// PDFs imported for the latency-under-load figure.
const INDEXED: usize = 50;
/// Files added at once for the latency-during-import figure.
const IMPORTED: usize = 1000;

/// Resident and proportional memory, in MB, of a set of processes.
#[derive(Debug, Clone, Copy, Default)]
struct Memory {
    rss: f64,
    pss: f64,
}

/// A field of a `/proc` file given in kB, in MB.
fn proc_mb(path: &Path, field: &str) -> f64 {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The app started for `home` and its WebKit processes.
fn app_processes(home: &Path) -> Vec<PathBuf> {
    let marker = format!("LECTERN_HOME={}", home.display());
    let all: Vec<(PathBuf, u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let dir = e.ok()?.path();
            let pid: u32 = dir.file_name()?.to_str()?.parse().ok()?;
            let ppid = std::fs::read_to_string(dir.join("status"))
                .ok()?
                .lines()
                .find_map(|l| l.strip_prefix("PPid:")?.trim().parse().ok())?;
            Some((dir, pid, ppid))
        })
        .collect();
    let app = all.iter().find(|(dir, _, _)| {
        let cmd = std::fs::read(dir.join("cmdline")).unwrap_or_default();
        let env = std::fs::read(dir.join("environ")).unwrap_or_default();
        String::from_utf8_lossy(&cmd)
            .split('\0')
            .next()
            .unwrap_or_default()
            .ends_with("lectern-app")
            && String::from_utf8_lossy(&env).split('\0').any(|v| v == marker)
    });
    let Some((dir, pid, _)) = app else { return Vec::new() };
    let mut found = vec![dir.clone()];
    found.extend(all.iter().filter(|(_, _, ppid)| ppid == pid).map(|(d, _, _)| d.clone()));
    found
}

fn memory(home: &Path) -> Memory {
    app_processes(home).iter().fold(Memory::default(), |m, dir| Memory {
        rss: m.rss + proc_mb(&dir.join("status"), "VmRSS:"),
        pss: m.pss + proc_mb(&dir.join("smaps_rollup"), "Pss:"),
    })
}

/// Starts the app `STARTS` times on the library at `home`; returns the first start, the median,
/// the memory after ten idle seconds, and the instant search latencies of the last start.
fn starts(home: &Path) -> (Duration, Duration, Memory, Vec<f64>) {
    let desktop = Desktop::start_with(Some(home), &[]);
    let mut times = Vec::new();
    let mut idle = Memory::default();
    let mut searches = Vec::new();
    for i in 0..STARTS {
        let (session, took) = start(&desktop);
        invoke(&session, "library_state", json!({}));
        times.push(took);
        if i + 1 == STARTS {
            std::thread::sleep(Duration::from_secs(10));
            idle = memory(home);
            searches = search_latencies(&session);
        }
        session.close().unwrap();
    }
    let first = times[0];
    times.sort();
    (first, times[times.len() / 2], idle, searches)
}

/// Milliseconds from each keystroke in instant search (Ctrl+K) to its results shown, as the
/// dialog records them, typing [`SEARCHED`] one key per WebDriver command; sorted. Each key
/// searches the words typed so far over the whole library.
fn search_latencies(session: &crate::webdriver::Session) -> Vec<f64> {
    let input = open_quick_search(session);
    let mut ms = Vec::new();
    let mut typed = String::new();
    for key in SEARCHED.chars() {
        typed.push(key);
        session.type_text(&input, &key.to_string()).unwrap();
        if key == ' ' {
            continue;
        }
        let latency = session
            .wait_until(
                "the search's results",
                &format!(
                    "const d = document.querySelector('dialog.quick-search');
                     return d.dataset.searched === {} && d.dataset.latency;",
                    json!(typed.trim())
                ),
                SHORT,
            )
            .unwrap();
        ms.push(latency.as_str().unwrap().parse().unwrap());
    }
    let shown = session
        .execute(
            "return document.querySelectorAll('dialog.quick-search li.hit').length;",
            json!([]),
        )
        .unwrap();
    println!("(instant search: {shown} passages shown for {SEARCHED:?})");
    ms.sort_by(f64::total_cmp);
    ms
}

/// Milliseconds from each key's first `keydown` to the frame after its `input`, typing [`TYPED`]
/// into the chat box one key per WebDriver command; sorted. With the round trip of each key's
/// command, sorted: a key goes through the window's main thread (the UI process) before the page
/// sees it, so a busy main thread shows there, not in the page's own figure.
fn key_latencies(session: &crate::webdriver::Session) -> (Vec<f64>, Vec<f64>) {
    session
        .execute(
            "window.__latency = [];
             if (window.__listening) return;
             window.__listening = true;
             let pressed = null;
             const box = document.querySelector('form.ask textarea');
             box.addEventListener('keydown', (e) => { if (pressed === null) pressed = e.timeStamp; });
             box.addEventListener('input', () => {
               const t0 = pressed;
               pressed = null;
               requestAnimationFrame(() => setTimeout(() => window.__latency.push(performance.now() - t0), 0));
             });",
            json!([]),
        )
        .unwrap();
    let input = session.wait_for("form.ask textarea", SHORT).unwrap();
    let mut round_trips = Vec::new();
    for key in TYPED.chars() {
        let sent = Instant::now();
        session.type_text(&input, &key.to_string()).unwrap();
        round_trips.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    round_trips.sort_by(f64::total_cmp);
    std::thread::sleep(Duration::from_millis(300));
    let mut ms: Vec<f64> = session
        .execute("return window.__latency;", json!([]))
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .filter_map(serde_json::Value::as_f64)
        .collect();
    assert_eq!(ms.len(), TYPED.chars().count(), "every key reached the page");
    ms.sort_by(f64::total_cmp);
    session
        .execute("document.querySelector('form.ask textarea').value = '';", json!([]))
        .unwrap();
    (ms, round_trips)
}

/// The corpus's PDFs, by name.
fn corpus_pdfs() -> Vec<PathBuf> {
    let mut pdfs: Vec<PathBuf> = std::fs::read_dir(corpus_pdf(""))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .collect();
    pdfs.sort();
    pdfs
}

/// Key latencies (as [`key_latencies`], typed again and again) while [`IMPORTED`] PDFs (the
/// corpus's, each made distinct by a comment after its end) are being added to a new library in
/// one `import_files` call; with how long the import took and how many keys were typed meanwhile.
fn import_latencies(workers: &str) -> ((Vec<f64>, Vec<f64>), Duration) {
    let files = tempfile::tempdir().unwrap();
    let corpus = corpus_pdfs();
    let paths: Vec<PathBuf> = (0..IMPORTED)
        .map(|i| {
            let source = &corpus[i % corpus.len()];
            let mut bytes = std::fs::read(source).unwrap();
            bytes.extend_from_slice(format!("\n% copy {i}\n").as_bytes());
            let path = files
                .path()
                .join(format!("{i:04}-{}", source.file_name().unwrap().to_string_lossy()));
            std::fs::write(&path, bytes).unwrap();
            path
        })
        .collect();
    let home = tempfile::tempdir().unwrap();
    let desktop = Desktop::start_with(Some(home.path()), &[("LECTERN_WORKERS", workers)]);
    let (session, _) = start(&desktop);
    key_latencies(&session);
    session
        .execute(
            "window.__imported = null;
             window.__TAURI_INTERNALS__.invoke('import_files', { paths: arguments[0], folder: 'Personal Knowledge' })
               .then((ok) => { window.__imported = ok.added.length; }, (err) => { window.__imported = String(err); });",
            json!([paths]),
        )
        .unwrap();
    let started = Instant::now();
    let imported = |s: &crate::webdriver::Session| s.execute("return window.__imported;", json!([])).unwrap();
    let (mut page, mut trips) = (Vec::new(), Vec::new());
    while imported(&session).is_null() {
        assert!(started.elapsed() < LONG, "the import did not end");
        let (p, t) = key_latencies(&session);
        page.extend(p);
        trips.extend(t);
    }
    let took = started.elapsed();
    assert_eq!(imported(&session), json!(IMPORTED), "every file was added");
    assert!(!page.is_empty(), "the import ended before the typing began");
    session.close().unwrap();
    page.sort_by(f64::total_cmp);
    trips.sort_by(f64::total_cmp);
    ((page, trips), took)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn busy_documents(session: &crate::webdriver::Session) -> usize {
    invoke(session, "library_state", json!({}))["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["status"] == "queued" || d["status"] == "indexing")
        .count()
}

#[test]
#[ignore = "a benchmark: scripts/bench-app.sh"]
fn bench_app() {
    let library = PathBuf::from(
        std::env::var_os("LECTERN_BENCH_LIBRARY").expect("LECTERN_BENCH_LIBRARY names a library of 1,000 documents"),
    );
    let empty = tempfile::tempdir().unwrap();
    let (empty_first, empty_median, empty_idle, _) = starts(empty.path());
    let (full_first, full_median, full_idle, searches) = starts(&library);

    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(4)
        .to_string();
    let loaded = tempfile::tempdir().unwrap();
    let desktop = Desktop::start_with(Some(loaded.path()), &[("LECTERN_WORKERS", &workers)]);
    let (session, _) = start(&desktop);
    let (idle_keys, idle_trips) = key_latencies(&session);
    let mut pdfs = corpus_pdfs();
    pdfs.truncate(INDEXED);
    invoke(
        &session,
        "import_files",
        json!({ "paths": pdfs, "folder": "Personal Knowledge" }),
    );
    let started = Instant::now();
    while busy_documents(&session) == 0
        || invoke(&session, "library_state", json!({}))["documents"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["status"] != "indexing")
    {
        assert!(started.elapsed() < LONG, "indexing did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let busy_before = busy_documents(&session);
    let (loaded_keys, loaded_trips) = key_latencies(&session);
    let busy_after = busy_documents(&session);
    session.close().unwrap();
    let ((import_keys, import_trips), import_took) = import_latencies(&workers);

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "\nLectern desktop app (debug build, WebKitGTK under Xvfb, {} cores)",
        workers
    );
    println!("{:<44} {:>24} {:>28}", "", "baseline", "measured");
    println!(
        "{:<44} {:>24} {:>28}",
        "start to interactive window: first, ms",
        format!("empty: {:.0}", ms(empty_first)),
        format!("1,000 docs: {:.0}", ms(full_first))
    );
    println!(
        "{:<44} {:>24} {:>28}",
        format!("start to interactive window: median of {STARTS}, ms"),
        format!("empty: {:.0}", ms(empty_median)),
        format!("1,000 docs: {:.0}", ms(full_median))
    );
    println!(
        "{:<44} {:>24} {:>28}",
        "idle memory, app + WebKit processes: RSS, MB",
        format!("empty: {:.0}", empty_idle.rss),
        format!("1,000 docs: {:.0}", full_idle.rss)
    );
    println!(
        "{:<44} {:>24} {:>28}",
        "idle memory, app + WebKit processes: PSS, MB",
        format!("empty: {:.0}", empty_idle.pss),
        format!("1,000 docs: {:.0}", full_idle.pss)
    );
    let loads = [
        (
            "key to next frame in the chat box",
            &idle_keys,
            "50 PDFs indexing",
            &loaded_keys,
        ),
        (
            "key to next frame in the chat box",
            &idle_keys,
            "1000 files adding",
            &import_keys,
        ),
        ("key command round trip", &idle_trips, "50 indexing", &loaded_trips),
        ("key command round trip", &idle_trips, "1000 adding", &import_trips),
    ];
    for (figure, idle, load, loaded) in loads {
        for (label, p) in [("p50", 0.5), ("p95", 0.95), ("max", 1.0)] {
            println!(
                "{:<44} {:>24} {:>28}",
                format!("{figure}: {label}, ms"),
                format!("idle: {:.1}", percentile(idle, p)),
                format!("{load}: {:.1}", percentile(loaded, p))
            );
        }
    }
    for (label, p) in [("p50", 0.5), ("p95", 0.95), ("max", 1.0)] {
        println!(
            "{:<44} {:>24} {:>28}",
            format!("Ctrl+K keystroke to results: {label}, ms"),
            "goal: 100",
            format!("1,000 docs: {:.1}", percentile(&searches, p))
        );
    }
    println!(
        "(adding {IMPORTED} files took {:.1} s, {} keys typed meanwhile)",
        import_took.as_secs_f64(),
        import_keys.len()
    );
    println!(
        "(documents queued or indexing: {busy_before} before the typing, {busy_after} after; {} workers)",
        workers
    );
    assert!(
        busy_after > 0,
        "indexing finished before the typing did: the load figure would be idle"
    );
}

/// The window's figures on one library (see [`bench_large_library`]).
struct WindowFigures {
    documents: usize,
    start_first: Duration,
    start_median: Duration,
    /// Milliseconds from the page's start to the tree drawn with the library (`library-drawn`).
    first_paint: f64,
    /// Milliseconds of `library_state` called from the page, the whole library and what changed
    /// after a change, sorted.
    state: Vec<f64>,
    state_changes: Vec<f64>,
    /// Milliseconds from a scroll of the tree by most of its height to the frame after, sorted.
    scroll: Vec<f64>,
    /// Milliseconds from a click on the largest folder's disclosure to the frame after (closing
    /// and opening it again in turn), sorted.
    toggle: Vec<f64>,
    searches: Vec<f64>,
    idle: Memory,
}

/// Scrolls `#library` down by most of its height `steps` times, then back to the top, and
/// returns each step's milliseconds to the next frame (a frame drawn, plus one task).
const SCROLL_SCRIPT: &str = "
    const done = arguments[arguments.length - 1];
    const scroller = document.getElementById('library');
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    (async () => {
      const ms = [];
      for (let i = 0; i < arguments[0]; i++) {
        const t0 = performance.now();
        scroller.scrollTop += scroller.clientHeight * 0.9;
        await frame();
        ms.push(performance.now() - t0);
      }
      scroller.scrollTop = 0;
      await frame();
      done(ms);
    })();";

/// Clicks the disclosure of the folder holding the most rows `times` times (closing and opening
/// it in turn) and returns each click's milliseconds to the next frame.
const TOGGLE_SCRIPT: &str = "
    const done = arguments[arguments.length - 1];
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    (async () => {
      const ms = [];
      for (let i = 0; i < arguments[0]; i++) {
        const folders = [...document.querySelectorAll('#library li.folder')];
        const largest = folders.reduce((a, b) =>
          Number(b.querySelector('.count')?.textContent.replace(/,/g, '') || 0) >
          Number(a.querySelector('.count')?.textContent.replace(/,/g, '') || 0) ? b : a);
        const t0 = performance.now();
        largest.querySelector('.disclosure').dispatchEvent(new MouseEvent('click', { bubbles: true }));
        await frame();
        ms.push(performance.now() - t0);
      }
      done(ms);
    })();";

/// Milliseconds of `library_state` called from the page `times` times: the whole library (as the
/// window's first look), then with the stamp of the view before after a change (a folder made,
/// as the window looks after each change).
const STATE_SCRIPT: &str = "
    const done = arguments[arguments.length - 1];
    const invoke = window.__TAURI_INTERNALS__.invoke;
    (async () => {
      const [whole, changes] = [[], []];
      for (let i = 0; i < arguments[0]; i++) {
        let t0 = performance.now();
        const view = await invoke('library_state', {});
        whole.push(performance.now() - t0);
        await invoke('create_folder', { path: `bench-${Date.now()}-${i}` });
        t0 = performance.now();
        const update = await invoke('library_state', { known: view.stamp });
        changes.push(performance.now() - t0);
        if (!update.partial) throw new Error('the look after a change was not partial');
      }
      done([whole, changes]);
    })();";

fn sorted_ms(value: Value) -> Vec<f64> {
    let mut ms: Vec<f64> = value.as_array().unwrap().iter().filter_map(Value::as_f64).collect();
    ms.sort_by(f64::total_cmp);
    ms
}

/// Starts the app on `home` [`STARTS`] times and measures the window on the last start.
fn window_figures(home: &Path) -> WindowFigures {
    let desktop = Desktop::start_with(Some(home), &[]);
    let mut times = Vec::new();
    let mut figures = None;
    for i in 0..STARTS {
        let (session, took) = start(&desktop);
        times.push(took);
        if i + 1 == STARTS {
            let first_paint = session
                .wait_until(
                    "the library drawn",
                    "const m = performance.getEntriesByName('library-drawn')[0]; return m && m.startTime;",
                    SHORT,
                )
                .unwrap()
                .as_f64()
                .unwrap();
            std::thread::sleep(Duration::from_secs(10));
            let idle = memory(home);
            let documents = invoke(&session, "library_state", json!({}))["documents"]
                .as_array()
                .unwrap()
                .len();
            let looks = session.execute_async(STATE_SCRIPT, json!([5])).unwrap();
            let (state, state_changes) = (sorted_ms(looks[0].clone()), sorted_ms(looks[1].clone()));
            let scroll = sorted_ms(session.execute_async(SCROLL_SCRIPT, json!([30])).unwrap());
            let toggle = sorted_ms(session.execute_async(TOGGLE_SCRIPT, json!([10])).unwrap());
            let searches = search_latencies(&session);
            figures = Some(WindowFigures {
                documents,
                // The starts, once all are done.
                start_first: Duration::ZERO,
                start_median: Duration::ZERO,
                first_paint,
                state,
                state_changes,
                scroll,
                toggle,
                searches,
                idle,
            });
        }
        session.close().unwrap();
    }
    let mut figures = figures.unwrap();
    figures.start_first = times[0];
    times.sort();
    figures.start_median = times[times.len() / 2];
    figures
}

#[test]
#[ignore = "a benchmark: scripts/bench-app.sh --large"]
fn bench_large_library() {
    let library =
        |var: &str| PathBuf::from(std::env::var_os(var).unwrap_or_else(|| panic!("{var} names a library to open")));
    let small = window_figures(&library("LECTERN_BENCH_LIBRARY"));
    let large = window_figures(&library("LECTERN_BENCH_LARGE_LIBRARY"));
    let docs = |f: &WindowFigures| format!("{} docs", f.documents);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("\nLectern's window on a large library (debug build, WebKitGTK under Xvfb)");
    println!("{:<44} {:>24} {:>28}", "", "baseline", "measured");
    let row = |figure: &str, a: f64, b: f64| {
        println!(
            "{:<44} {:>24} {:>28}",
            figure,
            format!("{}: {a:.1}", docs(&small)),
            format!("{}: {b:.1}", docs(&large))
        );
    };
    row(
        "start to interactive window: first, ms",
        ms(small.start_first),
        ms(large.start_first),
    );
    row(
        &format!("start to interactive window: median of {STARTS}, ms"),
        ms(small.start_median),
        ms(large.start_median),
    );
    row("page start to the tree drawn, ms", small.first_paint, large.first_paint);
    for (figure, a, b) in [
        ("library_state from the page: whole", &small.state, &large.state),
        (
            "library_state from the page: a change",
            &small.state_changes,
            &large.state_changes,
        ),
        ("scroll by a screen to next frame", &small.scroll, &large.scroll),
        (
            "close/open the largest folder to next frame",
            &small.toggle,
            &large.toggle,
        ),
        ("Ctrl+K keystroke to results", &small.searches, &large.searches),
    ] {
        for (label, p) in [("p50", 0.5), ("p95", 0.95), ("max", 1.0)] {
            row(&format!("{figure}: {label}, ms"), percentile(a, p), percentile(b, p));
        }
    }
    row(
        "idle memory, app + WebKit processes: RSS, MB",
        small.idle.rss,
        large.idle.rss,
    );
    row(
        "idle memory, app + WebKit processes: PSS, MB",
        small.idle.pss,
        large.idle.pss,
    );
}
