//! Who may reach the library from other programs, and what they asked. The library's own token
//! (made at the first start, kept in the data directory readable by its owner only) sees the
//! whole library; tokens limited to folders are kept in the catalog by their SHA-256. A token is
//! compared with the library's in time that does not depend on where they differ.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;

use sha2::{Digest, Sha256};

use super::Library;
use crate::catalog::{ApiRequest, ApiToken, Document, Folder, FolderId, Scope};
use crate::error::Error;

/// The file in the data directory that holds the library's token.
pub const TOKEN_FILE: &str = "api-token";

/// What a request may reach.
#[derive(Debug, Clone)]
pub struct Access {
    /// Whose token: "library" or a limited token's name (the request log says it).
    pub holder: String,
    /// The folders it sees, each with its subfolders; `None` for the whole library.
    pub folders: Option<Vec<Folder>>,
}

impl Access {
    /// The whole library, for `holder`.
    pub fn whole_library(holder: impl Into<String>) -> Access {
        Access {
            holder: holder.into(),
            folders: None,
        }
    }

    /// Whether `folder` is one this access sees.
    pub fn sees(&self, folder: &Folder) -> bool {
        self.sees_path(&folder.path)
    }

    /// Whether the folder at `path` is one this access sees (a folder deleted since counts by
    /// where it was).
    pub fn sees_path(&self, path: &str) -> bool {
        self.folders.as_ref().is_none_or(|allowed| {
            allowed.iter().any(|a| {
                path == a.path
                    || path
                        .strip_prefix(a.path.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        })
    }

    /// The scope "everything" means for this access: the whole library, or its folders. `None`
    /// when it sees no folder at all (each of its folders was deleted).
    pub fn everything(&self) -> Option<Scope> {
        match &self.folders {
            None => Some(Scope::default()),
            Some(folders) if folders.is_empty() => None,
            Some(folders) => Some(Scope {
                folders: folders.iter().map(|f| f.id).collect(),
                ..Scope::default()
            }),
        }
    }
}

impl Library {
    /// The library's own token, made (and kept) now if it has none.
    pub fn api_token(&self) -> Result<String, Error> {
        match self.kept_api_token()? {
            Some(token) => Ok(token),
            None => self.write_api_token(false),
        }
    }

    /// The library's own token, if it has one.
    fn kept_api_token(&self) -> Result<Option<String>, Error> {
        let path = self.config().home.join(TOKEN_FILE);
        match std::fs::read_to_string(&path) {
            Ok(token) => Ok(Some(token.trim().to_string()).filter(|t| !t.is_empty())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(Error::Io { path, source }),
        }
    }

    /// Replaces the library's token with a new one (the old one stops working); returns it.
    pub fn rotate_api_token(&self) -> Result<String, Error> {
        self.write_api_token(true)
    }

    /// Writes a new token, in place of the one kept (`replace`) or only where none is: of two
    /// processes (or a server and its caller) making the first token at once, the first to put
    /// it in place wins, for both. Returns the token kept.
    fn write_api_token(&self, replace: bool) -> Result<String, Error> {
        let home = &self.config().home;
        let token = new_token();
        let path = home.join(TOKEN_FILE);
        let fresh = home.join(format!(".{TOKEN_FILE}.{}", uuid::Uuid::new_v4().simple()));
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&fresh)
            .map_err(io)?;
        file.write_all(token.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(io)?;
        if replace {
            // Two processes replacing it at once: the one kept is the last renamed, for both.
            std::fs::rename(&fresh, &path).map_err(io)?;
        } else {
            let linked = std::fs::hard_link(&fresh, &path);
            let _ = std::fs::remove_file(&fresh);
            match linked {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(io(e)),
                _ => {}
            }
        }
        Ok(std::fs::read_to_string(&path).map_err(io)?.trim().to_string())
    }

    /// Makes a token named `name` that sees only the folders at `folders` (each with its
    /// subfolders); returns it with its secret, which is shown this once and kept only hashed.
    pub fn create_api_token(&self, name: &str, folders: &[String]) -> Result<(ApiToken, String), Error> {
        let catalog = self.engine.catalog();
        let ids = folders
            .iter()
            .map(|path| Ok(catalog.folder_by_path(path)?.id))
            .collect::<Result<Vec<FolderId>, Error>>()?;
        if ids.is_empty() {
            return Err(Error::Config {
                name: "folders".into(),
                reason: "a limited token needs at least one folder (the library's own token sees everything)".into(),
            });
        }
        let secret = new_token();
        let token = catalog.add_api_token(name, &hash(&secret), &ids)?;
        Ok((token, secret))
    }

    /// The tokens limited to folders.
    pub fn api_tokens(&self) -> Result<Vec<ApiToken>, Error> {
        Ok(self.engine.catalog().api_tokens()?)
    }

    /// Forgets the limited token `name`; it stops working at once.
    pub fn remove_api_token(&self, name: &str) -> Result<(), Error> {
        Ok(self.engine.catalog().remove_api_token(name)?)
    }

    /// What `secret` may reach: the whole library for the library's token (read anew, so that a
    /// rotation takes effect at once; none is made here), its folders for a limited token,
    /// `None` for neither.
    pub fn api_access(&self, secret: &str) -> Result<Option<Access>, Error> {
        if self.kept_api_token()?.is_some_and(|token| matches(secret, &token)) {
            return Ok(Some(Access::whole_library("library")));
        }
        let catalog = self.engine.catalog();
        let Some(token) = catalog.api_token_by_hash(&hash(secret))? else {
            return Ok(None);
        };
        let folders = catalog
            .list_folders()?
            .into_iter()
            .filter(|f| token.folders.contains(&f.id))
            .collect();
        Ok(Some(Access {
            holder: token.name,
            folders: Some(folders),
        }))
    }

    /// The folders `access` sees, ordered by path.
    pub fn folders_seen_by(&self, access: &Access) -> Result<Vec<Folder>, Error> {
        Ok(self.folders()?.into_iter().filter(|f| access.sees(f)).collect())
    }

    /// The document `id` names for `access`: its whole id, or the only id that starts with it
    /// among the documents `access` sees. One it does not see is not found, as one that does
    /// not exist, and does not make a prefix ambiguous.
    pub fn document_seen_by(&self, access: &Access, id: &str) -> Result<Document, Error> {
        let seen = self.folders_seen_by(access)?;
        self.find_document(id, |d| seen.iter().any(|f| f.id == d.folder))
    }

    /// Adds a served request to the library's request log.
    pub fn log_api_request(&self, request: &ApiRequest) -> Result<(), Error> {
        Ok(self.engine.catalog().log_api_request(request)?)
    }

    /// The latest `limit` requests served, oldest first.
    pub fn api_requests(&self, limit: usize) -> Result<Vec<ApiRequest>, Error> {
        Ok(self.engine.catalog().api_requests(limit)?)
    }
}

/// A new secret: two random (version 4) UUIDs, 244 bits from the system's random source.
fn new_token() -> String {
    format!(
        "lectern-{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// How a limited token is kept: its SHA-256, in hex. Looking a hash up leaks nothing of the
/// secret.
fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Whether `given` is `token`, compared byte by byte to the end whatever they hold.
fn matches(given: &str, token: &str) -> bool {
    given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |d, (a, b)| d | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(id: i64, path: &str) -> Folder {
        Folder {
            id: FolderId(id),
            parent: None,
            name: path.rsplit('/').next().unwrap_or(path).to_string(),
            path: path.to_string(),
            strategy: None,
            inherited_strategy: None,
            created_at: 0,
        }
    }

    #[test]
    fn a_limited_access_sees_its_folders_and_their_subfolders_only() {
        let work = Access {
            holder: "t".into(),
            folders: Some(vec![folder(1, "Work")]),
        };
        assert!(work.sees(&folder(1, "Work")));
        assert!(work.sees(&folder(2, "Work/Taxes")));
        assert!(!work.sees(&folder(3, "Workshop")));
        assert!(!work.sees(&folder(4, "Home/Work")));
        assert_eq!(work.everything().map(|s| s.folders), Some(vec![FolderId(1)]));
        let nothing = Access {
            holder: "t".into(),
            folders: Some(Vec::new()),
        };
        assert!(!nothing.sees(&folder(1, "Work")));
        assert!(
            nothing.everything().is_none(),
            "a token left without folders must not mean everything"
        );
        assert!(Access::whole_library("library").sees(&folder(3, "Workshop")));
    }

    #[test]
    fn tokens_match_only_whole() {
        assert!(matches("lectern-abc", "lectern-abc"));
        assert!(!matches("lectern-ab", "lectern-abc"));
        assert!(!matches("lectern-abd", "lectern-abc"));
        assert!(!matches("", "lectern-abc"));
    }
}
