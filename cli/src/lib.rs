//! The CLI's glue: build the configuration, open the library, run one command, map errors to a
//! message with its hint (or JSON) and an exit status by kind. The `lectern` program runs it, and
//! so does the desktop app's program when given `--command-line` first (the package's `lectern`
//! command, which saves shipping the core twice).

mod args;
mod ask;
mod eval_answers;
mod eval_strategy;
mod jobs;
mod models;
mod output;
mod password;
mod progress;
mod remote;
mod scope;
mod search;
mod serve;
mod watch;

use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches};
use lectern::jobs::RunMode;
use lectern::pdf::{Extracted, PdfReader};
use lectern::{DeleteMode, Error, ErrorCode, Library, LibraryConfig};

use args::{Cli, Command, DocCommand, FolderCommand, IndexArgs, IndexCommand};
use remote::remote;

/// The first argument that makes another program of Lectern's (the app) run as the command line.
const COMMAND_LINE_ARG: &str = "--command-line";

/// Runs the command line, and returns how it ended, when the program was started as it
/// (`--command-line` first, as the package's `lectern` script starts the app's program);
/// otherwise returns `None` at once.
pub fn main_if_asked() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_none_or(|arg| arg != COMMAND_LINE_ARG) {
        return None;
    }
    Some(main(std::iter::once("lectern".into()).chain(args)))
}

/// Runs the command line on `args` (the program's name first, as `std::env::args_os` gives it).
pub fn main(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let matches = Cli::command().get_matches_from(args);
    let as_json = json_requested(&matches);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
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
            output::error(&e, as_json);
            exit_status(e.code())
        }
    }
}

/// Whether the command run was given `--json`: its errors are then printed as JSON too.
fn json_requested(matches: &ArgMatches) -> bool {
    match matches.subcommand() {
        Some((_, sub)) => json_requested(sub),
        None => matches
            .try_get_one::<bool>("json")
            .ok()
            .flatten()
            .copied()
            .unwrap_or(false),
    }
}

/// Asked to stop (Ctrl-C, SIGTERM from a service manager or `kill`, SIGHUP when the terminal
/// closes), puts the documents this process is indexing back in the queue (a quit on purpose does
/// not count against them, as a crash would) and ends the program as that signal would (128 + its
/// number).
fn quit_on_interrupt(library: &Library) {
    use tokio::signal::unix::{signal, SignalKind};
    for kind in [SignalKind::interrupt(), SignalKind::terminate(), SignalKind::hangup()] {
        let Ok(mut stream) = signal(kind) else {
            continue; // not handled: the signal ends the program, and the next indexer requeues
        };
        let library = library.clone();
        tokio::spawn(async move {
            if stream.recv().await.is_some() {
                let _ = library.requeue_unfinished();
                std::process::exit(128 + kind.as_raw_value());
            }
        });
    }
}

/// The exit status of a failure, by its kind, for scripts that branch without parsing output.
fn exit_status(code: ErrorCode) -> ExitCode {
    ExitCode::from(match code {
        ErrorCode::Internal => 1,
        ErrorCode::InvalidInput => 2,
        ErrorCode::NotFound => 3,
        ErrorCode::Conflict => 4,
        ErrorCode::NeedsPassword => 5,
        ErrorCode::Unavailable | ErrorCode::Offline => 6,
        ErrorCode::Ambiguous => 7,
    })
}

