//! `lectern-bench watch`: how long a PDF saved into a linked directory takes to become
//! searchable, beside importing the same kind of file directly; what the idle watcher costs in
//! CPU on a directory of thousands of files, beside the same library with no watcher; and what a
//! catch-up sync of that directory costs (at link time, and at a start with nothing changed).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lectern::jobs::RunMode;
use lectern::pdf::text_pdf;
use lectern::search::{SearchMode, SearchRequest};
use lectern::{Error, Library, LibraryConfig};

use crate::args::WatchBenchArgs;

/// CPU time (user + system) this process has used.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at ") ".
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map_or(vec![], |(_, rest)| rest.split(' ').collect());
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    // utime and stime are fields 14 and 15 of the whole line, 11 and 12 after the name; 100 Hz.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn open(config: &LibraryConfig, home: &Path) -> anyhow::Result<Library> {
    let mut config = config.clone();
    config.home = home.to_path_buf();
    Ok(Library::open(config)?)
}

/// A scratch directory of the benchmark, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir() -> anyhow::Result<Scratch> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("lectern-bench-watch-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
    Ok(Scratch(dir))
}

/// Waits until a keyword search for `word` finds something; the time since `since`.
async fn searchable(library: &Library, word: &str, since: Instant) -> anyhow::Result<Duration> {
    let request = SearchRequest {
        query: word.to_string(),
        scope: Default::default(),
        k: 1,
        mode: SearchMode::Keyword,
        second_stage: false,
    };
    loop {
        if !library.search(&request).await?.hits.is_empty() {
            return Ok(since.elapsed());
        }
        if since.elapsed() > Duration::from_secs(120) {
            return Err(anyhow::anyhow!("{word} was not searchable within two minutes"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

pub async fn run(config: LibraryConfig, args: &WatchBenchArgs) -> anyhow::Result<()> {
    // Landing to searchable, against a direct import, with the indexer running.
    let home = temp_dir()?;
    let library = open(&config, home.path())?;
    library.create_folder("Linked")?;
    library.create_folder("Imported")?;
    let linked = temp_dir()?;
    let outside = temp_dir()?;
    library.link_directory(linked.path(), "Linked", false)?;
    let watcher = library.watch()?;
    let indexer = {
        let library = library.clone();
        tokio::spawn(async move { library.run_indexer(RunMode::Forever).await })
    };
    let (mut watched, mut imported) = (Vec::new(), Vec::new());
    for round in 0..args.rounds {
        let word = format!("lighthousewatched{round}");
        let started = Instant::now();
        std::fs::write(
            linked.path().join(format!("{word}.pdf")),
            text_pdf(&[&format!("The {word} keeps the harbour safe.")]),
        )
        .map_err(Error::io(linked.path()))?;
        watched.push(searchable(&library, &word, started).await?);

        let word = format!("lighthouseimported{round}");
        let path = outside.path().join(format!("{word}.pdf"));
        std::fs::write(&path, text_pdf(&[&format!("The {word} keeps the harbour safe.")])).map_err(Error::io(&path))?;
        let started = Instant::now();
        library.add(&[path], "Imported")?;
        imported.push(searchable(&library, &word, started).await?);
    }
    watcher.stop();
    indexer.abort();

    // A directory of many files: linking it, a catch-up with nothing changed, and the idle watcher.
    let home = temp_dir()?;
    let library = open(&config, home.path())?;
    library.create_folder("Many")?;
    let many = temp_dir()?;
    let per_dir = 100;
    for i in 0..args.files {
        let dir = many.path().join(format!("d{:03}", i / per_dir));
        if i % per_dir == 0 {
            std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        }
        let path = dir.join(format!("f{i:05}.pdf"));
        std::fs::write(&path, text_pdf(&[&format!("File number {i}.")])).map_err(Error::io(&path))?;
    }
    std::thread::sleep(lectern::watch::STABLE_AFTER);
    let started = Instant::now();
    let (link, report) = library.link_directory(many.path(), "Many", false)?;
    let first_sync = started.elapsed();
    let started = Instant::now();
    library.sync_link(link.id)?;
    let catch_up = started.elapsed();

    let idle = Duration::from_secs(args.idle_secs);
    let before = cpu_time();
    std::thread::sleep(idle);
    let without = cpu_time().saturating_sub(before);
    let watcher = library.watch()?;
    std::thread::sleep(Duration::from_secs(3));
    let before = cpu_time();
    std::thread::sleep(idle);
    let with = cpu_time().saturating_sub(before);
    watcher.stop();

    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let share = |d: Duration| 100.0 * d.as_secs_f64() / idle.as_secs_f64();
    println!(
        "\nlinked directories ({} rounds; a file counts as settled {} ms after its last write)",
        args.rounds,
        lectern::watch::STABLE_AFTER.as_millis()
    );
    println!("{:<52} {:>14} {:>14}", "", "baseline", "watched");
    println!(
        "{:<52} {:>14} {:>14}",
        "PDF written to searchable, median ms (import / watch)",
        format!("{:.0}", ms(median(imported.clone()))),
        format!("{:.0}", ms(median(watched.clone())))
    );
    println!(
        "{:<52} {:>14} {:>14}",
        "PDF written to searchable, worst ms",
        format!("{:.0}", ms(imported.iter().copied().max().unwrap_or_default())),
        format!("{:.0}", ms(watched.iter().copied().max().unwrap_or_default()))
    );
    println!(
        "{:<52} {:>14} {:>14}",
        format!(
            "idle CPU over {} s, {} files (no watcher / watcher)",
            args.idle_secs, args.files
        ),
        format!("{:.0} ms {:.2}%", ms(without), share(without)),
        format!("{:.0} ms {:.2}%", ms(with), share(with))
    );
    println!(
        "linking {} files: {:.1} s ({} added); a catch-up with nothing changed: {:.0} ms",
        args.files,
        first_sync.as_secs_f64(),
        report.added,
        ms(catch_up)
    );
    Ok(())
}
