//! Linked directories: link a directory to a folder, list and remove links, sync them (the sync
//! itself is `watch/sync.rs`), and watch them.

use std::path::Path;

use super::Library;
use crate::catalog::{CatalogError, Link, LinkId};
use crate::error::Error;
use crate::watch::{SyncProgress, SyncReport, Watcher};

impl Library {
    /// Links the directory `dir` to the folder at `folder` and syncs it once.
    pub fn link_directory(&self, dir: &Path, folder: &str, keep_deleted: bool) -> Result<(Link, SyncReport), Error> {
        self.link_directory_reporting(dir, folder, keep_deleted, &|_| {})
    }

    /// [`Self::link_directory`], telling `progress` how far its first sync has come after each file.
    pub fn link_directory_reporting(
        &self,
        dir: &Path,
        folder: &str,
        keep_deleted: bool,
        progress: &dyn Fn(SyncProgress),
    ) -> Result<(Link, SyncReport), Error> {
        let dir = std::fs::canonicalize(dir).map_err(|_| Error::NotFound(dir.to_path_buf()))?;
        if !dir.is_dir() {
            return Err(Error::Config {
                name: "directory".into(),
                reason: format!("{} is a file; link a directory", dir.display()),
            });
        }
        let link = {
            let catalog = self.engine.catalog();
            let folder = catalog.folder_by_path(folder)?;
            catalog.insert_link(folder.id, &dir.to_string_lossy(), keep_deleted)?
        };
        let report = crate::watch::sync_link(&self.engine, link.id, progress)?;
        Ok((self.engine.catalog().link(link.id)?, report))
    }

    /// Every linked directory with what its last sync found.
    pub fn links(&self) -> Result<Vec<Link>, Error> {
        Ok(self.engine.catalog().links()?)
    }

    /// The link with id `key`, or of the directory `key`.
    pub fn find_link(&self, key: &str) -> Result<Link, Error> {
        let catalog = self.engine.catalog();
        if let Ok(id) = key.parse::<LinkId>() {
            if let Ok(link) = catalog.link(id) {
                return Ok(link);
            }
        }
        let path = std::fs::canonicalize(key).map_or_else(|_| key.to_string(), |p| p.to_string_lossy().to_string());
        catalog
            .link_by_path(&path)?
            .ok_or_else(|| CatalogError::LinkNotFound(key.to_string()).into())
    }

    /// Removes a link; the folder keeps its documents.
    pub fn unlink(&self, id: LinkId) -> Result<Link, Error> {
        Ok(self.engine.catalog().delete_link(id)?)
    }

    /// Brings the folder of link `id` in line with its directory.
    pub fn sync_link(&self, id: LinkId) -> Result<SyncReport, Error> {
        crate::watch::sync_link(&self.engine, id, &|_| {})
    }

    /// Syncs every link, carrying on past one that fails.
    pub fn sync_links(&self) -> Vec<(Link, Result<SyncReport, Error>)> {
        crate::watch::sync_links(&self.engine)
    }

    /// Starts syncing every linked directory whenever it changes, on a thread of its own, until
    /// the returned watcher is dropped.
    pub fn watch(&self) -> Result<Watcher, Error> {
        Watcher::start(self.engine.clone())
    }
}
