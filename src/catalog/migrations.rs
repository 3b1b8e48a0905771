//! Versioned schema migrations, applied in order: SQLite's recorded in its `user_version`,
//! PostgreSQL's in the table `lectern_catalog_migrations`.
//!
//! A migration is never edited once released: a change to the schema is a new entry at the end,
//! in both lists (PostgreSQL's first entry is SQLite's first eighteen). Each SQLite step is
//! tested from the schema before it (`tests/core/catalog.rs`).
//!
//! The two schemas hold the same rows under the same names, so that one statement serves both
//! (`sql.rs`): integers are `bigint`, flags `boolean` (SQLite reads a boolean as 0 or 1), names
//! unique whatever their case have a unique index on `lower(name)`, and `jobs` has a `rowid`
//! column (SQLite's implicit one), the order jobs were made in.

use rusqlite::Connection;

use super::error::CatalogError;
use super::sql::Pg;

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
    // 17: a job whose files are still being added, which no indexer ends for having nothing
    //     left to do.
    r#"
    ALTER TABLE jobs ADD COLUMN adding INTEGER NOT NULL DEFAULT 0;
    "#,
    // 18: the machine a linked directory is on (its path means nothing on another one, which
    //     shares the library through a database).
    r#"
    ALTER TABLE links ADD COLUMN machine TEXT;
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

/// PostgreSQL's migrations, in order.
pub const POSTGRES_MIGRATIONS: &[&str] = &[
    // 1: SQLite's 1 to 18, and the PDFs.
    r#"
    create table folders (
        id          bigint generated by default as identity primary key,
        parent_id   bigint references folders(id),
        name        text not null,
        created_at  bigint not null,
        strategy    text
    );
    create unique index folders_sibling_name on folders (coalesce(parent_id, 0), lower(name));
    create table documents (
        id                 text primary key,
        folder_id          bigint not null references folders(id),
        file_name          text not null,
        title              text,
        author             text,
        pdf_created        text,
        page_count         bigint,
        byte_size          bigint not null,
        char_count         bigint,
        chunk_count        bigint,
        content_hash       text not null,
        added_at           bigint not null,
        status             text not null,
        reason             text,
        progress_done      bigint not null default 0,
        progress_total     bigint not null default 0,
        index_generation   bigint not null default 0,
        interrupted        bigint not null default 0,
        embedded_with      text,
        embed_done         bigint not null default 0,
        embed_total        bigint not null default 0,
        progress_ocr_page  bigint,
        source_path        text,
        mime_type          text,
        file_modified      bigint,
        pdf_modified       text
    );
    create index documents_folder on documents (folder_id);
    create index documents_status on documents (status);
    create index documents_hash on documents (content_hash);
    create table document_passwords (
        content_hash  text primary key,
        password      text not null,
        in_keyring    boolean not null default false
    );
    create table chats (
        id          text primary key,
        title       text not null,
        scope       text not null,
        created_at  bigint not null,
        updated_at  bigint not null,
        strategy    text
    );
    create table chat_messages (
        id          bigint generated by default as identity primary key,
        chat_id     text not null references chats(id) on delete cascade,
        role        text not null,
        content     text not null,
        citations   text not null default '[]',
        kind        text,
        backend     text,
        created_at  bigint not null
    );
    create index chat_messages_chat on chat_messages (chat_id, id);
    create table settings (
        key    text primary key,
        value  text not null
    );
    create table links (
        id            bigint generated by default as identity primary key,
        folder_id     bigint not null references folders(id) on delete cascade,
        path          text not null unique,
        keep_deleted  boolean not null default false,
        created_at    bigint not null,
        last_sync     bigint,
        available     boolean not null default true,
        pending       bigint not null default 0,
        failed        text not null default '[]',
        device        bigint,
        machine       text
    );
    create table linked_files (
        link_id       bigint not null references links(id) on delete cascade,
        rel_path      text not null,
        size          bigint not null,
        mtime         bigint not null,
        content_hash  text not null,
        document_id   text not null references documents(id) on delete cascade,
        primary key (link_id, rel_path)
    );
    create table document_log (
        id           bigint generated by default as identity primary key,
        document_id  text not null references documents(id) on delete cascade,
        at           bigint not null,
        level        text not null,
        message      text not null
    );
    create index document_log_document on document_log (document_id, id);
    create table api_tokens (
        id          bigint generated by default as identity primary key,
        name        text not null,
        hash        text not null unique,
        created_at  bigint not null
    );
    create unique index api_tokens_name on api_tokens (lower(name));
    create table api_token_folders (
        token_id   bigint not null references api_tokens(id) on delete cascade,
        folder_id  bigint not null references folders(id) on delete cascade,
        primary key (token_id, folder_id)
    );
    create table api_requests (
        id      bigint generated by default as identity primary key,
        at      bigint not null,
        holder  text not null,
        method  text not null,
        path    text not null,
        scope   text not null,
        status  bigint not null,
        millis  bigint not null
    );
    create table jobs (
        id          text primary key,
        folder      text not null,
        holder      text not null,
        created_at  bigint not null,
        state       text not null,
        ended_at    bigint,
        rejected    bigint not null default 0,
        rowid       bigint generated always as identity,
        adding      boolean not null default false
    );
    create table job_documents (
        job_id       text not null references jobs(id) on delete cascade,
        document_id  text not null,
        primary key (job_id, document_id)
    );
    create index job_documents_document on job_documents (document_id);
    create table job_events (
        id           bigint generated by default as identity primary key,
        job_id       text not null references jobs(id) on delete cascade,
        at           bigint not null,
        level        text not null,
        document_id  text,
        message      text not null
    );
    create index job_events_job on job_events (job_id, id);
    create function lectern_job_events_from_document_log() returns trigger language plpgsql as $$
    begin
        insert into job_events (job_id, at, level, document_id, message)
        select jobs.id, new.at, new.level, new.document_id, new.message
        from job_documents join jobs on jobs.id = job_documents.job_id
        where job_documents.document_id = new.document_id and jobs.ended_at is null;
        return null;
    end
    $$;
    create trigger job_events_from_document_log after insert on document_log
        for each row execute function lectern_job_events_from_document_log();
    create table remotes (
        name              text primary key,
        url               text not null,
        token             text,
        token_in_keyring  boolean not null default false,
        created_at        bigint not null
    );
    create unique index remotes_name on remotes (lower(name));
    -- The PDFs themselves (on disk they are in files/), stored as they are: a PDF is compressed
    -- already.
    create table files (
        content_hash  text primary key,
        bytes         bytea not null
    );
    alter table files alter column bytes set storage external;
    "#,
    // 2: the indexer's term, raised by each process that becomes the library's indexer: a
    // publication made in an older term is refused (`jobs/lock.rs`, `index/postgres/publish.rs`).
    r#"
    create table indexer_term (
        id    integer primary key check (id = 1),
        term  bigint not null
    );
    insert into indexer_term values (1, 0);
    "#,
];

