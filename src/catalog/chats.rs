//! Chats: sessions of questions and answers, each with the scope it asks over, and messages that
//! keep their answers' structured citations so that a reopened chat still opens the cited pages.

use super::sql::{args, Row};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::error::CatalogError;
use super::{now_millis, Catalog, Scope};
use crate::ids::DocumentId;
use crate::llm::Role;

/// A footnote of an answer: the passage it cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Citation {
    /// The footnote number, from 1.
    pub number: usize,
    pub document: DocumentId,
    pub document_name: String,
    pub chunk_id: String,
    /// 1-based page.
    pub page: u32,
    /// The passage's character range in the page's text.
    pub char_start: u32,
    pub char_end: u32,
    /// The passage's text.
    pub quote: String,
    pub score: f32,
    /// The remote library the passage comes from (its name here); `None` for this library's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub remote: Option<String>,
}

/// How an answer was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum AnswerKind {
    /// A language model wrote it from the passages.
    Generated,
    /// The best passages, quoted.
    Extractive,
    /// Nothing in scope was relevant enough; the nearest passages are listed.
    NotFound,
    /// Lectern computed the figure asked for from the rows of a document's statements, each
    /// operand cited; no model wrote it.
    Computed,
}

/// When a question of a chat searches the documents (the design's retrieval strategies).
/// Whatever it decides, an answer's citations are checked the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Every message searches.
    #[default]
    Always,
    /// Every message searches, and the model reads only the passages that clearly bear on it.
    Confidence,
    /// The model is offered a search tool and decides whether to call it, and with what query.
    Function,
    /// A rule decides: small talk and requests about the last answer ("shorter please", "make
    /// it a table") do not search.
    Smart,
}

impl Strategy {
    pub const ALL: [Strategy; 4] = [
        Strategy::Always,
        Strategy::Confidence,
        Strategy::Function,
        Strategy::Smart,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Always => "always",
            Strategy::Confidence => "confidence",
            Strategy::Function => "function",
            Strategy::Smart => "smart",
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Strategy {
    type Err = CatalogError;

    fn from_str(name: &str) -> Result<Strategy, CatalogError> {
        Strategy::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| CatalogError::UnknownStrategy(name.to_string()))
    }
}

/// A stored strategy name, read back.
pub(super) fn stored_strategy(name: Option<String>) -> Result<Option<Strategy>, CatalogError> {
    name.map(|n| n.parse()).transpose()
}

/// A chat's id.
pub type ChatId = Uuid;

/// A chat, without its messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Chat {
    pub id: ChatId,
    pub title: String,
    pub scope: Scope,
    /// The chat's own retrieval strategy; without one, its folders' default.
    pub strategy: Option<Strategy>,
    pub created_at: i64,
    pub updated_at: i64,
    pub message_count: u64,
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ChatMessage {
    pub id: i64,
    pub role: Role,
    /// The question, or the answer's markdown body with footnote references.
    pub content: String,
    /// The answer's footnotes (empty for questions).
    pub citations: Vec<Citation>,
    /// How the answer was made (none for questions).
    pub kind: Option<AnswerKind>,
    /// Which backend answered.
    pub backend: Option<String>,
    pub created_at: i64,
}

/// A message to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage<'a> {
    pub role: Role,
    pub content: &'a str,
    pub citations: &'a [Citation],
    pub kind: Option<AnswerKind>,
    pub backend: Option<&'a str>,
}

/// The longest chat title kept.
const TITLE_CHARS: usize = 120;

fn clean_title(title: &str) -> Result<String, CatalogError> {
    let words = title.split_whitespace().collect::<Vec<_>>().join(" ");
    if words.is_empty() {
        return Err(CatalogError::InvalidName(title.to_string()));
    }
    Ok(words.chars().take(TITLE_CHARS).collect())
}

fn bad(what: &'static str) -> impl Fn(serde_json::Error) -> CatalogError {
    move |e| CatalogError::BadChatData {
        what,
        reason: e.to_string(),
    }
}

const CHAT_COLUMNS: &str = "c.id, c.title, c.scope, c.created_at, c.updated_at, \
     (SELECT COUNT(*) FROM chat_messages m WHERE m.chat_id = c.id), c.strategy";

type ChatRow = (String, String, String, i64, i64, u64, Option<String>);

fn chat_row(row: &Row<'_>) -> Result<ChatRow, CatalogError> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
        row.get(5)?,
        row.get(6)?,
    ))
}

fn to_chat((id, title, scope, created_at, updated_at, message_count, strategy): ChatRow) -> Result<Chat, CatalogError> {
    Ok(Chat {
        id: Uuid::parse_str(&id).map_err(|e| CatalogError::BadChatData {
            what: "id",
            reason: e.to_string(),
        })?,
        title,
        scope: serde_json::from_str(&scope).map_err(bad("scope"))?,
        strategy: stored_strategy(strategy)?,
        created_at,
        updated_at,
        message_count,
    })
}

impl Catalog {
    /// Starts a chat over `scope`.
    pub fn create_chat(&self, title: &str, scope: &Scope) -> Result<Chat, CatalogError> {
        let id = Uuid::new_v4();
        let now = now_millis();
        let scope_json = serde_json::to_string(scope).map_err(bad("scope"))?;
        self.db.execute(
            "INSERT INTO chats (id, title, scope, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
            args![id.to_string(), clean_title(title)?, scope_json, now],
        )?;
        self.chat(id)
    }

