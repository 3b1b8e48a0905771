//! `lectern remote add|ls|rm`: other Lectern servers' libraries, asked beside this one.

use lectern::{Error, Library};

use super::args::RemoteCommand;
use super::output::json;

pub async fn remote(library: &Library, command: RemoteCommand) -> Result<(), Error> {
    match command {
        RemoteCommand::Add { name, url, token } => {
            let added = library.add_remote(&name, &url, &token).await?;
            println!(
                "added remote library {} at {}: its token sees the folders {}",
                added.remote.name,
                added.remote.url,
                added.folders.join(", ")
            );
            if url.trim().starts_with("http://") {
                println!("its token travels unencrypted over http: use https:// where the network is not trusted");
            }
        }
        RemoteCommand::Ls(flag) => {
            let remotes = library.remotes()?;
            if flag.json {
                json(&remotes);
                return Ok(());
            }
            if remotes.is_empty() {
                println!("no remote libraries: `lectern remote add NAME URL --token TOKEN` adds one");
            }
            for remote in remotes {
                println!("{}  {}", remote.name, remote.url);
            }
        }
        RemoteCommand::Rm { name } => {
            library.remove_remote(&name)?;
            println!("removed remote library {name}");
        }
    }
    Ok(())
}
