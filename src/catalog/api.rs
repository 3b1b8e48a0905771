//! What the server keeps: tokens for other programs limited to folders (only each token's
//! SHA-256 is stored; a deleted folder leaves its tokens, which then see less), and the log of
//! the requests it served, with who asked and over which scope, never what was asked.

use super::sql::{args, Value};
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
    pub fn add_api_token(&self, name: &str, hash: &str, folders: &[FolderId]) -> Result<ApiToken, CatalogError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 255 {
            return Err(CatalogError::InvalidName(name.to_string()));
        }
        let db = &self.db;
        let id: i64 = db.transaction(|| {
            let added = db.query_opt(
                "INSERT INTO api_tokens (name, hash, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING RETURNING id",
                args![name, hash, now_millis()],
                |r| r.get(0),
            )?;
            let Some(id) = added else {
                return Err(CatalogError::NameClash {
                    name: name.to_string(),
                    parent: "the server's tokens".into(),
                });
            };
            for folder in folders {
                db.execute(
                    "INSERT INTO api_token_folders (token_id, folder_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
                    args![id, folder.0],
                )?;
            }
            Ok(id)
        })?;
        self.api_token_where("id = ?1", Value::Int(id))?
            .ok_or_else(|| CatalogError::TokenNotFound(name.to_string()))
    }

    /// The token whose hash is `hash`, if one is kept.
    pub fn api_token_by_hash(&self, hash: &str) -> Result<Option<ApiToken>, CatalogError> {
        self.api_token_where("hash = ?1", Value::Text(hash.to_string()))
    }

    fn api_token_where(&self, condition: &str, value: Value) -> Result<Option<ApiToken>, CatalogError> {
        self.api_tokens_where(condition, &[value])
            .map(|tokens| tokens.into_iter().next())
    }

    /// Every limited token, by name.
    pub fn api_tokens(&self) -> Result<Vec<ApiToken>, CatalogError> {
        self.api_tokens_where("TRUE", &[])
    }

    fn api_tokens_where(&self, condition: &str, values: &[Value]) -> Result<Vec<ApiToken>, CatalogError> {
        let rows: Vec<(i64, String, i64)> = self.db.query(
            &format!("SELECT id, name, created_at FROM api_tokens WHERE {condition} ORDER BY lower(name)"),
            values,
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?;
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
        self.db.query(
            "SELECT folder_id FROM api_token_folders WHERE token_id = ?1 ORDER BY folder_id",
            args![token],
            |r| Ok(FolderId(r.get(0)?)),
        )
    }

    /// Forgets the token `name`: it stops working at once.
    pub fn remove_api_token(&self, name: &str) -> Result<(), CatalogError> {
        match self.db.execute(
            "DELETE FROM api_tokens WHERE lower(name) = lower(?1)",
            args![name.trim()],
        )? {
            0 => Err(CatalogError::TokenNotFound(name.to_string())),
            _ => Ok(()),
        }
    }

    /// Adds a request to the log, dropping the oldest beyond the ones kept.
    pub fn log_api_request(&self, request: &ApiRequest) -> Result<(), CatalogError> {
        let id: i64 = self.db.query_one(
            "INSERT INTO api_requests (at, holder, method, path, scope, status, millis)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
            args![
                request.at,
                request.holder,
                request.method,
                request.path,
                request.scope,
                request.status,
                request.millis
            ],
            |r| r.get(0),
        )?;
        // Pruned once in a hundred requests, not at each.
        if id % 100 == 0 {
            self.db.execute(
                "DELETE FROM api_requests WHERE id <= (SELECT max(id) FROM api_requests) - ?1",
                args![KEPT_REQUESTS],
            )?;
        }
        Ok(())
    }

    /// The latest `limit` requests, oldest first.
    pub fn api_requests(&self, limit: usize) -> Result<Vec<ApiRequest>, CatalogError> {
        self.db.query(
            "SELECT at, holder, method, path, scope, status, millis FROM
               (SELECT * FROM api_requests ORDER BY id DESC LIMIT ?1) AS latest ORDER BY id",
            args![limit],
            |r| {
                Ok(ApiRequest {
                    at: r.get(0)?,
                    holder: r.get(1)?,
                    method: r.get(2)?,
                    path: r.get(3)?,
                    scope: r.get(4)?,
                    status: r.get(5)?,
                    millis: r.get(6)?,
                })
            },
        )
    }
}
