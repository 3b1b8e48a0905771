//! Versioned schema migrations, applied in order and recorded in SQLite's `user_version`.
//!
//! A migration is never edited once released: a change to the schema is a new entry at the end.
//! Each step is tested from the schema before it (`tests/core/catalog.rs`).

use rusqlite::Connection;

use super::error::CatalogError;

/// The migrations, in order; after applying the first `n`, `user_version` is `n`.
pub const MIGRATIONS: &[&str] = &[
    // 1: nested folders and documents.
    r#"
    CREATE TABLE folders (
        id          INTEGER PRIMARY KEY,
        parent_id   INTEGER REFERENCES folders(id),
        name        TEXT NOT NULL,
        created_at  INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX folders_sibling_name ON folders (IFNULL(parent_id, 0), name COLLATE NOCASE);
    CREATE TABLE documents (
        id              TEXT PRIMARY KEY,
        folder_id       INTEGER NOT NULL REFERENCES folders(id),
        file_name       TEXT NOT NULL,
        title           TEXT,
        author          TEXT,
        pdf_created     TEXT,
        page_count      INTEGER,
        byte_size       INTEGER NOT NULL,
        char_count      INTEGER,
        chunk_count     INTEGER,
        content_hash    TEXT NOT NULL,
        added_at        INTEGER NOT NULL,
        status          TEXT NOT NULL,
        reason          TEXT,
        progress_done   INTEGER NOT NULL DEFAULT 0,
        progress_total  INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX documents_folder ON documents (folder_id);
    CREATE INDEX documents_status ON documents (status);
    "#,
    // 2: passwords given to `doc unlock`, kept apart from the listing columns and looked up by
    //    content hash so that a re-index after a restart can open the file again.
    r#"
    CREATE TABLE document_passwords (
        content_hash  TEXT PRIMARY KEY,
        password      TEXT NOT NULL
    );
    CREATE INDEX documents_hash ON documents (content_hash);
    "#,
    // 3: a counter bumped each time a document's index is (re)published, so that query-side caches
    //    of an index can tell a rebuilt index from the one they hold.
    r#"
    ALTER TABLE documents ADD COLUMN index_generation INTEGER NOT NULL DEFAULT 0;
    "#,
    // 4: chats: each with its scope, and its messages with the structured citations of answers.
    r#"
    CREATE TABLE chats (
        id          TEXT PRIMARY KEY,
        title       TEXT NOT NULL,
        scope       TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
    );
    CREATE TABLE chat_messages (
        id          INTEGER PRIMARY KEY,
        chat_id     TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
        role        TEXT NOT NULL,
        content     TEXT NOT NULL,
        citations   TEXT NOT NULL DEFAULT '[]',
        kind        TEXT,
        backend     TEXT,
        created_at  INTEGER NOT NULL
    );
    CREATE INDEX chat_messages_chat ON chat_messages (chat_id, id);
    "#,
    // 5: the user's settings, one JSON value per key.
    r#"
    CREATE TABLE settings (
        key    TEXT PRIMARY KEY,
        value  TEXT NOT NULL
    );
    "#,
    // 6: directories linked to folders, and which file of a link each of its documents came from.
    r#"
    CREATE TABLE links (
        id            INTEGER PRIMARY KEY,
        folder_id     INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        path          TEXT NOT NULL UNIQUE,
        keep_deleted  INTEGER NOT NULL DEFAULT 0,
        created_at    INTEGER NOT NULL,
        last_sync     INTEGER,
        available     INTEGER NOT NULL DEFAULT 1,
        pending       INTEGER NOT NULL DEFAULT 0,
        failed        TEXT NOT NULL DEFAULT '[]'
    );
    CREATE TABLE linked_files (
        link_id       INTEGER NOT NULL REFERENCES links(id) ON DELETE CASCADE,
        rel_path      TEXT NOT NULL,
        size          INTEGER NOT NULL,
        mtime         INTEGER NOT NULL,
        content_hash  TEXT NOT NULL,
        document_id   TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        PRIMARY KEY (link_id, rel_path)
    );
    "#,
    // 7: how many indexers in a row stopped (the process died) while indexing a document, so that
    //    a file that takes the program down is set aside rather than retried at every start.
    r#"
    ALTER TABLE documents ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0;
    "#,
    // 8: the device a linked directory was last seen on with files in it, so that the empty
    //    mount point of an unmounted drive is told apart from a directory whose files were deleted.
    r#"
    ALTER TABLE links ADD COLUMN device INTEGER;
    "#,
    // 9: a password kept in the system keyring leaves only a mark here.
    r#"
    ALTER TABLE document_passwords ADD COLUMN in_keyring INTEGER NOT NULL DEFAULT 0;
    "#,
    // 10: an index is published keyword-searchable first and gets its vectors after; a ready
    // document records which model made its vectors (none yet: searched by keyword) and how far
    // embedding has come.
    r#"
    ALTER TABLE documents ADD COLUMN embedded_with TEXT;
    ALTER TABLE documents ADD COLUMN embed_done INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE documents ADD COLUMN embed_total INTEGER NOT NULL DEFAULT 0;
    "#,
    // 11: the page being read by OCR while a document is read.
    r#"
    ALTER TABLE documents ADD COLUMN progress_ocr_page INTEGER;
    "#,
    // 12: where a document came from (the file's path, type and modification time), the PDF's
    //     own modification date, and each document's log: what happened to it and when.
    r#"
    ALTER TABLE documents ADD COLUMN source_path TEXT;
    ALTER TABLE documents ADD COLUMN mime_type TEXT;
    ALTER TABLE documents ADD COLUMN file_modified INTEGER;
    ALTER TABLE documents ADD COLUMN pdf_modified TEXT;
    CREATE TABLE document_log (
        id           INTEGER PRIMARY KEY,
        document_id  TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        at           INTEGER NOT NULL,
        level        TEXT NOT NULL,
        message      TEXT NOT NULL
    );
    CREATE INDEX document_log_document ON document_log (document_id, id);
    "#,
    // 13: tokens for other programs limited to folders (kept as hashes), and the log of what
    //     the server was asked.
    r#"
    CREATE TABLE api_tokens (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
        hash        TEXT NOT NULL UNIQUE,
        created_at  INTEGER NOT NULL
    );
    CREATE TABLE api_token_folders (
        token_id   INTEGER NOT NULL REFERENCES api_tokens(id) ON DELETE CASCADE,
        folder_id  INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
        PRIMARY KEY (token_id, folder_id)
    );
    CREATE TABLE api_requests (
        id        INTEGER PRIMARY KEY,
        at        INTEGER NOT NULL,
        holder    TEXT NOT NULL,
        method    TEXT NOT NULL,
        path      TEXT NOT NULL,
        scope     TEXT NOT NULL,
        status    INTEGER NOT NULL,
        millis    INTEGER NOT NULL
    );
    "#,
    // 14: indexing jobs other programs follow: the documents of each, and its log. A document's
    //     log entries are copied into the log of each job of it that has not ended.
    r#"
    CREATE TABLE jobs (
        id          TEXT PRIMARY KEY,
        folder      TEXT NOT NULL,
        holder      TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        state       TEXT NOT NULL,
        ended_at    INTEGER,
        rejected    INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE job_documents (
        job_id       TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        document_id  TEXT NOT NULL,
        PRIMARY KEY (job_id, document_id)
    );
    CREATE INDEX job_documents_document ON job_documents (document_id);
    CREATE TABLE job_events (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id       TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
        at           INTEGER NOT NULL,
        level        TEXT NOT NULL,
        document_id  TEXT,
        message      TEXT NOT NULL
    );
    CREATE INDEX job_events_job ON job_events (job_id, id);
    CREATE TRIGGER job_events_from_document_log AFTER INSERT ON document_log
    BEGIN
        INSERT INTO job_events (job_id, at, level, document_id, message)
        SELECT jobs.id, NEW.at, NEW.level, NEW.document_id, NEW.message
        FROM job_documents JOIN jobs ON jobs.id = job_documents.job_id
        WHERE job_documents.document_id = NEW.document_id AND jobs.ended_at IS NULL;
    END;
    "#,
    // 15: when a question searches: a chat's retrieval strategy, and a folder's default for the
    //     chats over it (NULL: as the parent folder says, else always).
    r#"
    ALTER TABLE chats ADD COLUMN strategy TEXT;
    ALTER TABLE folders ADD COLUMN strategy TEXT;
    "#,
    // 16: remote libraries (other Lectern servers): a token kept here only when no keyring
    //     answers.
    r#"
    CREATE TABLE remotes (
        name              TEXT PRIMARY KEY COLLATE NOCASE,
        url               TEXT NOT NULL,
        token             TEXT,
        token_in_keyring  INTEGER NOT NULL DEFAULT 0,
        created_at        INTEGER NOT NULL
    );
    "#,
];

/// The schema version this build writes.
pub fn latest() -> i64 {
    MIGRATIONS.len() as i64
}

/// Applies every migration the database has not seen yet, each in its own transaction.
pub fn apply(conn: &mut Connection) -> Result<(), CatalogError> {
    apply_up_to(conn, latest())
}

/// Applies migrations until the schema reaches `target` (used by tests to build older schemas).
/// Each step reads the version inside its own write transaction, so two programs opening a new
/// library at once apply each step once.
pub fn apply_up_to(conn: &mut Connection, target: i64) -> Result<(), CatalogError> {
    loop {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if current > latest() {
            return Err(CatalogError::TooNew {
                found: current,
                supported: latest(),
            });
        }
        if current >= target {
            return Ok(());
        }
        tx.execute_batch(MIGRATIONS[current as usize])?;
        tx.pragma_update(None, "user_version", current + 1)?;
        tx.commit()?;
    }
}
