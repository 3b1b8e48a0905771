//! The folder tree: create, rename, move (with its subtree) and delete folders.
//!
//! Rules: names are unique among siblings (case-insensitively), a folder never moves into its own
//! subtree, and deleting a folder that holds anything needs an explicit [`DeleteMode`].

use std::collections::HashMap;

use super::sql::args;

use super::chats::stored_strategy;
use super::{now_millis, validate_name, Catalog, CatalogError, DocumentId, Folder, FolderId, Scope, Strategy};

/// What to do with the contents of a folder being deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteMode {
    /// Delete only an empty folder; refuse otherwise.
    OnlyIfEmpty,
    /// Delete the folder, its subfolders and every document in them.
    DeleteDocuments,
    /// Move documents and subfolders up to the parent folder, then delete the folder.
    MoveToParent,
}

impl Catalog {
    /// Every folder, with its path, ordered by path.
    pub fn list_folders(&self) -> Result<Vec<Folder>, CatalogError> {
        let rows = self
            .db
            .query(
                "SELECT id, parent_id, name, created_at, strategy FROM folders",
                &[],
                |r| {
                    Ok((
                        Folder {
                            id: FolderId(r.get(0)?),
                            parent: r.get::<Option<i64>>(1)?.map(FolderId),
                            name: r.get(2)?,
                            path: String::new(),
                            strategy: None,
                            inherited_strategy: None,
                            created_at: r.get(3)?,
                        },
                        r.get::<Option<String>>(4)?,
                    ))
                },
            )?
            .into_iter()
            .map(|(folder, strategy)| {
                Ok(Folder {
                    strategy: stored_strategy(strategy)?,
                    ..folder
                })
            })
            .collect::<Result<Vec<_>, CatalogError>>()?;
        let by_id: HashMap<FolderId, &Folder> = rows.iter().map(|f| (f.id, f)).collect();
        let mut folders: Vec<Folder> = rows
            .iter()
            .map(|f| Folder {
                path: path_of(f, &by_id),
                inherited_strategy: inherited_strategy(f, &by_id),
                ..f.clone()
            })
            .collect();
        folders.sort_by(|a, b| a.path.to_lowercase().cmp(&b.path.to_lowercase()).then(a.id.cmp(&b.id)));
        Ok(folders)
    }

    /// The folder with this id.
    pub fn folder(&self, id: FolderId) -> Result<Folder, CatalogError> {
        self.list_folders()?
            .into_iter()
            .find(|f| f.id == id)
            .ok_or_else(|| CatalogError::FolderNotFound(format!("#{id}")))
    }

    /// The folder at a slash-separated path such as `Personal Knowledge/Taxes` (case-insensitive).
    pub fn folder_by_path(&self, path: &str) -> Result<Folder, CatalogError> {
        let wanted = normalise_path(path);
        self.list_folders()?
            .into_iter()
            .find(|f| f.path.to_lowercase() == wanted.to_lowercase())
            .ok_or_else(|| CatalogError::FolderNotFound(path.to_string()))
    }

    /// Sets the retrieval strategy of chats over folder `id` (`None`: its parent's).
    pub fn set_folder_strategy(&self, id: FolderId, strategy: Option<Strategy>) -> Result<Folder, CatalogError> {
        let changed = self.db.execute(
            "UPDATE folders SET strategy = ?2 WHERE id = ?1",
            args![id.0, strategy.map(Strategy::as_str)],
        )?;
        if changed == 0 {
            return Err(CatalogError::FolderNotFound(format!("#{id}")));
        }
        self.folder(id)
    }

    /// The strategy a chat over `scope` has without one of its own: that of the first of the
    /// scope's folders which has one, itself or through its nearest ancestor, else
    /// [`Strategy::Always`].
    pub fn default_strategy(&self, scope: &Scope) -> Result<Strategy, CatalogError> {
        let folders = self.list_folders()?;
        let strategy = |id: FolderId| {
            let folder = folders.iter().find(|f| f.id == id)?;
            folder.strategy.or(folder.inherited_strategy)
        };
        Ok(scope.folders.iter().find_map(|&id| strategy(id)).unwrap_or_default())
    }

