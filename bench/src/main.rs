//! `lectern-bench`: the benchmarks, kept out of the `lectern` program users run. Each prints its
//! figures beside their baseline, measured in the same run (these machines are shared and noisy:
//! ratios hold, absolute times drift).

mod args;
mod ask;
mod embedding;
mod extract;
mod filings;
mod hostile;
mod index;
mod llm;
mod ocr;
mod search;
mod serve;
mod watch;

use std::process::ExitCode;

use clap::Parser;
use lectern::LibraryConfig;

use args::{Cli, Command};

fn main() -> ExitCode {
    lectern::allocator::share_arenas();
    lectern::pdf::serve_if_asked();
    let cli = Cli::parse();
    // The indexing benchmark runs models before it opens a library.
    lectern::one_thread_per_model();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: the async runtime could not start: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = LibraryConfig::from_env(cli.home, None)?;
    Ok(match cli.command {
        Command::Index(args) => index::run(config, &args).await?,
        Command::Search(args) => search::run(config, &args).await?,
        Command::Serve(args) => serve::run(&args).await.map(|()| ExitCode::SUCCESS)?,
        Command::Watch(args) => watch::run(config, &args).await.map(|()| ExitCode::SUCCESS)?,
        Command::Ask(args) => ask::run(config, &args).await.map(|()| ExitCode::SUCCESS)?,
        Command::Llm(args) => tokio::task::spawn_blocking(move || llm::run(config, args))
            .await?
            .map(|()| ExitCode::SUCCESS)?,
        Command::Hostile(args) => hostile::run(config, &args).await?,
        Command::Extract(args) => {
            let ocr = config.ocr_settings();
            tokio::task::spawn_blocking(move || extract::run(&args, ocr)).await??
        }
        Command::Ocr(args) => tokio::task::spawn_blocking(move || ocr::run(config, &args)).await??,
    })
}
