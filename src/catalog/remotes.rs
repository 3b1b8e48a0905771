//! Remote libraries: other Lectern servers whose library (or one folder of it, as their token
//! allows) is asked beside this one's folders. A remote's token is a secret: in the keyring
//! where one answers (the row keeps a mark), else in the row, in the `0700` library directory.

use super::sql::{args, Row};
use serde::{Deserialize, Serialize};

use super::{now_millis, validate_name, Catalog, CatalogError};

/// A remote library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Remote {
    /// The name it goes by here, unique (case-insensitively).
    pub name: String,
    /// The server's API base, as `lectern serve` prints it (`http://host:8765/v1`).
    pub url: String,
    pub created_at: i64,
}

/// A remote as stored: its token, or the mark that the keyring holds it.
#[derive(Debug, Clone)]
pub struct StoredRemote {
    pub remote: Remote,
    /// The token when it is kept in the library.
    pub token: Option<String>,
    pub token_in_keyring: bool,
}

fn stored(row: &Row<'_>) -> Result<StoredRemote, CatalogError> {
    Ok(StoredRemote {
        remote: Remote {
            name: row.get(0)?,
            url: row.get(1)?,
            created_at: row.get(4)?,
        },
        token: row.get(2)?,
        token_in_keyring: row.get(3)?,
    })
}

const COLUMNS: &str = "name, url, token, token_in_keyring, created_at";

impl Catalog {
    /// Adds a remote named `name` (a name not used yet) at `url`; `token` is kept here unless
    /// the keyring holds it.
    pub fn add_remote(
        &self,
        name: &str,
        url: &str,
        token: Option<&str>,
        token_in_keyring: bool,
    ) -> Result<Remote, CatalogError> {
        validate_name(name)?;
        if self.stored_remote(name)?.is_some() {
            return Err(CatalogError::NameClash {
                name: name.to_string(),
                parent: "the remote libraries".into(),
            });
        }
        self.db.execute(
            &format!("INSERT INTO remotes ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5)"),
            args![
                name.trim(),
                url,
                token.map(|t| self.seal(t, "a remote library's token")).transpose()?,
                token_in_keyring,
                now_millis()
            ],
        )?;
        Ok(self
            .stored_remote(name)?
            .ok_or_else(|| CatalogError::RemoteNotFound(name.to_string()))?
            .remote)
    }

    /// Every remote, by name.
    pub fn remotes(&self) -> Result<Vec<Remote>, CatalogError> {
        let rows = self.db.query(
            &format!("SELECT {COLUMNS} FROM remotes ORDER BY lower(name)"),
            &[],
            stored,
        )?;
        Ok(rows.into_iter().map(|r| r.remote).collect())
    }

    /// The remote named `name` (case-insensitively), with its token or its mark.
    pub fn stored_remote(&self, name: &str) -> Result<Option<StoredRemote>, CatalogError> {
        let found = self.db.query_opt(
            &format!("SELECT {COLUMNS} FROM remotes WHERE lower(name) = lower(?1)"),
            args![name.trim()],
            stored,
        )?;
        found
            .map(|remote| {
                Ok(StoredRemote {
                    token: remote.token.map(|t| self.unseal(t)).transpose()?,
                    ..remote
                })
            })
            .transpose()
    }

    /// Forgets the remote named `name`.
    pub fn remove_remote(&self, name: &str) -> Result<(), CatalogError> {
        let changed = self
            .db
            .execute("DELETE FROM remotes WHERE lower(name) = lower(?1)", args![name.trim()])?;
        if changed == 0 {
            return Err(CatalogError::RemoteNotFound(name.to_string()));
        }
        Ok(())
    }
}
