//! The scope flags of `search`, `eval` and `ask` (folders, documents, filters) as the core's scope.

use lectern::catalog::{RemoteScope, Scope, ScopeFilters};
use lectern::{Error, Library};

use super::args::ScopeArgs;

/// Resolves folder paths and document ids into a scope.
pub fn scope(library: &Library, args: &ScopeArgs) -> Result<Scope, Error> {
    let folders = args
        .folders
        .iter()
        .map(|path| library.folder(path).map(|f| f.id))
        .collect::<Result<_, _>>()?;
    let documents = args
        .documents
        .iter()
        .map(|id| library.document(id).map(|d| d.id))
        .collect::<Result<_, _>>()?;
    let known = if args.remotes.is_empty() {
        Vec::new()
    } else {
        library.remotes()?
    };
    let remotes = args
        .remotes
        .iter()
        .map(|given| {
            let (name, folder) = given
                .split_once('/')
                .map_or((given.as_str(), None), |(n, f)| (n, Some(f)));
            let remote = known
                .iter()
                .find(|r| r.name.eq_ignore_ascii_case(name.trim()))
                .ok_or_else(|| lectern::catalog::CatalogError::RemoteNotFound(name.to_string()))?;
            Ok(RemoteScope {
                remote: remote.name.clone(),
                folder: folder.map(str::to_string).filter(|f| !f.trim().is_empty()),
            })
        })
        .collect::<Result<_, Error>>()?;
    Ok(Scope {
        folders,
        documents,
        remotes,
        filters: ScopeFilters {
            author: args.author.clone(),
            name: args.name.clone(),
            created_from: args.created_from.clone(),
            created_to: args.created_to.clone(),
            added_after: args
                .added_after
                .as_deref()
                .map(|d| day_millis("--added-after", d))
                .transpose()?,
            added_before: args
                .added_before
                .as_deref()
                .map(|d| day_millis("--added-before", d))
                .transpose()?,
        },
    })
}

/// Milliseconds since the Unix epoch at the start of a `YYYY-MM-DD` day (UTC).
fn day_millis(name: &str, date: &str) -> Result<i64, Error> {
    lectern::dates::day_start_millis(date).ok_or_else(|| Error::Config {
        name: name.into(),
        reason: format!("{date:?} is not a date like 2024-05-31"),
    })
}
