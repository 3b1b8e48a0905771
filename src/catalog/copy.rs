//! A catalog copied whole into another, empty one (SQLite into PostgreSQL or back), every row
//! with its id, so that a document's index, keyed by its id, stays its own. The two schemas hold
//! the same columns under the same names (`migrations.rs`), so each table is read and written
//! through the same statements; a folder comes after its parent. Secrets are left out: the
//! library hands them over for the target to keep as it keeps secrets (sealed in a database),
//! never copied as they lie.

use std::collections::HashMap;

use super::sql::Value;
use super::{Catalog, CatalogError, FolderId};

/// Each table and the columns copied, in an order in which every row's references exist
/// before it: the documents' log before the jobs, so that copying it copies no job event twice
/// (in a database a trigger copies a document's log into its open jobs').
const TABLES: &[(&str, &str)] = &[
    (
        "documents",
        "id, folder_id, file_name, title, author, pdf_created, page_count, byte_size, char_count, chunk_count, \
         content_hash, added_at, status, reason, progress_done, progress_total, index_generation, interrupted, \
         embedded_with, embed_done, embed_total, progress_ocr_page, source_path, mime_type, file_modified, \
         pdf_modified",
    ),
    ("document_log", "id, document_id, at, level, message"),
    ("chats", "id, title, scope, created_at, updated_at, strategy"),
    (
        "chat_messages",
        "id, chat_id, role, content, citations, kind, backend, created_at",
    ),
    ("settings", "key, value"),
    (
        "links",
        "id, folder_id, path, keep_deleted, created_at, last_sync, available, pending, failed, device, machine",
    ),
    (
        "linked_files",
        "link_id, rel_path, size, mtime, content_hash, document_id",
    ),
    ("api_tokens", "id, name, hash, created_at"),
    ("api_token_folders", "token_id, folder_id"),
    ("api_requests", "id, at, holder, method, path, scope, status, millis"),
    (
        "jobs",
        "id, folder, holder, created_at, state, ended_at, rejected, adding",
    ),
    ("job_documents", "job_id, document_id"),
    ("job_events", "id, job_id, at, level, document_id, message"),
];

/// The tables whose ids a database numbers itself, and go on numbering after a copy.
const NUMBERED: &[&str] = &[
    "folders",
    "document_log",
    "chat_messages",
    "links",
    "api_tokens",
    "api_requests",
    "job_events",
];

impl Catalog {
    /// Whether the catalog holds nothing a user made: no document, chat, token, link or remote,
    /// and no folder but the one a new library starts with.
    pub fn is_new(&self) -> Result<bool, CatalogError> {
        let made: i64 = self.db.query_one(
            "SELECT (SELECT COUNT(*) FROM documents) + (SELECT COUNT(*) FROM chats)
                  + (SELECT COUNT(*) FROM api_tokens) + (SELECT COUNT(*) FROM links)
                  + (SELECT COUNT(*) FROM remotes) + (SELECT COUNT(*) FROM folders) - 1",
            &[],
            |r| r.get(0),
        )?;
        Ok(made <= 0)
    }

    /// Copies every row of this catalog into `target`, an empty catalog, in one transaction of
    /// the target's: its folders (the new library's first folder replaced), documents, logs,
    /// chats, settings, links, tokens, request log and jobs. Secrets are not copied (the
    /// library gives them to the target to keep as it keeps secrets), nor are remotes, which
    /// hold one.
    pub fn copy_into(&self, target: &Catalog) -> Result<(), CatalogError> {
        target.locked(|target| {
            target.db.execute("DELETE FROM folders", &[])?;
            self.copy_folders(target)?;
            for (table, columns) in TABLES {
                self.copy_table(target, table, columns)?;
            }
            target.db.renumber(NUMBERED)
        })
    }

    /// The folders, each after its parent.
    fn copy_folders(&self, target: &Catalog) -> Result<(), CatalogError> {
        let rows = self.db.query(
            "SELECT id, parent_id, name, created_at, strategy FROM folders",
            &[],
            |r| {
                Ok((
                    r.get::<i64>(0)?,
                    (0..5).map(|i| r.get::<Value>(i)).collect::<Result<Vec<_>, _>>()?,
                ))
            },
        )?;
        let parents: HashMap<i64, i64> = rows
            .iter()
            .filter_map(|(id, row)| match row[1] {
                Value::Int(parent) => Some((*id, parent)),
                _ => None,
            })
            .collect();
        // Bounded: the rows cannot hold a cycle, but are not trusted to.
        let depth = |id: i64| {
            std::iter::successors(Some(id), |id| parents.get(id).copied())
                .take(parents.len() + 1)
                .count()
        };
        let mut ordered: Vec<_> = rows
            .into_iter()
            .map(|(id, row)| (depth(id), FolderId(id), row))
            .collect();
        ordered.sort_by_key(|(depth, id, _)| (*depth, *id));
        for (_, _, row) in ordered {
            target.db.execute(
                "INSERT INTO folders (id, parent_id, name, created_at, strategy) VALUES (?1, ?2, ?3, ?4, ?5)",
                &row,
            )?;
        }
        Ok(())
    }

    fn copy_table(&self, target: &Catalog, table: &str, columns: &str) -> Result<(), CatalogError> {
        let count = columns.split(',').count();
        let order = if table == "jobs" { "rowid" } else { "1" };
        let rows = self
            .db
            .query(&format!("SELECT {columns} FROM {table} ORDER BY {order}"), &[], |r| {
                (0..count).map(|i| r.get::<Value>(i)).collect::<Result<Vec<_>, _>>()
            })?;
        let placeholders: Vec<String> = (1..=count).map(|i| format!("?{i}")).collect();
        let insert = format!("INSERT INTO {table} ({columns}) VALUES ({})", placeholders.join(", "));
        for mut row in rows {
            if table == "settings" {
                // The salt of the source's sealed secrets: the target makes its own.
                if matches!(row.first(), Some(Value::Text(key)) if key == super::sealed::SALT) {
                    continue;
                }
                without_api_key(&mut row);
            }
            target.db.execute(&insert, &row)?;
        }
        Ok(())
    }
}

/// A settings row (key, value) without the model server's API key a JSON value may hold (the
/// library keeps the key again as the target keeps secrets), and with no keyring mark.
fn without_api_key(row: &mut [Value]) {
    let [Value::Text(key), Value::Text(value)] = row else {
        return;
    };
    if key == API_KEY_IN_KEYRING {
        *value = "false".into();
    } else if let Ok(serde_json::Value::Object(mut settings)) = serde_json::from_str(value) {
        if settings.remove("api_key").is_some() {
            *value = serde_json::Value::Object(settings).to_string();
        }
    }
}

/// The setting that says the model server's API key is in the keyring (`library/settings.rs`).
pub const API_KEY_IN_KEYRING: &str = "api_key_in_keyring";
