//! [`restore_catalog`]: a damaged catalog put back from its newest good backup (or rebuilt empty
//! when there is none), and every document whose index and PDF are on disk but which the restored
//! catalog does not know found again, so that nothing the library held is swept away as an
//! orphan. Runs before the library opens (it cannot open with a damaged catalog), holding the
//! indexer lock so that no other process works on the library meanwhile.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::catalog::backup::{self, Backup};
use crate::catalog::{now_millis, Catalog, DocumentId, NewDocument, CATALOG_FILE};
use crate::config::LibraryConfig;
use crate::error::Error;
use crate::files::FileStore;
use crate::index::IndexDirs;
use crate::jobs::IndexerLock;

/// The folder documents found again go to.
pub const RECOVERED_FOLDER: &str = "Recovered";

/// What restoring the catalog did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Restored {
    /// The backup put back; `None` when the catalog was rebuilt from the indexes alone.
    pub backup: Option<Backup>,
    /// Where the damaged catalog was moved (`None` when there was none).
    pub damaged_kept: Option<PathBuf>,
    /// Documents the restored catalog knew.
    pub documents: usize,
    /// Documents found again from their index and PDF, in the folder "Recovered".
    pub recovered: usize,
}

/// Puts back the library's catalog from `from`, else from its newest good backup, else starts
/// an empty one; the catalog there before is kept beside it, renamed. Then finds again the
/// documents whose index and PDF are on disk.
pub fn restore_catalog(config: &LibraryConfig, from: Option<&Path>) -> Result<Restored, Error> {
    if config.database_url.is_some() {
        return Err(Error::Config {
            name: "restore-catalog".into(),
            reason: "a library in a database is restored from the database's own backups".into(),
        });
    }
    let home = &config.home;
    let Some(_lock) = IndexerLock::try_acquire(home, None)? else {
        return Err(Error::Config {
            name: "restore-catalog".into(),
            reason:
                "another Lectern process has this library open: close the app, `lectern serve` and `lectern watch` \
                     first"
                    .into(),
        });
    };
    let path = home.join(CATALOG_FILE);
    let chosen: Option<Backup> = match from {
        Some(from) if !backup::reads_whole(from) => {
            return Err(Error::Config {
                name: "--from".into(),
                reason: format!("{} is not a catalog SQLite reads without a problem", from.display()),
            })
        }
        Some(from) => Some(Backup {
            path: from.to_path_buf(),
            made: std::fs::metadata(from)
                .and_then(|m| m.modified())
                .map_err(Error::io(from))?
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
        }),
        None => backup::newest_good(&path.with_file_name(backup::DIR)),
    };
    let damaged_kept = set_aside(&path)?;
    if let Some(chosen) = &chosen {
        std::fs::copy(&chosen.path, &path).map_err(Error::io(&path))?;
    }
    let catalog = Catalog::open(&path)?;
    let known: HashSet<DocumentId> = catalog.list_documents(None)?.iter().map(|d| d.id).collect();
    let recovered = recover(&catalog, home, &known)?;
    Ok(Restored {
        backup: chosen,
        damaged_kept,
        documents: known.len(),
        recovered,
    })
}

/// Moves the catalog at `path` and its write-ahead log aside, named for now; returns where the
/// catalog went, `None` when there was none.
fn set_aside(path: &Path) -> Result<Option<PathBuf>, Error> {
    let stamp = now_millis();
    let mut kept = None;
    for suffix in ["", "-wal", "-shm"] {
        let from = PathBuf::from(format!("{}{suffix}", path.display()));
        if !from.exists() {
            continue;
        }
        let to = PathBuf::from(format!("{}.damaged-{stamp}{suffix}", path.display()));
        std::fs::rename(&from, &to).map_err(Error::io(&from))?;
        if suffix.is_empty() {
            kept = Some(to);
        }
    }
    Ok(kept)
}

/// Records in `catalog` each document of `home`'s indexes that it does not `know`, whose index is
/// complete and whose PDF is stored, in the folder [`RECOVERED_FOLDER`]; returns how many.
fn recover(catalog: &Catalog, home: &Path, known: &HashSet<DocumentId>) -> Result<usize, Error> {
    let dirs = IndexDirs::new(home.join("indexes"));
    let files = FileStore::new(home.join("files"));
    let mut folder = None;
    let mut recovered = 0;
    for id in dirs.document_ids()? {
        if known.contains(&id) {
            continue;
        }
        let Some(manifest) = dirs.manifest(id) else {
            continue;
        };
        let Ok(pdf) = files.path(&manifest.content_hash) else {
            continue;
        };
        let Ok(size) = std::fs::metadata(&pdf).map(|m| m.len()) else {
            continue;
        };
        let folder = match folder {
            Some(folder) => folder,
            None => {
                let id = match catalog.folder_by_path(RECOVERED_FOLDER) {
                    Ok(existing) => existing.id,
                    Err(_) => catalog.create_folder(None, RECOVERED_FOLDER)?.id,
                };
                *folder.insert(id)
            }
        };
        let title = manifest.title.as_deref().map(str::trim).filter(|t| !t.is_empty());
        let file_name = match title {
            Some(title) => format!("{}.pdf", title.replace('/', "-").chars().take(120).collect::<String>()),
            None => format!("{}.pdf", &manifest.content_hash[..manifest.content_hash.len().min(12)]),
        };
        catalog.insert_recovered(
            id,
            &NewDocument {
                folder,
                file_name,
                byte_size: size,
                content_hash: manifest.content_hash.clone(),
                origin: None,
            },
        )?;
        recovered += 1;
    }
    Ok(recovered)
}
