//! One question over a scope in the database, read from one snapshot: which documents hold an
//! index and vectors of the question's model, the scope's keyword statistics, the keyword list
//! (BM25 summed in SQL from the postings, `bm25.rs`), the vector list (exact cosine by pgvector) and the
//! text and cosine of every passage either found, all in one read-only transaction.

use std::collections::{HashMap, HashSet};

use tokio_postgres::{IsolationLevel, Row, Transaction};
use uuid::Uuid;

use super::bm25::{self, Weighted};
use super::pool::Pool;
use super::schema;
use super::vector::PgVector;
use super::PgStore;
use crate::catalog::ScopedDocument;
use crate::chunk::prints_page_number;
use crate::index::store::{best_first, Found, PassageKey, ScopeSearch, Wanted};
use crate::index::{IndexError, Located};

/// The columns of a passage that [`PgScope::keep`] reads first, in its order.
const PASSAGE_COLUMNS: &str = "doc_id, ordinal, chunk_id, page, char_start, char_end, text, context";

/// How many candidates the HNSW index gathers for a question (pgvector's `hnsw.ef_search`).
const EF_SEARCH: i64 = 200;

/// What a passage a list found carries besides its place.
struct Passage {
    text: String,
    context: String,
    cosine: Option<f32>,
}

/// A scope read for one question.
pub struct PgScope<'s> {
    store: &'s PgStore,
    ids: Vec<Uuid>,
    positions: HashMap<Uuid, usize>,
    keyword: Vec<Found>,
    vector: Vec<Found>,
    bound: f32,
    keyword_only: HashSet<usize>,
    skipped: Vec<(usize, IndexError)>,
    /// The passages found, by document position and chunk id.
    found: HashMap<(usize, String), Passage>,
    /// The question's vector, for the cosine of a passage no list found.
    question: Option<Vec<f32>>,
}