    pub fn chat(&self, id: ChatId) -> Result<Chat, CatalogError> {
        let row = self
            .db
            .query_opt(
                &format!("SELECT {CHAT_COLUMNS} FROM chats c WHERE c.id = ?1"),
                args![id.to_string()],
                chat_row,
            )?
            .ok_or_else(|| CatalogError::ChatNotFound(id.to_string()))?;
        to_chat(row)
    }

    /// Every chat, most recently active first.
    pub fn list_chats(&self) -> Result<Vec<Chat>, CatalogError> {
        let rows = self.db.query(
            &format!("SELECT {CHAT_COLUMNS} FROM chats c ORDER BY c.updated_at DESC, c.id"),
            &[],
            chat_row,
        )?;
        rows.into_iter().map(to_chat).collect()
    }

    pub fn rename_chat(&self, id: ChatId, title: &str) -> Result<Chat, CatalogError> {
        let changed = self.db.execute(
            "UPDATE chats SET title = ?2 WHERE id = ?1",
            args![id.to_string(), clean_title(title)?],
        )?;
        if changed == 0 {
            return Err(CatalogError::ChatNotFound(id.to_string()));
        }
        self.chat(id)
    }

    /// Sets the scope later questions of the chat ask over.
    pub fn set_chat_scope(&self, id: ChatId, scope: &Scope) -> Result<(), CatalogError> {
        let scope_json = serde_json::to_string(scope).map_err(bad("scope"))?;
        let changed = self.db.execute(
            "UPDATE chats SET scope = ?2 WHERE id = ?1",
            args![id.to_string(), scope_json],
        )?;
        if changed == 0 {
            return Err(CatalogError::ChatNotFound(id.to_string()));
        }
        Ok(())
    }

    /// Sets the chat's own retrieval strategy (`None`: its folders' default from now on).
    pub fn set_chat_strategy(&self, id: ChatId, strategy: Option<Strategy>) -> Result<(), CatalogError> {
        let changed = self.db.execute(
            "UPDATE chats SET strategy = ?2 WHERE id = ?1",
            args![id.to_string(), strategy.map(Strategy::as_str)],
        )?;
        if changed == 0 {
            return Err(CatalogError::ChatNotFound(id.to_string()));
        }
        Ok(())
    }

    /// Deletes a chat and its messages.
    pub fn delete_chat(&self, id: ChatId) -> Result<(), CatalogError> {
        let changed = self
            .db
            .execute("DELETE FROM chats WHERE id = ?1", args![id.to_string()])?;
        if changed == 0 {
            return Err(CatalogError::ChatNotFound(id.to_string()));
        }
        Ok(())
    }

    /// Appends a message and marks the chat active now.
    pub fn add_chat_message(&self, chat: ChatId, message: &NewMessage<'_>) -> Result<i64, CatalogError> {
        let citations = serde_json::to_string(message.citations).map_err(bad("citations"))?;
        let kind = message
            .kind
            .map(|k| serde_json::to_value(k).map_err(bad("answer kind")))
            .transpose()?
            .and_then(|v| v.as_str().map(str::to_string));
        let db = &self.db;
        db.transaction(|| {
            let now = now_millis();
            let changed = db.execute(
                "UPDATE chats SET updated_at = ?2 WHERE id = ?1",
                args![chat.to_string(), now],
            )?;
            if changed == 0 {
                return Err(CatalogError::ChatNotFound(chat.to_string()));
            }
            db.query_one(
                "INSERT INTO chat_messages (chat_id, role, content, citations, kind, backend, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
                args![
                    chat.to_string(),
                    message.role.as_str(),
                    message.content,
                    citations,
                    kind,
                    message.backend,
                    now
                ],
                |r| r.get(0),
            )
        })
    }

    /// A chat's messages, oldest first.
    pub fn chat_messages(&self, chat: ChatId) -> Result<Vec<ChatMessage>, CatalogError> {
        self.chat(chat)?;
        let rows = self.db.query(
            "SELECT id, role, content, citations, kind, backend, created_at
             FROM chat_messages WHERE chat_id = ?1 ORDER BY id",
            args![chat.to_string()],
            |row| {
                Ok((
                    row.get::<i64>(0)?,
                    row.get::<String>(1)?,
                    row.get::<String>(2)?,
                    row.get::<String>(3)?,
                    row.get::<Option<String>>(4)?,
                    row.get::<Option<String>>(5)?,
                    row.get::<i64>(6)?,
                ))
            },
        )?;
        rows.into_iter()
            .map(|(id, role, content, citations, kind, backend, created_at)| {
                Ok(ChatMessage {
                    id,
                    role: serde_json::from_value(serde_json::Value::String(role)).map_err(bad("role"))?,
                    content,
                    citations: serde_json::from_str(&citations).map_err(bad("citations"))?,
                    kind: kind
                        .map(|k| serde_json::from_value(serde_json::Value::String(k)))
                        .transpose()
                        .map_err(bad("answer kind"))?,
                    backend,
                    created_at,
                })
            })
            .collect()
    }
}