    /// Creates a folder under `parent` (or at the top level).
    pub fn create_folder(&self, parent: Option<FolderId>, name: &str) -> Result<Folder, CatalogError> {
        let name = validate_name(name)?;
        if let Some(parent) = parent {
            self.folder(parent)?;
        }
        self.ensure_free_name(parent, &name, None)?;
        let id = self.db.query_one(
            "INSERT INTO folders (parent_id, name, created_at) VALUES (?1, ?2, ?3) RETURNING id",
            args![parent.map(|p| p.0), name, now_millis()],
            |r| r.get(0),
        )?;
        self.folder(FolderId(id))
    }

    /// Renames a folder; its documents and subfolders stay where they are.
    pub fn rename_folder(&self, id: FolderId, name: &str) -> Result<Folder, CatalogError> {
        let name = validate_name(name)?;
        let folder = self.folder(id)?;
        self.ensure_free_name(folder.parent, &name, Some(id))?;
        self.db
            .execute("UPDATE folders SET name = ?1 WHERE id = ?2", args![name, id.0])?;
        self.folder(id)
    }

    /// Moves a folder, with everything under it, below `new_parent` (or to the top level).
    pub fn move_folder(&self, id: FolderId, new_parent: Option<FolderId>) -> Result<Folder, CatalogError> {
        let folder = self.folder(id)?;
        if let Some(target) = new_parent {
            let target_folder = self.folder(target)?;
            if self.subtree(id)?.contains(&target) {
                return Err(CatalogError::MoveIntoItself {
                    folder: folder.path,
                    target: target_folder.path,
                });
            }
        }
        self.ensure_free_name(new_parent, &folder.name, Some(id))?;
        self.db.execute(
            "UPDATE folders SET parent_id = ?1 WHERE id = ?2",
            args![new_parent.map(|p| p.0), id.0],
        )?;
        self.folder(id)
    }

    /// Deletes a folder as `mode` says; returns the documents deleted with it, whose files and
    /// indexes the caller then removes.
    pub fn delete_folder(&self, id: FolderId, mode: DeleteMode) -> Result<Vec<DocumentId>, CatalogError> {
        let folder = self.folder(id)?;
        let subtree = self.subtree(id)?;
        let db = &self.db;
        db.transaction(|| {
            let documents: u64 = db.query_one(
                "SELECT COUNT(*) FROM documents WHERE folder_id = ?1",
                args![id.0],
                |r| r.get(0),
            )?;
            let subfolders = (subtree.len() - 1) as u64;
            match mode {
                DeleteMode::OnlyIfEmpty if documents > 0 || subfolders > 0 => Err(CatalogError::FolderNotEmpty {
                    name: folder.path.clone(),
                    documents,
                    subfolders,
                }),
                DeleteMode::OnlyIfEmpty => {
                    db.execute("DELETE FROM folders WHERE id = ?1", args![id.0])?;
                    Ok(Vec::new())
                }
                DeleteMode::MoveToParent => {
                    let Some(parent) = folder.parent else {
                        if documents > 0 || subfolders > 0 {
                            return Err(CatalogError::NoParent(folder.path.clone()));
                        }
                        db.execute("DELETE FROM folders WHERE id = ?1", args![id.0])?;
                        return Ok(Vec::new());
                    };
                    self.move_children_up(id, parent)?;
                    db.execute(
                        "UPDATE documents SET folder_id = ?1 WHERE folder_id = ?2",
                        args![parent.0, id.0],
                    )?;
                    db.execute("DELETE FROM folders WHERE id = ?1", args![id.0])?;
                    Ok(Vec::new())
                }
                DeleteMode::DeleteDocuments => {
                    let mut deleted = Vec::new();
                    for folder_id in &subtree {
                        let ids = db.query(
                            "SELECT id FROM documents WHERE folder_id = ?1",
                            args![folder_id.0],
                            |r| r.get::<String>(0),
                        )?;
                        deleted.extend(ids.iter().filter_map(|s| s.parse::<DocumentId>().ok()));
                        db.execute("DELETE FROM documents WHERE folder_id = ?1", args![folder_id.0])?;
                    }
                    // Children first, so that no row ever points at a deleted parent.
                    for folder_id in subtree.iter().rev() {
                        db.execute("DELETE FROM folders WHERE id = ?1", args![folder_id.0])?;
                    }
                    Ok(deleted)
                }
            }
        })
    }