impl<'s> PgScope<'s> {
    /// Reads everything `wanted` names of `docs`.
    pub async fn open(
        store: &'s PgStore,
        docs: &[ScopedDocument],
        wanted: &Wanted<'_>,
    ) -> Result<PgScope<'s>, IndexError> {
        let pool = &store.pool;
        let mut client = pool.get().await?;
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .map_err(pool.failed("begin a search"))?;
        let ids: Vec<Uuid> = docs.iter().map(|d| d.id.0).collect();
        let mut scope = PgScope {
            store,
            positions: ids.iter().enumerate().map(|(pos, id)| (*id, pos)).collect(),
            ids,
            keyword: Vec::new(),
            vector: Vec::new(),
            bound: 0.0,
            keyword_only: HashSet::new(),
            skipped: Vec::new(),
            found: HashMap::new(),
            question: wanted.vector.map(|(v, _)| v.to_vec()),
        };
        let (searched, embedded, embedded_passages) = scope.documents(&tx, pool, docs, wanted).await?;
        let vector = wanted.vector.map(|(v, _)| PgVector(v.to_vec()));
        // Candidates past the depth, so that ties at its edge are broken as the contract says.
        let limit = (wanted.depth * 2 + 16) as i64;
        if !wanted.terms.is_empty() && !searched.is_empty() {
            scope
                .keyword_list(&tx, pool, wanted, &searched, &embedded, vector.as_ref(), limit)
                .await?;
        }
        if let (Some(vector), false) = (vector.as_ref(), embedded.is_empty()) {
            let indexed = embedded_passages > store.exact_limit;
            let rows = vector_rows(&tx, pool, vector, &embedded, indexed, limit).await?;
            let list: Vec<Found> = rows
                .iter()
                .map(|row| {
                    let cosine = row.get::<_, f64>(8) as f32;
                    scope.keep(row, cosine, Some(cosine))
                })
                .collect();
            scope.vector = best_first(list, wanted.depth);
        }
        tx.commit().await.map_err(pool.failed("end a search"))?;
        Ok(scope)
    }

    /// Sorts the scope's documents into searched (with an index), embedded by the question's
    /// model, searched by keyword only, and skipped; returns the ids of the first two, and how
    /// many passages the embedded ones hold.
    async fn documents(
        &mut self,
        tx: &Transaction<'_>,
        pool: &Pool,
        docs: &[ScopedDocument],
        wanted: &Wanted<'_>,
    ) -> Result<(Vec<Uuid>, Vec<Uuid>, i64), IndexError> {
        let rows = tx
            .query(
                "select doc_id, embedder, dimension, passages from index_documents where doc_id = any($1)",
                &[&self.ids],
            )
            .await
            .map_err(pool.failed("read the scope's documents"))?;
        let mut published: HashMap<Uuid, (Option<String>, Option<i32>, i64)> = HashMap::new();
        for row in rows {
            published.insert(row.get(0), (row.get(1), row.get(2), row.get(3)));
        }
        let (mut searched, mut embedded, mut embedded_passages) = (Vec::new(), Vec::new(), 0);
        for (pos, doc) in docs.iter().enumerate() {
            let Some((embedder, dimension, passages)) = published.get(&doc.id.0) else {
                self.skipped.push((
                    pos,
                    IndexError::Missing {
                        store: format!("the index database at {}", pool.server()),
                        what: format!("index of {}", doc.file_name),
                    },
                ));
                continue;
            };
            if let Some((question, model)) = wanted.vector {
                match (embedder.as_deref(), dimension) {
                    (Some(e), Some(d)) if e == model && *d as usize == question.len() => {
                        embedded.push(doc.id.0);
                        embedded_passages += passages;
                    }
                    (Some(e), Some(d)) if e == model => {
                        self.skipped.push((
                            pos,
                            IndexError::Dimension {
                                at: format!("the index database at {} (document {})", pool.server(), doc.id),
                                index: *d as usize,
                                question: question.len(),
                            },
                        ));
                        continue;
                    }
                    _ => {
                        self.keyword_only.insert(pos);
                    }
                }
            }
            searched.push(doc.id.0);
        }
        Ok((searched, embedded, embedded_passages))
    }

    /// The scope's best passages by BM25 with its statistics (`bm25.rs`), read with their text
    /// and cosine.
    #[allow(clippy::too_many_arguments)]
    async fn keyword_list(
        &mut self,
        tx: &Transaction<'_>,
        pool: &Pool,
        wanted: &Wanted<'_>,
        searched: &[Uuid],
        embedded: &[Uuid],
        vector: Option<&PgVector>,
        limit: i64,
    ) -> Result<(), IndexError> {
        let weighted = Weighted::of(tx, pool, wanted.terms, searched).await?;
        self.bound = weighted.bound;
        if weighted.words.is_empty() {
            return Ok(());
        }
        let scored = bm25::best(tx, pool, &weighted, searched, limit).await?;
        let docs: Vec<Uuid> = scored.iter().map(|s| s.0).collect();
        let ordinals: Vec<i32> = scored.iter().map(|s| s.1).collect();
        let scores: Vec<f64> = scored.iter().map(|s| s.2).collect();
        let rows = tx
            .query(
                &format!(
                    "select {PASSAGE_COLUMNS}, s.score, case when doc_id = any($4) then -(p.embedding <#> $5) end
                     from unnest($1::uuid[], $2::int4[], $3::float8[]) as s(doc_id, ordinal, score)
                     join passages p using (doc_id, ordinal)"
                ),
                &[&docs, &ordinals, &scores, &embedded, &vector],
            )
            .await
            .map_err(pool.failed("read the passages found by keyword"))?;
        let list: Vec<Found> = rows
            .iter()
            .map(|row| {
                let score: f64 = row.get(8);
                let cosine: Option<f64> = row.get(9);
                self.keep(row, score as f32, cosine.map(|c| c as f32))
            })
            .collect();
        self.keyword = best_first(list, wanted.depth);
        Ok(())
    }

    /// Keeps the text and cosine of the passage of `row` (its first columns are
    /// [`PASSAGE_COLUMNS`]) and gives it as found with `score`.
    fn keep(&mut self, row: &Row, score: f32, cosine: Option<f32>) -> Found {
        let id: Uuid = row.get(0);
        let doc = self.positions.get(&id).copied().unwrap_or(usize::MAX);
        let ordinal: i32 = row.get(1);
        let located = Located {
            chunk_id: row.get(2),
            page: row.get::<_, i32>(3) as u32,
            char_start: row.get::<_, i32>(4) as u32,
            char_end: row.get::<_, i32>(5) as u32,
        };
        self.found.insert(
            (doc, located.chunk_id.clone()),
            Passage {
                text: row.get(6),
                context: row.get(7),
                cosine,
            },
        );
        Found {
            doc,
            located,
            key: Some(PassageKey(ordinal as u64)),
            score,
        }
    }

    /// The question's vector, for the cosine of a passage of the document at `doc`; `None` where
    /// it has no vectors of the question's model.
    fn question_for(&self, doc: usize) -> Option<PgVector> {
        match &self.question {
            Some(q) if !self.keyword_only.contains(&doc) => Some(PgVector(q.clone())),
            _ => None,
        }
    }

    /// Reads a passage no list found, outside the question's snapshot.
    async fn read(&self, doc: usize, key: Option<PassageKey>, chunk_id: &str) -> Result<Passage, IndexError> {
        let pool = &self.store.pool;
        let missing = || IndexError::Missing {
            store: format!("the index database at {}", pool.server()),
            what: format!("passage {chunk_id}"),
        };
        let Some(id) = self.ids.get(doc) else {
            return Err(missing());
        };
        let question = self.question_for(doc);
        let ordinal = key.map(|PassageKey(k)| k as i32);
        let row = pool
            .get()
            .await?
            .query_opt(
                "select text, context, -(embedding <#> $4) from passages
                 where doc_id = $1 and chunk_id = $2 and ($3::int4 is null or ordinal = $3)",
                &[id, &chunk_id, &ordinal, &question],
            )
            .await
            .map_err(pool.failed("read a passage"))?
            .ok_or_else(missing)?;
        Ok(Passage {
            text: row.get(0),
            context: row.get(1),
            cosine: row.get::<_, Option<f64>>(2).map(|c| c as f32),
        })
    }
}