/// The lock PostgreSQL's migrations hold, so that processes starting together migrate once.
const POSTGRES_MIGRATION_LOCK: i64 = 0x6c65_6374_6572_6e03;

/// Applies every PostgreSQL migration the database has not seen, in one transaction.
pub fn apply_postgres(pg: &Pg) -> Result<(), CatalogError> {
    let client = &*pg.client();
    let outcome = pg.runtime.run(async {
        client
            .batch_execute(&format!(
                "begin;
                 select pg_advisory_xact_lock({POSTGRES_MIGRATION_LOCK});
                 create table if not exists lectern_catalog_migrations (
                     version integer primary key,
                     applied_at timestamptz not null default now()
                 );"
            ))
            .await?;
        let current: Option<i32> = client
            .query_one("select max(version) from lectern_catalog_migrations", &[])
            .await?
            .get(0);
        let current = i64::from(current.unwrap_or(0));
        if current > POSTGRES_MIGRATIONS.len() as i64 {
            return Ok(Err(CatalogError::TooNew {
                found: current,
                supported: POSTGRES_MIGRATIONS.len() as i64,
            }));
        }
        for (version, sql) in POSTGRES_MIGRATIONS.iter().enumerate().skip(current as usize) {
            client.batch_execute(sql).await?;
            client
                .execute(
                    "insert into lectern_catalog_migrations (version) values ($1)",
                    &[&(version as i32 + 1)],
                )
                .await?;
        }
        client.batch_execute("commit").await?;
        Ok(Ok(()))
    });
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => {
            let _ = pg.runtime.run(client.batch_execute("rollback"));
            Err(e)
        }
        Err(e) => {
            let _ = pg.runtime.run(client.batch_execute("rollback"));
            Err(pg.failed(e))
        }
    }
}
