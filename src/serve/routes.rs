//! The endpoints: the library and its folders as models, search over a model's scope,
//! embeddings with the library's model, and a document's stored PDF (to show what was cited).
//! A model names a scope: `lectern` is the whole library, `lectern/Work/Taxes` a folder with
//! its subfolders.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{ApiError, Served};
use crate::catalog::{Scope, ScopeFilters};
use crate::search::{SearchMode, SearchRequest, SearchResults};
use crate::Library;

/// The model that names the whole library.
const LIBRARY_MODEL: &str = "lectern";
/// The most passages one search returns.
const MAX_K: usize = 100;
/// The most texts one embeddings request holds.
const MAX_INPUTS: usize = 256;

/// The scope `model` names.
fn scope_of(library: &Library, model: &str) -> Result<Scope, ApiError> {
    if model == LIBRARY_MODEL {
        return Ok(Scope::default());
    }
    let folder = model
        .strip_prefix("lectern/")
        .and_then(|path| library.folder(path).ok())
        .ok_or_else(|| ApiError::no_such_model(model))?;
    Ok(Scope {
        folders: vec![folder.id],
        ..Scope::default()
    })
}

/// Runs blocking library work off the server's threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, crate::error::Error> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(crate::error::Error::stopped("serving a request"))?
        .map_err(ApiError::from)
}

/// `GET /v1/models`: the library, and each folder, as a model.
pub async fn models(State(served): State<Served>) -> Result<Json<Value>, ApiError> {
    let library = served.library.clone();
    let folders = blocking(move || library.folders()).await?;
    let model =
        |id: String, created: i64| json!({ "id": id, "object": "model", "created": created, "owned_by": "lectern" });
    let data: Vec<Value> = std::iter::once(model(LIBRARY_MODEL.into(), 0))
        .chain(
            folders
                .iter()
                .map(|f| model(format!("{LIBRARY_MODEL}/{}", f.path), f.created_at / 1000)),
        )
        .collect();
    Ok(Json(json!({ "object": "list", "data": data })))
}

/// A search: its words, the model that names its scope, and what `lectern search` also takes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchBody {
    query: String,
    #[serde(default = "library_model")]
    model: String,
    #[serde(default = "default_k")]
    k: usize,
    #[serde(default)]
    mode: SearchMode,
    #[serde(default)]
    filters: ScopeFilters,
}

fn library_model() -> String {
    LIBRARY_MODEL.into()
}

fn default_k() -> usize {
    10
}

/// `POST /v1/search`: the passages that best match a question in a model's scope, as `lectern
/// search --json` prints them.
pub async fn search(
    State(served): State<Served>,
    Json(body): Json<SearchBody>,
) -> Result<Json<SearchResults>, ApiError> {
    if body.query.trim().is_empty() {
        return Err(ApiError::invalid("the query is empty"));
    }
    if !(1..=MAX_K).contains(&body.k) {
        return Err(ApiError::invalid(format!(
            "k is {}; it must be from 1 to {MAX_K}",
            body.k
        )));
    }
    let library = served.library.clone();
    let model = body.model.clone();
    let scope = blocking(move || Ok(scope_of(&library, &model))).await??;
    let request = SearchRequest {
        query: body.query,
        scope: Scope {
            filters: body.filters,
            ..scope
        },
        k: body.k,
        mode: body.mode,
    };
    Ok(Json(served.library.search(&request).await?))
}

/// The texts to embed: one, or several.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Input {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
pub struct EmbeddingsBody {
    model: String,
    input: Input,
    #[serde(default)]
    encoding_format: Option<String>,
}

/// `POST /v1/embeddings`: each text's vector by the library's embedding model, the one its
/// passages were embedded with.
pub async fn embeddings(
    State(served): State<Served>,
    Json(body): Json<EmbeddingsBody>,
) -> Result<Json<Value>, ApiError> {
    if body.encoding_format.as_deref().is_some_and(|f| f != "float") {
        return Err(ApiError::invalid("only the \"float\" encoding is served"));
    }
    let inputs = match body.input {
        Input::One(text) => vec![text],
        Input::Many(texts) => texts,
    };
    if inputs.is_empty() || inputs.len() > MAX_INPUTS {
        return Err(ApiError::invalid(format!(
            "input holds {} texts; from 1 to {MAX_INPUTS} are served",
            inputs.len()
        )));
    }
    let mut data = Vec::with_capacity(inputs.len());
    for (index, text) in inputs.iter().enumerate() {
        let vector = served.library.embed_query(text).await?;
        data.push(json!({ "object": "embedding", "index": index, "embedding": vector }));
    }
    Ok(Json(json!({
        "object": "list",
        "data": data,
        "model": body.model,
        "usage": { "prompt_tokens": 0, "total_tokens": 0 },
    })))
}

/// `GET /v1/documents/{id}/pdf`: a document's stored PDF.
pub async fn document_pdf(State(served): State<Served>, Path(id): Path<String>) -> Result<impl IntoResponse, ApiError> {
    let library = served.library.clone();
    let bytes = blocking(move || {
        let path = library.document_file(library.document(&id)?.id)?;
        std::fs::read(&path).map_err(|source| crate::error::Error::Io { path, source })
    })
    .await?;
    Ok(([(CONTENT_TYPE, "application/pdf")], Bytes::from(bytes)))
}
