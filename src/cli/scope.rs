//! The scope flags of `search`, `eval` and `ask` (folders, documents, filters) as the core's scope.

use crate::catalog::{RemoteScope, Scope, ScopeFilters};
use crate::{Error, Library};

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
                .ok_or_else(|| crate::catalog::CatalogError::RemoteNotFound(name.to_string()))?;
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
    let bad = || Error::Config {
        name: name.into(),
        reason: format!("{date:?} is not a date like 2024-05-31"),
    };
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts.as_slice() else { return Err(bad()) };
    let (y, m, d): (i64, i64, i64) = (
        y.parse().map_err(|_| bad())?,
        m.parse().map_err(|_| bad())?,
        d.parse().map_err(|_| bad())?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    // Days from the civil calendar (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Ok((era * 146_097 + doe - 719_468) * 86_400_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_convert_to_epoch_milliseconds() {
        assert_eq!(day_millis("x", "1970-01-01").unwrap(), 0);
        assert_eq!(day_millis("x", "2000-03-01").unwrap(), 951_868_800_000);
        assert_eq!(day_millis("x", "2024-02-29").unwrap(), 1_709_164_800_000);
        assert!(day_millis("x", "2024-13-01").is_err());
        assert!(day_millis("x", "yesterday").is_err());
    }
}
