//! `lectern serve`: the library served to other programs until the process ends (indexing what
//! they add), its token shown or rotated, the tokens limited to folders, and the log of requests.

use lectern::jobs::RunMode;
use lectern::{Error, Library};

use super::args::{ServeArgs, ServeCommand, TokenCommand};
use super::output::json;
use lectern::dates::utc;

pub async fn run(library: Library, args: ServeArgs) -> Result<(), Error> {
    match args.command {
        Some(ServeCommand::Token(command)) => return token(&library, command),
        Some(ServeCommand::Log { limit, json: as_json }) => return log(&library, limit, as_json),
        None => {}
    }
    if args.show_token || args.rotate_token {
        let token = if args.rotate_token {
            library.rotate_api_token()?
        } else {
            library.api_token()?
        };
        println!("{token}");
        return Ok(());
    }
    let listener = lectern_serve::bind(args.listen).await?;
    index_while_serving(&library);
    lectern_serve::serve(library, listener).await
}

/// Indexes what the served programs add (their jobs), in this process, for as long as it serves;
/// while another process holds the indexer role, that one does.
pub fn index_while_serving(library: &Library) {
    let indexer = library.clone();
    tokio::spawn(async move { indexer.run_indexer(RunMode::Forever).await });
}

fn token(library: &Library, command: TokenCommand) -> Result<(), Error> {
    match command {
        TokenCommand::Add { name, folders } => {
            let (token, secret) = library.create_api_token(&name, &folders)?;
            eprintln!(
                "token \"{}\" sees {}; it is shown this once:",
                token.name,
                folders.join(", ")
            );
            println!("{secret}");
        }
        TokenCommand::List { json: as_json } => {
            let tokens = library.api_tokens()?;
            if as_json {
                json(&tokens);
                return Ok(());
            }
            let folders = library.folders()?;
            for token in tokens {
                let paths: Vec<&str> = folders
                    .iter()
                    .filter(|f| token.folders.contains(&f.id))
                    .map(|f| f.path.as_str())
                    .collect();
                let sees = if paths.is_empty() {
                    "nothing (its folders were deleted)".to_string()
                } else {
                    paths.join(", ")
                };
                println!("{}\t{}\tsees {sees}", token.name, utc(token.created_at));
            }
        }
        TokenCommand::Remove { name } => {
            library.remove_api_token(&name)?;
            println!("token \"{name}\" removed");
        }
    }
    Ok(())
}

fn log(library: &Library, limit: usize, as_json: bool) -> Result<(), Error> {
    let requests = library.api_requests(limit)?;
    if as_json {
        json(&requests);
        return Ok(());
    }
    for r in requests {
        println!(
            "{}\t{}\t{} {}\t{}\t{}\t{} ms",
            utc(r.at),
            r.holder,
            r.method,
            r.path,
            r.scope,
            r.status,
            r.millis
        );
    }
    Ok(())
}
