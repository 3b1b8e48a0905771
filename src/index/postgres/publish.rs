//! Publishing a document's index into the database in one transaction: its row is written first
//! (which locks it against another process publishing the same document), its old passages and
//! postings go, the new ones are copied in; a question sees the old index or the new one.

use std::collections::HashMap;

use futures::pin_mut;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};

use super::pool::Pool;
use super::schema;
use super::vector::PgVector;
use crate::catalog::{ChunkId, DocumentId};
use crate::chunk::Chunk;
use crate::index::store::{DocumentIndex, Publication};
use crate::index::{keywords, IndexError, Manifest};

/// Publishes `publication` in place of any index of its document.
pub async fn publish(pool: &Pool, publication: Publication<'_>) -> Result<(), IndexError> {
    let model = publication.check()?;
    let Publication {
        id,
        manifest,
        chunks,
        vectors,
        term,
    } = publication;
    let words: Vec<Words> = chunks.iter().map(Words::of).collect();
    let total: i64 = words.iter().map(|w| w.total).sum();
    let manifest_json = serde_json::to_value(manifest).map_err(|e| IndexError::Publication {
        id,
        reason: format!("its manifest cannot be written: {e}"),
    })?;
    let embedder = model.map(|(name, _)| name.to_string());
    let dimension = model.map(|(_, d)| d as i32);

    let mut client = pool.get().await?;
    if let Some((_, dimension)) = model {
        // In a transaction of its own, before this one writes a row: making the index waits for
        // the publications under way, and none of them waits for it (made inside, it would wait
        // for another publication while that one waited for the index's lock).
        let tx = client
            .transaction()
            .await
            .map_err(pool.failed("begin making a vector index"))?;
        schema::ensure_vector_index(&tx, pool, dimension).await?;
        tx.commit().await.map_err(pool.failed("commit a vector index"))?;
    }
    let tx = client.transaction().await.map_err(pool.failed("begin publishing"))?;
    if let Some(term) = term {
        // Shared, the row's lock stops a new indexer from beginning its term (`jobs/lock.rs`)
        // until this publication is committed or gone.
        let newer: i64 = tx
            .query_one("select term from indexer_term for share", &[])
            .await
            .map_err(pool.failed("read the indexer's term"))?
            .get(0);
        if newer != term {
            return Err(IndexError::Superseded { id, term, newer });
        }
    }
    tx.execute(
        "insert into index_documents (doc_id, content_hash, embedder, dimension, passages, words, manifest)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (doc_id) do update set content_hash = excluded.content_hash,
             embedder = excluded.embedder, dimension = excluded.dimension,
             passages = excluded.passages, words = excluded.words, manifest = excluded.manifest",
        &[
            &id.0,
            &manifest.content_hash,
            &embedder,
            &dimension,
            &(chunks.len() as i64),
            &total,
            &manifest_json,
        ],
    )
    .await
    .map_err(pool.failed("publish a document"))?;
    for table in ["document_words", "postings", "passages"] {
        tx.execute(&format!("delete from {table} where doc_id = $1"), &[&id.0])
            .await
            .map_err(pool.failed("remove a document's old passages"))?;
    }

    let vector_type = tx
        .prepare("select $1::vector")
        .await
        .map_err(pool.failed("find the vector type"))?
        .params()
        .first()
        .cloned()
        .unwrap_or(Type::UNKNOWN);
    let sink = tx
        .copy_in(
            "copy passages (doc_id, ordinal, chunk_id, page, char_start, char_end, text, context, length, \
             embedding) from stdin (format binary)",
        )
        .await
        .map_err(pool.failed("write passages"))?;
    let types = [
        Type::UUID,
        Type::INT4,
        Type::TEXT,
        Type::INT4,
        Type::INT4,
        Type::INT4,
        Type::TEXT,
        Type::TEXT,
        Type::INT4,
        vector_type,
    ];
    let writer = BinaryCopyInWriter::new(sink, &types);
    pin_mut!(writer);
    for (ordinal, (chunk, words)) in chunks.iter().zip(&words).enumerate() {
        let vector = vectors.get(ordinal).map(|v| PgVector(v.clone()));
        let row: [&(dyn ToSql + Sync); 10] = [
            &id.0,
            &(ordinal as i32),
            &chunk.id.0,
            &(chunk.page as i32),
            &(chunk.char_start as i32),
            &(chunk.char_end as i32),
            &storable(&chunk.text),
            &storable(&chunk.context),
            &words.length,
            &vector,
        ];
        writer
            .as_mut()
            .write(&row)
            .await
            .map_err(pool.failed("write passages"))?;
    }
    writer.finish().await.map_err(pool.failed("write passages"))?;

    let sink = tx
        .copy_in("copy postings (word, doc_id, ordinal, count, length) from stdin (format binary)")
        .await
        .map_err(pool.failed("write keyword postings"))?;
    let writer = BinaryCopyInWriter::new(sink, &[Type::TEXT, Type::UUID, Type::INT4, Type::INT4, Type::INT4]);
    pin_mut!(writer);
    for (ordinal, words) in words.iter().enumerate() {
        for (word, count) in &words.counts {
            let row: [&(dyn ToSql + Sync); 5] = [word, &id.0, &(ordinal as i32), count, &words.length];
            writer
                .as_mut()
                .write(&row)
                .await
                .map_err(pool.failed("write keyword postings"))?;
        }
    }
    writer.finish().await.map_err(pool.failed("write keyword postings"))?;

    let mut frequency: HashMap<&str, i32> = HashMap::new();
    for words in &words {
        for word in words.counts.keys() {
            *frequency.entry(word).or_default() += 1;
        }
    }
    let sink = tx
        .copy_in("copy document_words (word, doc_id, passages) from stdin (format binary)")
        .await
        .map_err(pool.failed("write keyword statistics"))?;
    let writer = BinaryCopyInWriter::new(sink, &[Type::TEXT, Type::UUID, Type::INT4]);
    pin_mut!(writer);
    for (word, passages) in &frequency {
        let row: [&(dyn ToSql + Sync); 3] = [word, &id.0, passages];
        writer
            .as_mut()
            .write(&row)
            .await
            .map_err(pool.failed("write keyword statistics"))?;
    }
    writer.finish().await.map_err(pool.failed("write keyword statistics"))?;
    tx.commit().await.map_err(pool.failed("commit a document's index"))
}

