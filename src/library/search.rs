//! [`Library::search`]: scope from the catalog, fan-out over the indexes, and a second look at the
//! catalog so that results only hold documents that are still ready and in scope when the answer
//! is assembled. Documents whose index cannot be read are skipped and queued for re-indexing.

use std::collections::HashMap;

use tokio::runtime::Handle;

use super::Library;
use crate::catalog::{DocumentId, Scope, ScopedDocument};
use crate::embed::EmbedError;
use crate::index::block::normalize;
use crate::index::IndexError;
use crate::search::{
    sources_of, Engine, Hit, Question, Ranked, ScoreComponents, SearchMode, SearchRequest, SearchResults, Skipped,
};
use crate::Error;

/// How deep each ranked list goes before fusion, for `k` results.
fn depth_for(k: usize) -> usize {
    (k * 5).max(50)
}

impl Library {
    /// The ready documents in `scope`, as a search would see them now.
    pub fn documents_in_scope(&self, scope: &Scope) -> Result<Vec<ScopedDocument>, Error> {
        Ok(self.catalog().documents_in_scope(scope)?)
    }

    /// Searches the documents in `request.scope`; the question is embedded first unless the
    /// mode is keyword-only.
    pub async fn search(&self, request: &SearchRequest) -> Result<SearchResults, Error> {
        let vector = match request.mode {
            SearchMode::Keyword => None,
            SearchMode::Vector | SearchMode::Hybrid => Some(self.embed_query(&request.query).await?),
        };
        self.search_with_vector(request, vector).await
    }

    /// Embeds a question with the library's embedder (a search scales it to unit length).
    pub async fn embed_query(&self, text: &str) -> Result<Vec<f32>, Error> {
        let this = self.clone();
        let text = text.to_string();
        tokio::task::spawn_blocking(move || {
            let models = this.models()?;
            let vector = models.embedder.embed(&[text.as_str()])?.pop();
            Ok(vector.ok_or(EmbedError::Dimension {
                expected: models.embedder.dimension(),
                got: 0,
            })?)
        })
        .await
        .map_err(|e| Error::Task(e.to_string()))?
    }

    /// Searches with a question already embedded (`None` for keyword-only search).
    pub async fn search_with_vector(
        &self,
        request: &SearchRequest,
        vector: Option<Vec<f32>>,
    ) -> Result<SearchResults, Error> {
        let this = self.clone();
        let request = request.clone();
        let runtime = Handle::current();
        tokio::task::spawn_blocking(move || this.search_blocking(&request, vector, &runtime))
            .await
            .map_err(|e| Error::Task(e.to_string()))?
    }

    fn search_blocking(
        &self,
        request: &SearchRequest,
        vector: Option<Vec<f32>>,
        runtime: &Handle,
    ) -> Result<SearchResults, Error> {
        let vector = vector.map(|mut v| {
            normalize(&mut v);
            v
        });
        let docs = self.catalog().documents_in_scope(&request.scope)?;
        let engine = Engine {
            cache: &self.shared.search_cache,
            dirs: self.dirs(),
            fields: &self.shared.fields,
            runtime,
            threads: self.shared.search_threads,
        };
        let ranking = engine.rank(
            &docs,
            &Question {
                text: &request.query,
                vector: vector.as_deref(),
                mode: request.mode,
                depth: depth_for(request.k),
            },
        );

        // Moves, deletes and re-indexing may have happened meanwhile: only documents that are
        // still ready, in scope and of the same index generation count, under their folder now.
        let candidates: Vec<DocumentId> = {
            let mut ids: Vec<DocumentId> = ranking.ranked.iter().map(|r| docs[r.doc].id).collect();
            ids.extend(ranking.skipped.iter().map(|(pos, _)| docs[*pos].id));
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        let now: HashMap<DocumentId, ScopedDocument> = self
            .catalog()
            .documents_in_scope_among(&request.scope, &candidates)?
            .into_iter()
            .map(|d| (d.id, d))
            .collect();
        let current = |pos: usize| {
            now.get(&docs[pos].id)
                .filter(|d| d.index_generation == docs[pos].index_generation)
        };
        // The top k, completed; a document whose passages cannot be read is skipped and the next
        // ranked passages take the places of its hits.
        let mut rest = ranking.ranked.into_iter().filter(|r| current(r.doc).is_some());
        let mut top: Vec<Ranked> = Vec::with_capacity(request.k);
        let mut unreadable: Vec<(usize, IndexError)> = Vec::new();
        loop {
            top.extend(
                rest.by_ref()
                    .filter(|r| !unreadable.iter().any(|(doc, _)| *doc == r.doc))
                    .take(request.k - top.len()),
            );
            let damaged = engine.complete(&mut top, &ranking.opened, vector.as_deref());
            if damaged.is_empty() {
                break;
            }
            top.retain(|r| !damaged.iter().any(|(doc, _)| *doc == r.doc));
            unreadable.extend(damaged);
        }
        let hits: Vec<Hit> = top
            .into_iter()
            .filter_map(|r| {
                let doc = current(r.doc)?;
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
                    },
                })
            })
            .collect();

        let mut skipped = Vec::new();
        for (pos, error) in ranking.skipped.into_iter().chain(unreadable) {
            // A document that changed meanwhile is not damaged: it is simply out of this query.
            let Some(doc) = current(pos) else { continue };
            self.shared.search_cache.evict(doc.id);
            let requeued = self.reindex(doc.id).is_ok();
            skipped.push(Skipped {
                document: doc.id,
                document_name: doc.file_name.clone(),
                reason: error.to_string(),
                requeued,
            });
        }
        Ok(SearchResults {
            query: request.query.clone(),
            mode: request.mode,
            sources: sources_of(&hits),
            hits,
            skipped,
            documents_searched: docs.len(),
        })
    }
}
