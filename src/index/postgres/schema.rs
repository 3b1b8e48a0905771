//! The index database's schema, versioned as the catalog's is: each migration runs once, in
//! order, in one transaction that holds a lock every process takes first, so that processes
//! starting together migrate once. A database a newer Lectern migrated is refused, not changed.
//!
//! - `index_documents`: one row a published document (its manifest, its model, its totals for
//!   BM25);
//! - `passages`: a document's passages by ordinal, with their text, context, length as BM25 reads
//!   it and, once embedded, vector;
//! - `postings`: each word of each passage with its count, the passage's length beside it, read
//!   by word for keyword search, and by word and passage for the words of a few passages (an
//!   index on word, document and passage covers both);
//! - `document_words`: each word of a document with how many of its passages hold it, summed
//!   over a scope for the word's document frequency (a row a document, not a row a passage).
//!
//! Vectors of each dimension get an HNSW index of their own (`passages_hnsw_<dimension>`, over
//! the column cast to that dimension, for the rows of that dimension), made by the first
//! document that brings them.
//!
//! `index_documents.words` counts every word of the document's passages (the scope's average
//! length is their sum over the scope's passages).

use tokio_postgres::{Client, Transaction};

use super::pool::Pool;
use crate::index::IndexError;

/// The lock migrations hold (an arbitrary key, the same in every process).
const MIGRATION_LOCK: i64 = 0x6c65_6374_6572_6e01;
/// The locks under which a vector index is made: this key plus the vectors' dimension.
const VECTOR_INDEX_LOCK: i64 = 0x6c65_6374_6572_0000;

/// Each version's SQL, version 1 first.
const MIGRATIONS: &[&str] = &["
    create extension if not exists vector;
    create table index_documents (
        doc_id uuid primary key,
        content_hash text not null,
        embedder text,
        dimension integer,
        passages bigint not null,
        words bigint not null,
        manifest jsonb not null
    );
    create table passages (
        doc_id uuid not null references index_documents on delete cascade,
        ordinal integer not null,
        chunk_id text not null,
        page integer not null,
        char_start integer not null,
        char_end integer not null,
        text text not null,
        context text not null,
        length integer not null,
        embedding vector,
        primary key (doc_id, ordinal)
    );
    -- Vectors stay in the row (the text goes out of it first): a vector search reads the rows of
    -- its scope, not a second table of out-of-line values.
    alter table passages alter column embedding set storage main;
    create index passages_chunk on passages (doc_id, chunk_id);
    create table postings (
        word text not null,
        doc_id uuid not null references index_documents on delete cascade,
        ordinal integer not null,
        count integer not null,
        length integer not null
    );
    create index postings_word on postings (word, doc_id, ordinal) include (count, length);
    create index postings_doc on postings (doc_id);
    create table document_words (
        word text not null,
        doc_id uuid not null references index_documents on delete cascade,
        passages integer not null,
        primary key (word, doc_id)
    );
    create index document_words_doc on document_words (doc_id);
", "
    -- Keyword search reads postings by index only where the table's pages are marked all-visible,
    -- which a vacuum does; by default inserts start one only after a fifth of the table again, so
    -- a library's newest fifth was read from the table too (hybrid p50 132 ms before a vacuum, 87
    -- after, at 1,000 documents). A vacuum after each hundredth inserted keeps it marked.
    alter table postings set (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02);
    alter table passages set (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02);
    alter table document_words set (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02);
"];

/// Brings the schema up to date.
pub async fn migrate(client: &mut Client, server: &str) -> Result<(), IndexError> {
    let failed = |what| move |source| IndexError::database(server.to_string(), what, source);
    let tx = client.transaction().await.map_err(failed("begin a migration"))?;
    tx.execute("select pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(failed("lock its schema"))?;
    tx.batch_execute(
        "create table if not exists lectern_migrations (
            version integer primary key,
            applied_at timestamptz not null default now()
        )",
    )
    .await
    .map_err(failed("create its table of migrations"))?;
    let current: Option<i32> = tx
        .query_one("select max(version) from lectern_migrations", &[])
        .await
        .map_err(failed("read its schema version"))?
        .get(0);
    let current = current.unwrap_or(0).max(0) as usize;
    if current > MIGRATIONS.len() {
        return Err(IndexError::DatabaseSetup {
            server: server.to_string(),
            reason: format!(
                "its schema is version {current}, made by a newer Lectern than this one (which knows {}); \
                 update Lectern",
                MIGRATIONS.len()
            ),
        });
    }
    for (version, sql) in MIGRATIONS.iter().enumerate().skip(current) {
        tx.batch_execute(sql).await.map_err(|e| match e.code() {
            Some(code) if *code == tokio_postgres::error::SqlState::UNDEFINED_FILE => IndexError::DatabaseSetup {
                server: server.to_string(),
                reason: "the pgvector extension is not installed on the server; install it \
                         (https://github.com/pgvector/pgvector) and run Lectern again"
                    .into(),
            },
            Some(code) if *code == tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE => {
                IndexError::DatabaseSetup {
                    server: server.to_string(),
                    reason: "the user may not create the pgvector extension: have the database's owner run \
                             `create extension vector` in it once"
                        .into(),
                }
            }
            _ => failed("migrate its schema")(e),
        })?;
        tx.execute(
            "insert into lectern_migrations (version) values ($1)",
            &[&(version as i32 + 1)],
        )
        .await
        .map_err(failed("record its schema version"))?;
    }
    tx.commit().await.map_err(failed("commit a migration"))
}

/// Whether the HNSW index of the vectors of `dimension` dimensions exists.
pub async fn vector_index_exists(tx: &Transaction<'_>, pool: &Pool, dimension: usize) -> Result<bool, IndexError> {
    tx.query_opt(
        "select 1 from pg_indexes where indexname = $1",
        &[&vector_index(dimension)],
    )
    .await
    .map(|row| row.is_some())
    .map_err(pool.failed("look for a vector index"))
}

/// Makes the HNSW index of the vectors of `dimension` dimensions unless it exists: one process
/// makes it, another waits for it and then finds it.
pub async fn ensure_vector_index(tx: &Transaction<'_>, pool: &Pool, dimension: usize) -> Result<(), IndexError> {
    if vector_index_exists(tx, pool, dimension).await? {
        return Ok(());
    }
    tx.execute(
        "select pg_advisory_xact_lock($1)",
        &[&(VECTOR_INDEX_LOCK + dimension as i64)],
    )
    .await
    .map_err(pool.failed("lock the vector index"))?;
    if vector_index_exists(tx, pool, dimension).await? {
        return Ok(());
    }
    tx.batch_execute(&format!(
        "create index {} on passages using hnsw ((embedding::vector({dimension})) vector_ip_ops)
         where vector_dims(embedding) = {dimension}",
        vector_index(dimension)
    ))
    .await
    .map_err(pool.failed("make a vector index"))
}

/// The name of the HNSW index of the vectors of `dimension` dimensions.
fn vector_index(dimension: usize) -> String {
    format!("passages_hnsw_{dimension}")
}
