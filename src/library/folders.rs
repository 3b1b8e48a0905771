//! Folder operations of the library, addressed by slash-separated paths.

use super::Library;
use crate::catalog::{DeleteMode, Folder, FolderStats, Scope, Strategy};
use crate::error::Error;

impl Library {
    /// Every folder, ordered by path.
    pub fn folders(&self) -> Result<Vec<Folder>, Error> {
        Ok(self.engine.catalog().list_folders()?)
    }

    /// Every folder with its counts, subfolders included.
    pub fn folder_stats(&self) -> Result<Vec<FolderStats>, Error> {
        Ok(self.engine.catalog().folder_stats()?)
    }

    /// The folder at `path`.
    pub fn folder(&self, path: &str) -> Result<Folder, Error> {
        Ok(self.engine.catalog().folder_by_path(path)?)
    }

    /// Creates the folder at `path`; its parent must exist (`Work/Taxes` needs `Work`).
    pub fn create_folder(&self, path: &str) -> Result<Folder, Error> {
        let catalog = self.engine.catalog();
        let (parent, name) = split_path(path);
        let parent = match parent {
            Some(p) => Some(catalog.folder_by_path(p)?.id),
            None => None,
        };
        Ok(catalog.create_folder(parent, name)?)
    }

    /// Renames the folder at `path` to `name`, in place.
    pub fn rename_folder(&self, path: &str, name: &str) -> Result<Folder, Error> {
        let catalog = self.engine.catalog();
        let folder = catalog.folder_by_path(path)?;
        Ok(catalog.rename_folder(folder.id, name)?)
    }

    /// Moves the folder at `path`, with its subtree, into `new_parent` (`None`: the top level).
    pub fn move_folder(&self, path: &str, new_parent: Option<&str>) -> Result<Folder, Error> {
        let catalog = self.engine.catalog();
        let folder = catalog.folder_by_path(path)?;
        let parent = match new_parent {
            Some(p) => Some(catalog.folder_by_path(p)?.id),
            None => None,
        };
        Ok(catalog.move_folder(folder.id, parent)?)
    }

    /// Sets the retrieval strategy of chats over the folder at `path` that have none of their
    /// own (`None`: the parent folder's).
    pub fn set_folder_strategy(&self, path: &str, strategy: Option<Strategy>) -> Result<Folder, Error> {
        let catalog = self.engine.catalog();
        let folder = catalog.folder_by_path(path)?;
        Ok(catalog.set_folder_strategy(folder.id, strategy)?)
    }

    /// The strategy a chat over `scope` has without one of its own.
    pub fn default_strategy(&self, scope: &Scope) -> Result<Strategy, Error> {
        Ok(self.engine.catalog().default_strategy(scope)?)
    }

    /// Deletes the folder at `path` as `mode` says, with the files and indexes of any documents
    /// deleted along with it. Returns how many documents were deleted.
    pub fn delete_folder(&self, path: &str, mode: DeleteMode) -> Result<usize, Error> {
        self.engine.delete_folder(path, mode)
    }
}

/// Splits `a/b/c` into (`Some("a/b")`, `"c"`).
fn split_path(path: &str) -> (Option<&str>, &str) {
    let path = path.trim().trim_matches('/');
    match path.rsplit_once('/') {
        Some((parent, name)) => (Some(parent), name),
        None => (None, path),
    }
}