impl ScopeSearch for PgScope<'_> {
    fn score_bound(&self) -> f32 {
        self.bound
    }

    fn keyword_only(&self) -> &HashSet<usize> {
        &self.keyword_only
    }

    fn keyword_list(&mut self) -> Vec<Found> {
        std::mem::take(&mut self.keyword)
    }

    fn vector_list(&mut self) -> Vec<Found> {
        std::mem::take(&mut self.vector)
    }

    fn vector_scores(&self, doc: usize, passages: &[Located]) -> Vec<Option<f32>> {
        if self.question.is_none() || self.keyword_only.contains(&doc) {
            return vec![None; passages.len()];
        }
        passages
            .iter()
            .map(|p| match self.found.get(&(doc, p.chunk_id.clone())) {
                Some(found) => found.cosine,
                None => self
                    .store
                    .run(self.read(doc, None, &p.chunk_id))
                    .ok()
                    .and_then(|p| p.cosine),
            })
            .collect()
    }

    fn passage(&self, doc: usize, key: Option<PassageKey>, chunk_id: &str) -> Result<(String, String), IndexError> {
        match self.found.get(&(doc, chunk_id.to_string())) {
            Some(found) => Ok((found.text.clone(), found.context.clone())),
            None => {
                let read = self.store.run(self.read(doc, key, chunk_id))?;
                Ok((read.text, read.context))
            }
        }
    }

    fn page_passages(&self, doc: usize, page: u32) -> Result<Vec<Found>, IndexError> {
        let Some(id) = self.ids.get(doc) else {
            return Ok(Vec::new());
        };
        let question = self.question_for(doc);
        let pool = &self.store.pool;
        let page = i32::try_from(page).unwrap_or(i32::MAX);
        let rows = self.store.run(async {
            pool.get()
                .await?
                .query(
                    "select ordinal, chunk_id, page, char_start, char_end, -(embedding <#> $3) from passages
                     where doc_id = $1 and page = $2 order by ordinal",
                    &[id, &page, &question],
                )
                .await
                .map_err(pool.failed("read a page's passages"))
        })?;
        Ok(rows
            .iter()
            .map(|row| Found {
                doc,
                located: Located {
                    chunk_id: row.get(1),
                    page: row.get::<_, i32>(2) as u32,
                    char_start: row.get::<_, i32>(3) as u32,
                    char_end: row.get::<_, i32>(4) as u32,
                },
                key: Some(PassageKey(row.get::<_, i32>(0) as u64)),
                score: row.get::<_, Option<f64>>(5).unwrap_or(0.0) as f32,
            })
            .collect())
    }

    fn numbered_pages(&self, doc: usize, number: u32) -> Result<Vec<u32>, IndexError> {
        let Some(id) = self.ids.get(doc) else {
            return Ok(Vec::new());
        };
        let pool = &self.store.pool;
        let rows = self.store.run(async {
            pool.get()
                .await?
                .query(
                    "select m.page, m.text, m.char_start = 0,
                         m.char_start = (select max(q.char_start) from passages q
                                         where q.doc_id = m.doc_id and q.page = m.page)
                     from passages m join postings w on w.doc_id = m.doc_id and w.ordinal = m.ordinal
                     where m.doc_id = $1 and w.word = $2",
                    &[id, &number.to_string()],
                )
                .await
                .map_err(pool.failed("find a printed page number"))
        })?;
        let mut pages: Vec<u32> = rows
            .iter()
            .filter(|row| prints_page_number(row.get(1), number, row.get(2), row.get(3)))
            .map(|row| row.get::<_, i32>(0) as u32)
            .collect();
        pages.sort_unstable();
        pages.dedup();
        Ok(pages)
    }

    fn take_skipped(&mut self) -> Vec<(usize, IndexError)> {
        std::mem::take(&mut self.skipped)
    }
}

