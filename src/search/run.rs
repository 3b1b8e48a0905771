//! [`run`]: the query path from question to merged hits, stage by stage.
//!
//! the question's words that name (`question.rs`) → scope (`scope.rs`) → the index store opens
//! the scope (`index::IndexStore`: keyword statistics of the whole scope, vector candidates) →
//! its vector list and keyword list → fusion (`fusion.rs`) with the
//! documents the question names (`documents.rs`) → the best passage of each page (`pages.rs`),
//! the pages the question names beside their documents' best (`named_pages.rs`) →
//! the top `k` read and merged (`merge.rs`), those under a financial statement the question
//! names first (`statements.rs`) → the scope read again and the skipped documents queued
//! (`scope.rs`) → when asked for, the best pages scored again (`second_stage.rs`).

use std::sync::Arc;

use super::documents::name_scores;
use super::fusion::{fuse, union};
use super::merge::{fill_vector_scores, rank_order, ranked, top_k, top_of, Ranked};
use super::named_pages;
use super::pages::best_per_page;
use super::question::{keyword_text, search_text};
use super::scope::Current;
use super::second_stage::{rerank, CANDIDATES};
use super::statements;
use super::{sources_of, Hit, ScoreComponents, SearchMode, SearchRequest, SearchResults, Tuning};
use crate::catalog::{Scope, ScopeDocuments};
use crate::engine::Engine;
use crate::error::Error;
use crate::index::block::normalize;
use crate::index::{IndexError, IndexStore, ScopeSearch, Wanted};

/// How deep each ranked list goes before fusion, for `k` results.
fn depth_for(k: usize) -> usize {
    (k * 5).max(50)
}

/// Searches the documents in `request.scope`; the question is embedded first unless the mode is
/// keyword-only.
pub async fn run(engine: &Arc<Engine>, request: &SearchRequest) -> Result<SearchResults, Error> {
    let vector = match request.mode {
        SearchMode::Keyword => None,
        SearchMode::Vector | SearchMode::Hybrid => Some(embed_question(engine, &request.query).await?),
    };
    run_with_vector(engine, request, vector).await
}

/// Opens the indexes of the ready documents in `scope` (they stay open for the queries that
/// follow), so that the first query over them does not wait for them: a search box opening
/// calls it before the first word is typed. Returns how many are open.
pub async fn open_indexes(engine: &Arc<Engine>, scope: &Scope) -> Result<usize, Error> {
    let engine = engine.clone();
    let scope = scope.clone();
    tokio::task::spawn_blocking(move || {
        let docs = engine.catalog().documents_in_scope(&scope)?;
        Ok(engine.store().warm(&docs))
    })
    .await
    .map_err(Error::stopped("opening the indexes"))?
}

/// Embeds what of a question is searched ([`search_text`]), as every search does.
pub async fn embed_question(engine: &Arc<Engine>, question: &str) -> Result<Vec<f32>, Error> {
    embed(engine, &search_text(question)).await
}

/// Embeds a text on a blocking thread.
pub async fn embed(engine: &Arc<Engine>, text: &str) -> Result<Vec<f32>, Error> {
    let engine = engine.clone();
    let text = text.to_string();
    tokio::task::spawn_blocking(move || engine.embed_query(&text))
        .await
        .map_err(Error::stopped("embedding the question"))?
}

/// Searches with a question already embedded (`None` for keyword-only search), as
/// [`embed_question`] embeds it.
pub async fn run_with_vector(
    engine: &Arc<Engine>,
    request: &SearchRequest,
    vector: Option<Vec<f32>>,
) -> Result<SearchResults, Error> {
    let engine = engine.clone();
    let request = request.clone();
    tokio::task::spawn_blocking(move || {
        let model = request.second_stage.then(|| engine.second_stage_model()).flatten();
        let Some(model) = model else {
            return search(&engine, &request, vector);
        };
        let first = SearchRequest {
            k: request.k.max(CANDIDATES),
            ..request.clone()
        };
        let mut results = search(&engine, &first, vector)?;
        rerank(&model, &request.query, &mut results.hits)?;
        results.hits.truncate(request.k);
        results.sources = sources_of(&results.hits);
        Ok(results)
    })
    .await
    .map_err(Error::stopped("the search"))?
}

