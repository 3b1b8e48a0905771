//! The endpoints: the models a token sees, search over a model's scope, embeddings with the
//! library's model, and a document's stored PDF and page text (to show what was cited). Each
//! reply names the scope it served, for the request log.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::{Extension, Json};
use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Value};

use super::error::Body;
use super::scope::{self, logged, LIBRARY_MODEL};
use super::{blocking, ApiError, Served};
use lectern::catalog::{Scope, ScopeFilters};
use lectern::search::{SearchMode, SearchRequest, SearchResults};
use lectern::{Access, ContextRequest};

/// The most passages one search returns.
const MAX_K: usize = 100;
/// The most texts one embeddings request holds.
const MAX_INPUTS: usize = 256;
/// The most tokens one context window holds.
pub const MAX_CONTEXT_TOKENS: usize = 100_000;

/// `GET /v1/models`: everything the token sees, and each folder it sees, as a model.
pub async fn models(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
) -> Result<impl IntoResponse, ApiError> {
    let library = served.library.clone();
    let models = blocking(move || scope::models(&library, &access)).await?;
    let data: Vec<Value> = models
        .into_iter()
        .map(|(id, created)| json!({ "id": id, "object": "model", "created": created, "owned_by": "lectern" }))
        .collect();
    Ok((logged("models"), Json(json!({ "object": "list", "data": data }))))
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
    /// The best pages scored again by the second stage's model, where it is installed.
    #[serde(default)]
    second_stage: bool,
}

fn library_model() -> String {
    LIBRARY_MODEL.into()
}

fn default_k() -> usize {
    10
}

/// Refuses an empty query, and a `name` of `value` outside 1 to `max`.
pub fn check(query: &str, name: &str, value: usize, max: usize) -> Result<(), ApiError> {
    if query.trim().is_empty() {
        return Err(ApiError::invalid("the query is empty"));
    }
    if !(1..=max).contains(&value) {
        return Err(ApiError::invalid(format!(
            "{name} is {value}; it must be from 1 to {max}"
        )));
    }
    Ok(())
}

/// The scope `model` names for `access`, narrowed by `filters`.
async fn filtered_scope(
    served: &Served,
    access: Access,
    model: String,
    filters: ScopeFilters,
) -> Result<scope::Resolved, ApiError> {
    let library = served.library.clone();
    let resolved = blocking(move || scope::resolve(&library, &access, &model)).await?;
    Ok(scope::Resolved {
        scope: Scope {
            filters,
            ..resolved.scope
        },
        label: resolved.label,
    })
}

/// `POST /v1/search`: the passages that best match a question in a model's scope, as `lectern
/// search --json` prints them.
pub async fn search(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Body(body): Body<SearchBody>,
) -> Result<impl IntoResponse, ApiError> {
    check(&body.query, "k", body.k, MAX_K)?;
    let resolved = filtered_scope(&served, access, body.model, body.filters).await?;
    let request = SearchRequest {
        query: body.query,
        scope: resolved.scope,
        k: body.k,
        mode: body.mode,
        second_stage: body.second_stage,
    };
    let results: SearchResults = served.library.search(&request).await?;
    Ok((logged(resolved.label), Json(results)))
}

/// A context window: the query, the model that names its scope, how many tokens, and whose
/// tokenizer counts them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextBody {
    query: String,
    #[serde(default = "library_model")]
    model: String,
    max_tokens: usize,
    /// An installed chat model's id (its tokenizer counts); without one, an estimate.
    #[serde(default)]
    tokenizer: Option<String>,
    #[serde(default)]
    filters: ScopeFilters,
}

/// `POST /v1/context`: the best passages for a query in a model's scope that fit `max_tokens`,
/// found and packed as the library's answers find and pack them, with each passage's document,
/// page and characters, the tokens used and whether any was left out.
pub async fn context(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Body(body): Body<ContextBody>,
) -> Result<impl IntoResponse, ApiError> {
    check(&body.query, "max_tokens", body.max_tokens, MAX_CONTEXT_TOKENS)?;
    let resolved = filtered_scope(&served, access, body.model, body.filters).await?;
    let request = ContextRequest {
        query: body.query,
        scope: resolved.scope,
        max_tokens: body.max_tokens,
        tokenizer: body.tokenizer,
    };
    let window = served.library.context_window(&request).await?;
    Ok((logged(resolved.label), Json(window)))
}

