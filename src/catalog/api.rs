//! What the server keeps: tokens for other programs limited to folders (only each token's
//! SHA-256 is stored; a deleted folder leaves its tokens, which then see less), and the log of
//! the requests it served, with who asked and over which scope, never what was asked.

use rusqlite::params;
use serde::Serialize;

use super::{now_millis, Catalog, CatalogError, FolderId};

/// How many requests the log keeps.
const KEPT_REQUESTS: i64 = 10_000;

/// A token limited to folders (the library's own token, in the data directory, sees everything).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ApiToken {
    pub name: String,
    /// The folders it sees, each with its subfolders; empty once they are all deleted.
    pub folders: Vec<FolderId>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// One request the server served.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ApiRequest {
    /// Milliseconds since the Unix epoch.
    pub at: i64,
    /// Whose token: "library" or a limited token's name.
    pub holder: String,
    pub method: String,
    pub path: String,
    /// What it could reach: "library", "folder Work/Taxes", "document …", or "-" when refused.
    pub scope: String,
    pub status: u16,
    pub millis: u64,
}

impl Catalog {
    /// Keeps a token limited to `folders` under `name`, by its hash.
    pub fn add_api_token(&mut self, name: &str, hash: &str, folders: &[FolderId]) -> Result<ApiToken, CatalogError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 255 {
            return Err(CatalogError::InvalidName(name.to_string()));
        }
        let tx = self.conn.transaction()?;
        let created_at = now_millis();
        let added = tx.execute(
            "INSERT INTO api_tokens (name, hash, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            params![name, hash, created_at],
        )?;
        if added == 0 {
            return Err(CatalogError::NameClash {
                name: name.to_string(),
                parent: "the server's tokens".into(),
            });
        }
        let id = tx.last_insert_rowid();
        for folder in folders {
            tx.execute(
                "INSERT OR IGNORE INTO api_token_folders (token_id, folder_id) VALUES (?1, ?2)",
                params![id, folder.0],
            )?;
        }
        tx.commit()?;
        self.api_token_where("id = ?1", id)?
            .ok_or_else(|| CatalogError::TokenNotFound(name.to_string()))
    }

    /// The token whose hash is `hash`, if one is kept.
    pub fn api_token_by_hash(&self, hash: &str) -> Result<Option<ApiToken>, CatalogError> {
        self.api_token_where("hash = ?1", hash)
    }

    fn api_token_where(&self, condition: &str, value: impl rusqlite::ToSql) -> Result<Option<ApiToken>, CatalogError> {
        self.api_tokens_where(condition, [value])
            .map(|tokens| tokens.into_iter().next())
    }

    /// Every limited token, by name.
    pub fn api_tokens(&self) -> Result<Vec<ApiToken>, CatalogError> {
        self.api_tokens_where("1", params![])
    }

    fn api_tokens_where(&self, condition: &str, values: impl rusqlite::Params) -> Result<Vec<ApiToken>, CatalogError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT id, name, created_at FROM api_tokens WHERE {condition} ORDER BY name COLLATE NOCASE"
        ))?;
        let rows = stmt
            .query_map(values, |r| Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<Vec<(i64, String, i64)>, _>>()?;
        rows.into_iter()
            .map(|(id, name, created_at)| {
                Ok(ApiToken {
                    name,
                    folders: self.api_token_folders(id)?,
                    created_at,
                })
            })
            .collect()
    }

    fn api_token_folders(&self, token: i64) -> Result<Vec<FolderId>, CatalogError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT folder_id FROM api_token_folders WHERE token_id = ?1 ORDER BY folder_id")?;
        let folders = stmt.query_map([token], |r| Ok(FolderId(r.get(0)?)))?;
        Ok(folders.collect::<Result<_, _>>()?)
    }

    /// Forgets the token `name`: it stops working at once.
    pub fn remove_api_token(&mut self, name: &str) -> Result<(), CatalogError> {
        match self
            .conn
            .execute("DELETE FROM api_tokens WHERE name = ?1", [name.trim()])?
        {
            0 => Err(CatalogError::TokenNotFound(name.to_string())),
            _ => Ok(()),
        }
    }

    /// Adds a request to the log, dropping the oldest beyond the ones kept.
    pub fn log_api_request(&self, request: &ApiRequest) -> Result<(), CatalogError> {
        self.conn.execute(
            "INSERT INTO api_requests (at, holder, method, path, scope, status, millis)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                request.at,
                request.holder,
                request.method,
                request.path,
                request.scope,
                request.status,
                request.millis
            ],
        )?;
        // Pruned once in a hundred requests, not at each.
        if self.conn.last_insert_rowid() % 100 == 0 {
            self.conn.execute(
                "DELETE FROM api_requests WHERE id <= (SELECT max(id) FROM api_requests) - ?1",
                [KEPT_REQUESTS],
            )?;
        }
        Ok(())
    }

    /// The latest `limit` requests, oldest first.
    pub fn api_requests(&self, limit: usize) -> Result<Vec<ApiRequest>, CatalogError> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT at, holder, method, path, scope, status, millis FROM
               (SELECT * FROM api_requests ORDER BY id DESC LIMIT ?1) ORDER BY id",
        )?;
        let rows = stmt.query_map([i64::try_from(limit).unwrap_or(i64::MAX)], |r| {
            Ok(ApiRequest {
                at: r.get(0)?,
                holder: r.get(1)?,
                method: r.get(2)?,
                path: r.get(3)?,
                scope: r.get(4)?,
                status: r.get(5)?,
                millis: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