    /// The folder and all its descendants, parents before children.
    pub fn subtree(&self, id: FolderId) -> Result<Vec<FolderId>, CatalogError> {
        let ids = self.db.query(
            "WITH RECURSIVE sub(id, depth) AS (
                 SELECT id, 0 FROM folders WHERE id = ?1
                 UNION ALL
                 SELECT f.id, sub.depth + 1 FROM folders f JOIN sub ON f.parent_id = sub.id
             )
             SELECT id FROM sub ORDER BY depth, id",
            args![id.0],
            |r| r.get::<i64>(0).map(FolderId),
        )?;
        if ids.is_empty() {
            return Err(CatalogError::FolderNotFound(format!("#{id}")));
        }
        Ok(ids)
    }

    /// Fails with `NameClash` when a sibling other than `except` already has this name.
    fn ensure_free_name(
        &self,
        parent: Option<FolderId>,
        name: &str,
        except: Option<FolderId>,
    ) -> Result<(), CatalogError> {
        let clash: Option<i64> = self.db.query_opt(
            "SELECT id FROM folders WHERE COALESCE(parent_id, 0) = ?1 AND lower(name) = lower(?2) AND id != ?3",
            args![
                parent.map(|p| p.0).unwrap_or(0),
                name,
                except.map(|e| e.0).unwrap_or(-1)
            ],
            |r| r.get(0),
        )?;
        match clash {
            None => Ok(()),
            Some(_) => Err(CatalogError::NameClash {
                name: name.to_string(),
                parent: match parent {
                    Some(p) => format!("folder \"{}\"", self.folder(p)?.path),
                    None => "the top level".to_string(),
                },
            }),
        }
    }

    /// Moves the subfolders of `id` under `parent`, refusing if a name would clash there.
    fn move_children_up(&self, id: FolderId, parent: FolderId) -> Result<(), CatalogError> {
        let clash: Option<String> = self.db.query_opt(
            "SELECT c.name FROM folders c JOIN folders s ON s.parent_id = ?2 AND lower(s.name) = lower(c.name) AND s.id != ?1
             WHERE c.parent_id = ?1 LIMIT 1",
            args![id.0, parent.0],
            |r| r.get(0),
        )?;
        if let Some(name) = clash {
            return Err(CatalogError::NameClash {
                name,
                parent: "the parent folder".to_string(),
            });
        }
        self.db.execute(
            "UPDATE folders SET parent_id = ?1 WHERE parent_id = ?2",
            args![parent.0, id.0],
        )?;
        Ok(())
    }
}

/// The slash-separated path of `folder`, walking up through `by_id` (cycles cannot occur: moves
/// into a descendant are refused, but the walk is bounded anyway).
/// The strategy of `folder`'s nearest ancestor that has one; at most one step per folder,
/// whatever the rows say.
fn inherited_strategy(folder: &Folder, by_id: &HashMap<FolderId, &Folder>) -> Option<Strategy> {
    let mut next = folder.parent;
    std::iter::from_fn(|| {
        let parent = by_id.get(&next?)?;
        next = parent.parent;
        Some(parent.strategy)
    })
    .take(by_id.len())
    .flatten()
    .next()
}

fn path_of(folder: &Folder, by_id: &HashMap<FolderId, &Folder>) -> String {
    let mut parts = vec![folder.name.as_str()];
    let mut next = folder.parent;
    while let Some(id) = next {
        let Some(parent) = by_id.get(&id) else { break };
        if parts.len() > by_id.len() {
            break;
        }
        parts.push(parent.name.as_str());
        next = parent.parent;
    }
    parts.reverse();
    parts.join("/")
}

/// Trims slashes and spaces around each segment of a user-typed path.
fn normalise_path(path: &str) -> String {
    path.split('/')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("/")
}