/// The texts to embed: one, or several; or token ids, which are not served (the library's
/// model reads text with its own tokenizer).
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Input {
    One(String),
    Many(Vec<String>),
    Tokens(Vec<serde::de::IgnoredAny>),
}

#[derive(Deserialize)]
pub struct EmbeddingsBody {
    model: String,
    input: Input,
    #[serde(default)]
    encoding_format: Option<String>,
    dimensions: Option<usize>,
}

/// `POST /v1/embeddings`: each text's vector by the library's embedding model, the one its
/// passages were embedded with; as numbers, or as OpenAI's clients ask by default, the base64
/// of its little-endian 32-bit floats.
pub async fn embeddings(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Body(body): Body<EmbeddingsBody>,
) -> Result<impl IntoResponse, ApiError> {
    if access.everything().is_none() {
        return Err(ApiError::sees_nothing());
    }
    let base64 = match body.encoding_format.as_deref() {
        None | Some("float") => false,
        Some("base64") => true,
        Some(other) => {
            return Err(ApiError::invalid(format!(
                "the encoding {other:?} is not served: \"float\" or \"base64\""
            )))
        }
    };
    let inputs = match body.input {
        Input::One(text) => vec![text],
        Input::Many(texts) => texts,
        Input::Tokens(given) => {
            return Err(ApiError::invalid(format!(
                "input holds {} token lists or ids, which are not served: send the text (the library's model tokenizes it itself)",
                given.len()
            )))
        }
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
        if let Some(wanted) = body.dimensions.filter(|&d| d != vector.len()) {
            return Err(ApiError::invalid(format!(
                "the library's model makes vectors of {} dimensions, not {wanted}",
                vector.len()
            )));
        }
        let embedding = if base64 {
            let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
            json!(base64::engine::general_purpose::STANDARD.encode(bytes))
        } else {
            json!(vector)
        };
        data.push(json!({ "object": "embedding", "index": index, "embedding": embedding }));
    }
    Ok((
        logged("embeddings"),
        Json(json!({
            "object": "list",
            "data": data,
            "model": body.model,
            "usage": { "prompt_tokens": 0, "total_tokens": 0 },
        })),
    ))
}

/// `GET /v1/documents/{id}/pdf`: a document's stored PDF.
pub async fn document_pdf(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    let library = served.library.clone();
    let (doc, bytes) = blocking(move || {
        let doc = library.document_seen_by(&access, &id)?;
        let path = library.document_file(doc.id)?;
        let bytes = std::fs::read(&path).map_err(lectern::Error::io(&path))?;
        Ok((doc, bytes))
    })
    .await?;
    Ok((
        logged(format!("document {}", doc.id)),
        [(CONTENT_TYPE, "application/pdf")],
        Bytes::from(bytes),
    ))
}

/// `GET /v1/documents/{id}/pages/{page}`: a page's stored text, the one a citation's character
/// range points into.
pub async fn page_text(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Path((id, page)): Path<(String, String)>,
) -> Result<impl IntoResponse, ApiError> {
    let page: u32 = page
        .parse()
        .map_err(|_| ApiError::invalid(format!("{page:?} is not a page number (1, 2, …)")))?;
    let library = served.library.clone();
    let (doc, text) = blocking(move || {
        let doc = library.document_seen_by(&access, &id)?;
        let text = library.page_text(doc.id, page)?;
        Ok((doc, text))
    })
    .await?;
    Ok((
        logged(format!("document {}", doc.id)),
        Json(json!({
            "object": "page",
            "document": doc.id,
            "document_name": doc.file_name,
            "page": page,
            "pages": doc.page_count,
            "text": text,
        })),
    ))
}