/// Deletes the index of `id`, with its passages and postings; none is not an error.
pub async fn delete(pool: &Pool, id: DocumentId) -> Result<(), IndexError> {
    pool.get()
        .await?
        .execute("delete from index_documents where doc_id = $1", &[&id.0])
        .await
        .map_err(pool.failed("delete a document's index"))?;
    Ok(())
}

/// The manifest of the index of `id`, if it has one.
pub async fn published(pool: &Pool, id: DocumentId) -> Result<Option<Manifest>, IndexError> {
    Ok(published_of(pool, &[id]).await?.remove(&id))
}

/// The manifests of the indexes of `ids` that have one, in one query.
pub async fn published_of(pool: &Pool, ids: &[DocumentId]) -> Result<HashMap<DocumentId, Manifest>, IndexError> {
    let ids: Vec<uuid::Uuid> = ids.iter().map(|id| id.0).collect();
    let rows = pool
        .get()
        .await?
        .query(
            "select doc_id, manifest from index_documents where doc_id = any($1)",
            &[&ids],
        )
        .await
        .map_err(pool.failed("read documents' manifests"))?;
    rows.into_iter()
        .map(|row| {
            let id = DocumentId(row.get(0));
            let manifest: serde_json::Value = row.get(1);
            serde_json::from_value(manifest)
                .map(|manifest| (id, manifest))
                .map_err(|e| IndexError::Damaged {
                    path: pool.server().into(),
                    reason: format!("the manifest of document {id} cannot be read: {e}"),
                })
        })
        .collect()
}

/// The whole index of `id`, its passages in their order, if it has one.
pub async fn read_back(pool: &Pool, id: DocumentId) -> Result<Option<DocumentIndex>, IndexError> {
    let Some(manifest) = published(pool, id).await? else {
        return Ok(None);
    };
    let rows = pool
        .get()
        .await?
        .query(
            "select chunk_id, page, char_start, char_end, text, context, embedding from passages
             where doc_id = $1 order by ordinal",
            &[&id.0],
        )
        .await
        .map_err(pool.failed("read a document's passages"))?;
    let mut chunks = Vec::with_capacity(rows.len());
    let mut vectors = Vec::new();
    for row in rows {
        chunks.push(Chunk {
            id: ChunkId(row.get(0)),
            page: row.get::<_, i32>(1) as u32,
            char_start: row.get::<_, i32>(2) as u32,
            char_end: row.get::<_, i32>(3) as u32,
            text: row.get(4),
            context: row.get(5),
        });
        if let Some(PgVector(v)) = row.get::<_, Option<PgVector>>(6) {
            vectors.push(v);
        }
    }
    Ok(Some(DocumentIndex {
        manifest,
        chunks,
        vectors,
    }))
}

/// A passage's words as keyword search counts them: its text's and its context's.
struct Words {
    counts: HashMap<String, i32>,
    /// How many there are.
    total: i64,
    /// The length BM25 reads ([`keywords::scored_length`]).
    length: i32,
}

impl Words {
    fn of(chunk: &Chunk) -> Words {
        let mut counts: HashMap<String, i32> = HashMap::new();
        let mut total = 0;
        for word in keywords::analysed(&chunk.text)
            .into_iter()
            .chain(keywords::analysed(&chunk.context))
        {
            *counts.entry(word).or_default() += 1;
            total += 1;
        }
        Words {
            counts,
            total,
            length: keywords::scored_length(total as u32) as i32,
        }
    }
}

/// `text` as PostgreSQL can hold it: it refuses the NUL character, which no page's words contain.
fn storable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\0') {
        text.replace('\0', "").into()
    } else {
        text.into()
    }
}