/// The best `limit` passages of the `embedded` documents by cosine with `vector`: by their HNSW
/// index when `indexed` (they are many) and it holds enough of them, else by reading every one.
async fn vector_rows(
    tx: &Transaction<'_>,
    pool: &Pool,
    vector: &PgVector,
    embedded: &[Uuid],
    indexed: bool,
    limit: i64,
) -> Result<Vec<Row>, IndexError> {
    let dimension = vector.0.len();
    let indexed = indexed && schema::vector_index_exists(tx, pool, dimension).await?;
    if indexed {
        tx.batch_execute(&format!("set local hnsw.ef_search = {}", EF_SEARCH.max(limit)))
            .await
            .map_err(pool.failed("set up a vector search"))?;
        let rows = tx
            .query(
                &format!(
                    "select {PASSAGE_COLUMNS}, -(embedding <#> $1) as cosine
                     from passages where doc_id = any($2) and vector_dims(embedding) = {dimension}
                     order by embedding::vector({dimension}) <#> $1::vector({dimension}) limit $3"
                ),
                &[vector, &embedded, &limit],
            )
            .await
            .map_err(pool.failed("search by vector"))?;
        // The index's candidates are the whole library's: a scope it covers too thinly is read whole.
        if rows.len() as i64 >= limit {
            return Ok(rows);
        }
    }
    tx.query(
        &format!(
            "select {PASSAGE_COLUMNS}, -(embedding <#> $1) as cosine
             from passages where doc_id = any($2)
             order by embedding <#> $1 limit $3"
        ),
        &[vector, &embedded, &limit],
    )
    .await
    .map_err(pool.failed("search by vector"))
}