fn search(engine: &Engine, request: &SearchRequest, vector: Option<Vec<f32>>) -> Result<SearchResults, Error> {
    let vector = vector.map(|mut v| {
        normalize(&mut v);
        v
    });
    let docs = engine.catalog().documents_in_scope(&request.scope)?;
    let embedder = match vector {
        Some(_) => Some(engine.embedder_id()?),
        None => None,
    };
    let query = vector.as_deref().zip(embedder.as_deref());
    let tuning = &engine.config().tuning;
    let mut ranking = rank(engine.store(), &docs, request, query, tuning)?;
    if request.mode == SearchMode::Hybrid {
        let pages = named_pages::asked(&request.query);
        if !pages.is_empty() {
            named_pages::favour(&pages, &mut ranking.ranked, &*ranking.scope, &docs);
        }
    }
    let current = Current::read(
        engine,
        &request.scope,
        &docs,
        ranking
            .ranked
            .iter()
            .map(|r| r.doc)
            .chain(ranking.skipped.iter().map(|(pos, _)| *pos)),
    )?;
    // A hybrid search for a question naming a statement reads more pages, to find its title.
    let statements = match request.mode {
        SearchMode::Hybrid => statements::asked(&request.query),
        SearchMode::Vector | SearchMode::Keyword => Vec::new(),
    };
    let wanted = if statements.is_empty() {
        request.k
    } else {
        request.k.max(statements::CANDIDATES)
    };
    let ranked = std::mem::take(&mut ranking.ranked);
    let (mut top, unreadable) = top_k(
        ranked.into_iter().filter(|r| current.get(r.doc).is_some()),
        wanted,
        &*ranking.scope,
    );
    if !statements.is_empty() {
        statements::favour(&statements, &mut top, tuning.statement_boost);
        top.truncate(request.k);
    }
    // The exact cosine of the passages only the keyword list found, to show beside their BM25.
    if query.is_some() {
        fill_vector_scores(&mut top, &*ranking.scope);
    }
    let hits: Vec<Hit> = top.into_iter().filter_map(|r| hit(&current, r)).collect();
    let skipped = current.skip(engine, ranking.skipped.into_iter().chain(unreadable).collect())?;
    Ok(SearchResults {
        query: request.query.clone(),
        mode: request.mode,
        sources: sources_of(&hits),
        hits,
        skipped,
        documents_searched: docs.len(),
        keyword_only: ranking.keyword_only,
        unreachable: Vec::new(),
    })
}

/// The fused ranking of one question over a scope.
struct Ranking<'s> {
    /// Best first (see [`rank_order`]).
    ranked: Vec<Ranked>,
    /// The scope as the store opened it, to read the passages from.
    scope: Box<dyn ScopeSearch + 's>,
    /// Documents that could not be searched, by scope position.
    skipped: Vec<(usize, IndexError)>,
    /// How many documents were searched by keyword only (no vectors of the question's model yet).
    keyword_only: usize,
}

/// Ranks the passages of `docs` for the question, whose vector (if any) comes with the identity
/// of the model that made it: the store's lists the mode asks for, then fusion weighted as
/// `tuning` says.
fn rank<'s>(
    store: &'s dyn IndexStore,
    docs: &ScopeDocuments,
    request: &SearchRequest,
    query: Option<(&[f32], &str)>,
    tuning: &Tuning,
) -> Result<Ranking<'s>, IndexError> {
    let depth = depth_for(request.k);
    let query = query.filter(|_| request.mode != SearchMode::Keyword);
    let terms = match request.mode {
        SearchMode::Vector => Vec::new(),
        SearchMode::Keyword | SearchMode::Hybrid => store.terms(&keyword_text(&search_text(&request.query))),
    };
    let wanted = Wanted {
        terms: &terms,
        vector: query,
        depth,
    };
    let mut scope = store.open(docs, &wanted)?;
    let vector_list = match query {
        Some(_) => top_of(
            scope.vector_list().into_iter().map(ranked).collect(),
            depth,
            |r, rank| {
                r.vector = Some(r.score);
                r.vector_rank = Some(rank);
            },
        ),
        None => Vec::new(),
    };
    let keyword_list = top_of(
        scope.keyword_list().into_iter().map(ranked).collect(),
        depth,
        |r, rank| {
            r.keyword = Some(r.score);
            r.keyword_rank = Some(rank);
        },
    );
    let bound = scope.score_bound();
    let mut ranked = match request.mode {
        SearchMode::Vector => vector_list,
        SearchMode::Keyword => keyword_list,
        SearchMode::Hybrid => {
            let mut union = union(vector_list, keyword_list);
            if query.is_some() {
                fill_vector_scores(&mut union, &*scope);
            }
            let mut fused = fuse(union, bound, scope.keyword_only(), tuning);
            let named = name_scores(&request.query, docs);
            for hit in &mut fused {
                hit.score += tuning.name_weight * named.get(hit.doc).copied().unwrap_or(0.0);
            }
            fused
        }
    };
    for hit in &mut ranked {
        hit.keyword_share = hit.keyword.filter(|_| bound > 0.0).map(|b| (b / bound).min(1.0));
    }
    ranked.sort_by(rank_order);
    let mut skipped = scope.take_skipped();
    skipped.sort_by_key(|(pos, _)| *pos);
    skipped.dedup_by_key(|(pos, _)| *pos);
    ranked.retain(|r| skipped.binary_search_by_key(&r.doc, |(pos, _)| *pos).is_err());
    let ranked = best_per_page(ranked);
    let keyword_only = scope.keyword_only().len();
    Ok(Ranking {
        ranked,
        scope,
        skipped,
        keyword_only,
    })
}

/// A ranked passage as a hit, under its document as it is now; `None` if the document no longer
/// counts or the passage was never read.
fn hit(current: &Current<'_>, r: Ranked) -> Option<Hit> {
    let doc = current.get(r.doc)?;
    Some(Hit {
        document: doc.id,
        document_name: doc.file_name.clone(),
        folder: doc.folder,
        folder_path: doc.folder_path.clone(),
        chunk_id: r.chunk_id,
        page: r.page,
        char_start: r.char_start,
        char_end: r.char_end,
        text: r.text?,
        score: r.score,
        components: ScoreComponents {
            vector: r.vector,
            keyword: r.keyword,
            keyword_share: r.keyword_share,
            vector_rank: r.vector_rank,
            keyword_rank: r.keyword_rank,
            second_stage: None,
            named_page: r.named_page,
        },
        remote: None,
        context: r.context,
    })
}
