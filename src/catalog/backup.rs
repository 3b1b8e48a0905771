//! Backups of the catalog on disk (`library.sqlite`), and how a damaged one is told apart. When
//! the library opens and its newest backup is a day old (or there is none), the catalog is copied
//! into `backups/` beside it with SQLite's `VACUUM INTO`, which reads one snapshot, so the copy is
//! consistent while other processes write; the newest seven are kept. A catalog SQLite cannot
//! read, or whose quick check finds a problem, is damaged: the library does not open, and the
//! error names the newest backup and the command that puts it back
//! (`crate::library::restore_catalog`). Both take tens of milliseconds for a catalog of 10,000
//! documents.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, ErrorCode, OpenFlags};

use super::CatalogError;

/// The directory beside the catalog that holds its backups.
pub const DIR: &str = "backups";
/// How many backups are kept.
const KEPT: usize = 7;
/// How old the newest backup may be before the next open makes another, in milliseconds.
const EVERY_MS: i64 = 24 * 3600 * 1000;
/// A backup's name: this, the milliseconds since the epoch it was made at, and `.sqlite`.
const PREFIX: &str = "library-";

/// One backup of the catalog.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Backup {
    pub path: PathBuf,
    /// When it was made, in milliseconds since the Unix epoch.
    pub made: i64,
}

/// The backups in `dir`, newest first.
pub fn list(dir: &Path) -> Vec<Backup> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut backups: Vec<Backup> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let made = name.strip_prefix(PREFIX)?.strip_suffix(".sqlite")?.parse().ok()?;
            Some(Backup {
                path: entry.path(),
                made,
            })
        })
        .collect();
    backups.sort_by_key(|b| std::cmp::Reverse(b.made));
    backups
}

/// The newest backup in `dir` that SQLite reads without a problem.
pub fn newest_good(dir: &Path) -> Option<Backup> {
    list(dir).into_iter().find(|backup| reads_whole(&backup.path))
}

/// Whether SQLite reads the database at `path` without a problem.
pub fn reads_whole(path: &Path) -> bool {
    path.is_file()
        && Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .is_ok_and(|conn| matches!(problem(&conn), Ok(None)))
}

/// Whether `error` says the database file is damaged, or is not a database.
pub fn is_damage(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// The first problem SQLite's quick check finds in `conn`'s database, or `None`.
pub fn problem(conn: &Connection) -> Result<Option<String>, rusqlite::Error> {
    let first: String = conn.query_row("PRAGMA quick_check(1)", [], |row| row.get(0))?;
    Ok((first != "ok").then_some(first))
}

/// Copies `conn`'s database into `dir` when the newest backup there was made `EVERY_MS` or
/// longer before `now` (or there is none), and keeps the newest [`KEPT`]; returns the new copy.
/// The copy is written under a temporary name and renamed, so a backup is always whole.
pub fn back_up_if_due(conn: &Connection, dir: &Path, now: i64) -> Result<Option<PathBuf>, CatalogError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source: std::io::Error| CatalogError::Backup { path, source }
    };
    if list(dir).first().is_some_and(|newest| now - newest.made < EVERY_MS) {
        return Ok(None);
    }
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let path = dir.join(format!("{PREFIX}{now}.sqlite"));
    let part = dir.join(format!(".{PREFIX}{now}.sqlite.part"));
    match std::fs::remove_file(&part) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&part)(e)),
        _ => {}
    }
    if let Err(e) = conn.execute("VACUUM INTO ?1", [part.to_string_lossy()]) {
        let _ = std::fs::remove_file(&part);
        return Err(e.into());
    }
    std::fs::rename(&part, &path).map_err(io(&path))?;
    for old in list(dir).into_iter().skip(KEPT) {
        std::fs::remove_file(&old.path).map_err(io(&old.path))?;
    }
    Ok(Some(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog_with(rows: i64) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (n INTEGER)").unwrap();
        for n in 0..rows {
            conn.execute("INSERT INTO t VALUES (?1)", [n]).unwrap();
        }
        conn
    }

    #[test]
    fn a_backup_is_made_once_a_day_and_the_newest_seven_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let backups = dir.path().join(DIR);
        let conn = catalog_with(3);
        let day = EVERY_MS;
        let first = back_up_if_due(&conn, &backups, 10 * day).unwrap().unwrap();
        assert_eq!(
            back_up_if_due(&conn, &backups, 10 * day + day / 2).unwrap(),
            None,
            "not due yet"
        );
        let copy = Connection::open(&first).unwrap();
        assert_eq!(
            copy.query_row("SELECT count(*) FROM t", [], |r| r.get::<_, i64>(0))
                .unwrap(),
            3
        );
        for n in 11..20 {
            assert!(back_up_if_due(&conn, &backups, n * day).unwrap().is_some());
        }
        let kept = list(&backups);
        assert_eq!(kept.len(), KEPT);
        assert_eq!(kept[0].made, 19 * day, "newest first");
        assert_eq!(kept[KEPT - 1].made, 13 * day);
        assert_eq!(newest_good(&backups).unwrap(), kept[0]);
    }

    #[test]
    fn a_damaged_backup_is_passed_over_and_damage_is_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let conn = catalog_with(1);
        let older = back_up_if_due(&conn, dir.path(), EVERY_MS).unwrap().unwrap();
        let newer = back_up_if_due(&conn, dir.path(), 2 * EVERY_MS).unwrap().unwrap();
        std::fs::write(&newer, b"not a database at all, just words").unwrap();
        assert_eq!(newest_good(dir.path()).unwrap().path, older);
        let err = Connection::open(&newer).and_then(|c| problem(&c)).unwrap_err();
        assert!(is_damage(&err), "{err}");
        assert_eq!(problem(&conn).unwrap(), None);
    }
}
