//! The best passages of a scope by BM25, summed in SQL from the postings with weights the scope's
//! statistics give (its passages and words, and each word's passages from `document_words`). Summing every posting of a common word ("the", "year") costs as much as the
//! scope is large, so when a question has both rare and common words the sum is split, as
//! MaxScore does: the passages holding a rare word are ranked first, the common words' share is
//! added to the best of them only, and the result is kept when no passage left out could reach
//! it (a passage without a rare word scores at most the common words' bound); otherwise every
//! posting is summed. Either way the list is exact.

use std::collections::HashMap;

use tokio_postgres::Transaction;
use uuid::Uuid;

use super::pool::Pool;
use crate::index::IndexError;

/// BM25's k1 and b, as tantivy's.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// A word held by more than this share of a scope's passages is common: its postings are read
/// only for the passages its rare words found.
const COMMON: f64 = 0.05;

/// A question's words with their BM25 weights in one scope.
pub struct Weighted {
    /// Each word found in the scope, with its IDF times `k1 + 1` and its document frequency.
    pub words: Vec<(String, f64, f64)>,
    /// The scope's passages and their average length in words.
    passages: f64,
    average: f64,
    /// The most a passage could score: every word's IDF times `k1 + 1`, found or not.
    pub bound: f32,
}

impl Weighted {
    /// Weighs `terms` with the statistics of the documents `scope`: their passages, words, and
    /// how many passages hold each term.
    pub async fn of(
        tx: &Transaction<'_>,
        pool: &Pool,
        terms: &[String],
        scope: &[Uuid],
    ) -> Result<Weighted, IndexError> {
        let failed = pool.failed("read the scope's keyword statistics");
        let totals = tx
            .query_one(
                "select coalesce(sum(passages), 0)::float8, coalesce(sum(words), 0)::float8
                 from index_documents where doc_id = any($1)",
                &[&scope],
            )
            .await
            .map_err(&failed)?;
        let (passages, words): (f64, f64) = (totals.get(0), totals.get(1));
        let rows = tx
            .query(
                "select word, sum(passages)::float8 from document_words
                 where word = any($1) and doc_id = any($2) group by word",
                &[&terms, &scope],
            )
            .await
            .map_err(&failed)?;
        let frequency: HashMap<String, f64> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        let weight = |df: f64| (1.0 + (passages - df + 0.5) / (df + 0.5)).ln() * (K1 + 1.0);
        Ok(Weighted {
            bound: terms
                .iter()
                .map(|t| weight(frequency.get(t).copied().unwrap_or(0.0)) as f32)
                .sum(),
            words: frequency.into_iter().map(|(word, df)| (word, weight(df), df)).collect(),
            passages,
            average: if passages > 0.0 { words / passages } else { 1.0 },
        })
    }
}

/// A passage and its score.
pub type Scored = (Uuid, i32, f64);

/// The best `limit` passages of the documents `scope` for `weighted`, best first.
pub async fn best(
    tx: &Transaction<'_>,
    pool: &Pool,
    weighted: &Weighted,
    scope: &[Uuid],
    limit: i64,
) -> Result<Vec<Scored>, IndexError> {
    let (rare, common): (Vec<_>, Vec<_>) = weighted
        .words
        .iter()
        .partition(|(_, _, df)| *df <= weighted.passages * COMMON);
    if !rare.is_empty() && !common.is_empty() {
        if let Some(list) = split(tx, pool, weighted, &rare, &common, scope, limit).await? {
            return Ok(list);
        }
    }
    let all: Vec<&(String, f64, f64)> = weighted.words.iter().collect();
    sum(tx, pool, &all, weighted.average, scope, limit).await
}

/// Every posting of `words` in `scope` summed into passage scores; the best `limit`.
async fn sum(
    tx: &Transaction<'_>,
    pool: &Pool,
    words: &[&(String, f64, f64)],
    average: f64,
    scope: &[Uuid],
    limit: i64,
) -> Result<Vec<Scored>, IndexError> {
    let (names, weights) = columns(words);
    let rows = tx
        .query(
            &format!(
                "select doc_id, ordinal, {} as score
                 from postings join unnest($1::text[], $2::float8[]) as w(word, weight) using (word)
                 where doc_id = any($4)
                 group by doc_id, ordinal
                 order by score desc limit $5",
                score_of("count", "length")
            ),
            &[&names, &weights, &average, &scope, &limit],
        )
        .await
        .map_err(pool.failed("search by keyword"))?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
}

/// MaxScore: the passages with a `rare` word ranked by those, the `common` words' share added to
/// the best of them; `None` when a passage left out might still have made the list.
async fn split(
    tx: &Transaction<'_>,
    pool: &Pool,
    weighted: &Weighted,
    rare: &[&(String, f64, f64)],
    common: &[&(String, f64, f64)],
    scope: &[Uuid],
    limit: i64,
) -> Result<Option<Vec<Scored>>, IndexError> {
    // Generously many: the common words' share is read for each by key, which costs little, and
    // the more there are the more often the list is provably whole.
    let pool_size = (limit * 8).max(500);
    let candidates = sum(tx, pool, rare, weighted.average, scope, pool_size).await?;
    // The most a passage outside the candidates scored by its rare words.
    let outside_rare = match candidates.last() {
        Some((_, _, partial)) if candidates.len() as i64 >= pool_size => *partial,
        _ => 0.0,
    };
    let (names, weights) = columns(common);
    let docs: Vec<Uuid> = candidates.iter().map(|c| c.0).collect();
    let ordinals: Vec<i32> = candidates.iter().map(|c| c.1).collect();
    let rows = tx
        .query(
            &format!(
                "select c.doc_id, c.ordinal, {} as score
                 from unnest($4::uuid[], $5::int4[]) as c(doc_id, ordinal)
                 cross join unnest($1::text[], $2::float8[]) as w(word, weight)
                 join postings p on p.word = w.word and p.doc_id = c.doc_id and p.ordinal = c.ordinal
                 group by c.doc_id, c.ordinal",
                score_of("p.count", "p.length")
            ),
            &[&names, &weights, &weighted.average, &docs, &ordinals],
        )
        .await
        .map_err(pool.failed("search by keyword"))?;
    let mut added: HashMap<(Uuid, i32), f64> = rows.iter().map(|r| ((r.get(0), r.get(1)), r.get(2))).collect();
    let mut list: Vec<Scored> = candidates
        .into_iter()
        .map(|(doc, ordinal, partial)| (doc, ordinal, partial + added.remove(&(doc, ordinal)).unwrap_or(0.0)))
        .collect();
    list.sort_by(|a, b| b.2.total_cmp(&a.2));
    list.truncate(limit as usize);
    let common_bound: f64 = common.iter().map(|(_, weight, _)| weight).sum();
    match list.last() {
        Some((_, _, last)) if list.len() as i64 >= limit && *last > outside_rare + common_bound => Ok(Some(list)),
        _ => Ok(None),
    }
}

/// The words' names and weights as two arrays.
fn columns(words: &[&(String, f64, f64)]) -> (Vec<String>, Vec<f64>) {
    words.iter().map(|(word, weight, _)| (word.clone(), *weight)).unzip()
}

/// The BM25 sum over postings of `count` and `length` columns, weights `w.weight` and the
/// scope's average length `$3`, all in double precision (a literal alone would be numeric, and slow).
fn score_of(count: &str, length: &str) -> String {
    format!(
        "sum(w.weight * {count} / ({count} + {K1}::float8 * ({}::float8 + {B}::float8 * {length} / $3::float8)))",
        1.0 - B
    )
}
