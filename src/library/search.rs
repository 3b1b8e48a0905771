//! Search through the facade: the query path itself is `search/`.

use super::Library;
use crate::catalog::{Scope, ScopedDocument};
use crate::error::Error;
use crate::search::eval::{EvalQuestion, Evaluation};
use crate::search::{SearchRequest, SearchResults};

impl Library {
    /// The ready documents in `scope`, as a search would see them now.
    pub fn documents_in_scope(&self, scope: &Scope) -> Result<Vec<ScopedDocument>, Error> {
        Ok(self.engine.catalog().documents_in_scope(scope)?.to_vec())
    }

    /// Searches the documents in `request.scope`; the question is embedded first unless the
    /// mode is keyword-only. Remote libraries in the scope are asked too, their results fused
    /// with this library's by rank.
    pub async fn search(&self, request: &SearchRequest) -> Result<SearchResults, Error> {
        crate::remote::search(&self.engine, request).await
    }

    /// Whether searches that ask for the second stage get it: its model is installed and loads.
    /// Blocking: the first call loads the model.
    pub fn has_second_stage(&self) -> bool {
        self.engine.second_stage_model().is_some()
    }

    /// Opens the indexes of the ready documents in `scope` ahead of the queries that will need
    /// them; returns how many are open.
    pub async fn open_indexes(&self, scope: &Scope) -> Result<usize, Error> {
        crate::search::open_indexes(&self.engine, scope).await
    }

    /// Embeds a question with the library's embedder (a search scales it to unit length).
    pub async fn embed_query(&self, text: &str) -> Result<Vec<f32>, Error> {
        crate::search::embed(&self.engine, text).await
    }

    /// Searches with a question already embedded (`None` for keyword-only search).
    pub async fn search_with_vector(
        &self,
        request: &SearchRequest,
        vector: Option<Vec<f32>>,
    ) -> Result<SearchResults, Error> {
        crate::search::run_with_vector(&self.engine, request, vector).await
    }

    /// Searches every question in every mode (and with the second stage, if `second_stage` and
    /// its model is installed), over `scope` and over its answering document alone, and says
    /// where each found its answer (`lectern eval`).
    pub async fn evaluate(
        &self,
        questions: Vec<EvalQuestion>,
        scope: &Scope,
        second_stage: bool,
    ) -> Result<Evaluation, Error> {
        crate::search::eval::evaluate(&self.engine, questions, scope, second_stage).await
    }
}
