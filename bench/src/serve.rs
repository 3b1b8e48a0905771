//! `lectern-bench serve`: the real `lectern serve` process on the search benchmark's synthetic
//! library, searched over HTTP by concurrent clients (this process's threads): requests per
//! second and latency, beside one client (HTTP's own cost) and the same searches run in this
//! process one at a time; and the server's resident memory at idle, before and after the load.
//! Every search is hybrid with k = 10, its question embedded each time, as `/v1/search` does.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use lectern::search::{SearchMode, SearchRequest};
use lectern::{Error, Library, LibraryConfig};
use serde_json::json;

use crate::args::ServeBenchArgs;
use crate::search::{synthetic_library, Latency};

const K: usize = 10;
const CHUNKS: usize = 300;

/// The server process, ended when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub async fn run(args: &ServeBenchArgs) -> anyhow::Result<()> {
    let (home, questions) = synthetic_library(
        &args.data,
        args.documents,
        CHUNKS,
        Path::new("corpus/expected"),
        args.queries,
    )
    .await?;
    let server = {
        let (home, questions) = (home.clone(), questions.clone());
        let (clients, seconds) = (args.clients, args.seconds);
        tokio::task::spawn_blocking(move || over_http(&home, &questions, clients, seconds)).await??
    };

    // The same searches in this process, one at a time, on the same library.
    let library = Library::open(LibraryConfig::from_env(Some(home.clone()), None)?)?;
    let request = |query: &str| SearchRequest {
        query: query.to_string(),
        scope: Default::default(),
        k: K,
        mode: SearchMode::Hybrid,
        second_stage: false,
    };
    for q in &questions {
        library.search(&request(q)).await?;
    }
    let mut in_process = Vec::new();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(args.seconds) {
        for q in &questions {
            let at = Instant::now();
            library.search(&request(q)).await?;
            in_process.push(at.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let in_process_rps = in_process.len() as f64 / started.elapsed().as_secs_f64();
    let in_process = Latency::of(in_process);

    println!(
        "/v1/search on {} synthetic documents ({} passages each), hybrid, k = {K}, {} questions, {} s per run:",
        args.documents,
        CHUNKS,
        questions.len(),
        args.seconds
    );
    println!("{:<36} {:>10} {:>10} {:>10}", "", "req/s", "p50 ms", "p99 ms");
    let row = |name: &str, rps: f64, l: Latency| println!("{name:<36} {rps:>10.1} {:>10.1} {:>10.1}", l.p50, l.p99);
    row("in-process, one at a time (baseline)", in_process_rps, in_process);
    row("HTTP, 1 client", server.one.0, server.one.1);
    row(&format!("HTTP, {} clients", args.clients), server.many.0, server.many.1);
    println!(
        "server resident memory at idle: {:.0} MB after start, {:.0} MB after the load",
        server.idle_start, server.idle_after
    );
    Ok(())
}

/// What the server measured: requests per second and latency with one client and with many,
/// and its resident memory at idle, in MB.
struct ServerFigures {
    one: (f64, Latency),
    many: (f64, Latency),
    idle_start: f64,
    idle_after: f64,
}

/// Starts `lectern serve` on `home` and loads it: blocking, on threads of its own.
fn over_http(home: &Path, questions: &[String], clients: usize, seconds: u64) -> anyhow::Result<ServerFigures> {
    let exe = std::env::current_exe().map_err(Error::io("current executable"))?;
    let lectern = exe.with_file_name("lectern");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(Error::io("a free port"))?
        .port();
    let server = Server(
        Command::new(&lectern)
            .arg("--home")
            .arg(home)
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .stderr(Stdio::null())
            .spawn()
            .map_err(Error::io(&lectern))?,
    );
    let base = format!("http://127.0.0.1:{port}/v1");
    let http = reqwest::blocking::Client::new();
    let started = Instant::now();
    // The server makes the library's token at its start, if the library has none.
    let token = loop {
        if let Ok(token) = std::fs::read_to_string(home.join(lectern::TOKEN_FILE)) {
            let token = token.trim().to_string();
            if http
                .get(format!("{base}/models"))
                .bearer_auth(&token)
                .send()
                .is_ok_and(|r| r.status().is_success())
            {
                break token;
            }
        }
        if started.elapsed() > Duration::from_secs(60) {
            anyhow::bail!("lectern serve did not answer within a minute");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let idle_start = rss_mb(server.0.id());

    // Every question once, so that every index is open and each timed search is warm.
    let search = {
        let (base, token) = (base.clone(), token.clone());
        move |http: &reqwest::blocking::Client, query: &str| -> anyhow::Result<f64> {
            let started = Instant::now();
            let reply = http
                .post(format!("{base}/search"))
                .bearer_auth(&token)
                .json(&json!({ "query": query, "k": K, "mode": "hybrid" }))
                .send()?;
            anyhow::ensure!(reply.status().is_success(), "a search failed: {}", reply.status());
            reply.bytes()?;
            Ok(started.elapsed().as_secs_f64() * 1000.0)
        }
    };
    for q in questions {
        search(&http, q)?;
    }
    let one = load(&search, questions, 1, seconds)?;
    let many = load(&search, questions, clients, seconds)?;
    std::thread::sleep(Duration::from_secs(2));
    let idle_after = rss_mb(server.0.id());
    drop(server);

    Ok(ServerFigures {
        one,
        many,
        idle_start,
        idle_after,
    })
}

/// `clients` threads searching for `seconds`, each from its own place in the questions: the
/// requests per second of all, and the latency of each request.
fn load(
    search: &(impl Fn(&reqwest::blocking::Client, &str) -> anyhow::Result<f64> + Sync),
    questions: &[String],
    clients: usize,
    seconds: u64,
) -> anyhow::Result<(f64, Latency)> {
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let timings = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..clients)
            .map(|c| {
                scope.spawn(move || -> anyhow::Result<Vec<f64>> {
                    let http = reqwest::blocking::Client::new();
                    let mut ms = Vec::new();
                    let mut i = c * questions.len() / clients.max(1);
                    while Instant::now() < until {
                        ms.push(search(&http, &questions[i % questions.len()])?);
                        i += 1;
                    }
                    Ok(ms)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().map_err(|_| anyhow::anyhow!("a client thread panicked"))?)
            .collect::<anyhow::Result<Vec<Vec<f64>>>>()
    })?;
    let all: Vec<f64> = timings.into_iter().flatten().collect();
    let rps = all.len() as f64 / started.elapsed().as_secs_f64();
    Ok((rps, Latency::of(all)))
}

/// Resident memory of process `pid`, in MB.
fn rss_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
        .map_or(0.0, |kb| kb / 1024.0)
}