async fn run(cli: Cli) -> Result<ExitCode, Error> {
    // Told no data directory, the command opens the library chosen in the app's settings.
    let told = cli.home.is_some() || std::env::var("LECTERN_HOME").is_ok_and(|home| !home.trim().is_empty());
    let mut config = match lectern::app_config::dir().filter(|_| !told) {
        Some(app_dir) => lectern::app_config::library_config(&app_dir)?,
        None => LibraryConfig::from_env(cli.home, None)?,
    };
    if cli.database_url.is_some() {
        config.database_url = cli.database_url;
    }
    if let Command::Eval(args::EvalArgs { tune: Some(tuning), .. }) = &cli.command {
        config.tuning = *tuning;
    }
    if let Command::Extract(args) = &cli.command {
        return extract(args);
    }
    // A damaged catalog keeps the library from opening: it is put back first.
    if let Command::Library(args::LibraryCommand::RestoreCatalog { from, json }) = &cli.command {
        let restored = lectern::restore_catalog(&config, from.as_deref())?;
        output::restored(&restored, *json);
        return Ok(ExitCode::SUCCESS);
    }
    let library = Library::open(config)?;
    if matches!(
        cli.command,
        Command::Add(_) | Command::Index(_) | Command::Doc(_) | Command::Watch(_)
    ) {
        quit_on_interrupt(&library);
    }
    match cli.command {
        Command::Folder(command) => folder(&library, command)?,
        Command::Add(args) => return progress::add(&library, args).await,
        Command::Ls(args) => {
            let docs = library.documents(args.folder.as_deref(), args.recursive)?;
            let folders = library.folders()?;
            output::documents(&docs, &folders, args.json);
        }
        Command::Doc(command) => return doc(&library, command).await,
        Command::Index(args) => index(&library, args).await?,
        Command::Jobs(command) => return jobs::run(&library, command).await,
        Command::Remote(command) => remote(&library, command).await?,
        Command::Status(flag) => output::status(&library.status()?, flag.json),
        Command::Search(args) => return search::search(&library, args).await,
        Command::Eval(args) => {
            return match args.what {
                Some(args::EvalCommand::Answers(answers)) => eval_answers::run(&library, *answers).await,
                Some(args::EvalCommand::Strategy(strategy)) => eval_strategy::run(&library, &strategy).await,
                None => search::eval(&library, args).await,
            }
        }
        Command::Ask(args) => return ask::ask(&library, args).await,
        Command::Chat(command) => ask::chat(&library, command)?,
        Command::Watch(command) => return watch::run(&library, &command).await,
        Command::Model(command) => return models::run(&library, command).await,
        Command::Extract(_) | Command::Library(args::LibraryCommand::RestoreCatalog { .. }) => {
            unreachable!("handled above")
        }
        Command::Serve(args) => serve::run(library, args).await?,
        Command::Mcp => {
            serve::index_while_serving(&library);
            lectern_serve::serve_stdio(library).await?
        }
        Command::Library(args::LibraryCommand::Export { to, json }) => {
            let exported = library.export(&to).await?;
            if json {
                output::json(&exported);
            } else {
                println!(
                    "copied {} document(s), {} PDF(s) and {} index(es) to {}",
                    exported.documents,
                    exported.files,
                    exported.indexes,
                    lectern::database::redacted(&to)
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `lectern extract`: the core's text of a PDF, page by page, without a library.
fn extract(args: &args::ExtractArgs) -> Result<ExitCode, Error> {
    let password = match (&args.password, args.password_stdin) {
        (None, false) => None,
        (given, from_stdin) => Some(password::password(given.clone(), from_stdin, "password")?),
    };
    let mut extraction = PdfReader::default().extract(&args.file, password);
    let mut pages = Vec::new();
    // Character offsets in the document's text: the pages' texts, each followed by a form feed.
    let mut start = 0;
    while let Some(step) = extraction.next_step() {
        if let Extracted::Page {
            number,
            text,
            headings,
            has_text_layer,
            has_images,
            unmapped_fonts,
        } = step?
        {
            let chars = text.chars().count();
            if args.page.is_none_or(|p| p == number) {
                pages.push(output::ExtractedPage {
                    number,
                    start,
                    end: start + chars,
                    chars,
                    text,
                    headings,
                    has_text_layer,
                    has_images,
                    unmapped_fonts,
                });
            }
            start += chars + 1;
        }
    }
    if let Some(wanted) = args.page.filter(|_| pages.is_empty()) {
        eprintln!("error: {} has no page {wanted}", args.file.display());
        return Ok(ExitCode::FAILURE);
    }
    output::extracted_pages(&pages, args.json);
    Ok(ExitCode::SUCCESS)
}

fn folder(library: &Library, command: FolderCommand) -> Result<(), Error> {
    match command {
        FolderCommand::Ls(flag) => output::folders(&library.folders()?, flag.json),
        FolderCommand::Strategy { path, strategy } => {
            let folder = match strategy.as_deref().map(str::trim) {
                None => library.folder(&path)?,
                Some(name) if name.eq_ignore_ascii_case("inherit") => library.set_folder_strategy(&path, None)?,
                Some(name) => library.set_folder_strategy(&path, Some(name.parse().map_err(lectern::Error::from)?))?,
            };
            match folder.strategy {
                Some(own) => println!("{}: {own}", folder.path),
                None => println!(
                    "{}: {} (inherited)",
                    folder.path,
                    folder.inherited_strategy.unwrap_or_default()
                ),
            }
        }
        FolderCommand::Create { path } => println!("created {}", library.create_folder(&path)?.path),
        FolderCommand::Rename { path, name } => println!("renamed to {}", library.rename_folder(&path, &name)?.path),
        FolderCommand::Mv { path, to, top } => {
            let target = if top { None } else { to.as_deref() };
            println!("moved to {}", library.move_folder(&path, target)?.path);
        }
        FolderCommand::Rm {
            path,
            delete_documents,
            move_to_parent,
        } => {
            let mode = match (delete_documents, move_to_parent) {
                (true, _) => DeleteMode::DeleteDocuments,
                (_, true) => DeleteMode::MoveToParent,
                _ => DeleteMode::OnlyIfEmpty,
            };
            let deleted = library.delete_folder(&path, mode)?;
            println!("deleted {path} ({deleted} document(s) deleted with it)");
        }
    }
    Ok(())
}

async fn index(library: &Library, args: IndexArgs) -> Result<(), Error> {
    match args.command {
        Some(IndexCommand::Pause) => {
            library.pause_indexing()?;
            println!("indexing paused; `lectern index resume` goes on");
        }
        Some(IndexCommand::Resume) => {
            library.resume_indexing()?;
            println!("indexing goes on");
        }
        Some(IndexCommand::Cancel { ids }) => {
            for id in ids {
                let doc = library.document(&id)?;
                if library.cancel_indexing(doc.id)? {
                    println!("cancelled {}", doc.file_name);
                } else {
                    println!("{} is not being indexed ({})", doc.file_name, doc.status.as_str());
                }
            }
        }
        None => {
            let mode = if args.watch {
                RunMode::Forever
            } else {
                RunMode::UntilIdle
            };
            match library.run_indexer(mode).await {
                Ok(run) => {
                    println!("indexed {} document(s)", run.processed);
                    if let Some(held) = run.held {
                        println!("{held}");
                    }
                }
                Err(Error::IndexerBusy) => println!("{}", Error::IndexerBusy),
                Err(e) => return Err(e),
            }
            if library.indexing_paused()? {
                println!("indexing is paused; `lectern index resume` goes on");
            }
        }
    }
    Ok(())
}

async fn doc(library: &Library, command: DocCommand) -> Result<ExitCode, Error> {
    match command {
        DocCommand::Info { id, json } => {
            let doc = library.document(&id)?;
            output::document_info(&doc, &library.folders()?, json);
        }
        DocCommand::Log { id, json } => {
            let doc = library.document(&id)?;
            output::document_log(&library.document_log(doc.id)?, json);
        }
        DocCommand::Mv { ids, to } => {
            for id in ids {
                let doc = library.document(&id)?;
                library.move_document(doc.id, &to)?;
                println!("moved {} to {to}", doc.file_name);
            }
        }
        DocCommand::Rename { id, name } => {
            let doc = library.document(&id)?;
            println!("renamed to {}", library.rename_document(doc.id, &name)?.file_name);
        }
        DocCommand::Rm { ids } => {
            for id in ids {
                let doc = library.document(&id)?;
                library.delete_document(doc.id)?;
                println!("deleted {}", doc.file_name);
            }
        }
        DocCommand::Unlock {
            id,
            password,
            password_stdin,
        } => {
            let doc = library.document(&id)?;
            let password = password::password(password, password_stdin, &format!("password for {}", doc.file_name))?;
            library.unlock(doc.id, &password)?;
            println!("unlocked {}", doc.file_name);
            return progress::index_and_show(library, &[doc]).await;
        }
        DocCommand::Reindex { id } => {
            let doc = library.document(&id)?;
            let doc = library.reindex(doc.id)?;
            return progress::index_and_show(library, &[doc]).await;
        }
    }
    Ok(ExitCode::SUCCESS)
}
