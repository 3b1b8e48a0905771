//! What the MCP tools do, over what an access reaches (indexing jobs included), each result a JSON value that names every
//! passage's document and page so that the client's model can cite them, with the scope it was
//! served over (for the request log). A folder is given by its path; none means everything the
//! access sees.

use axum::http::StatusCode;
use serde_json::{json, Value};

use super::routes::{check, MAX_CONTEXT_TOKENS};
use super::scope::{self, Resolved, LIBRARY_MODEL};
use super::{blocking, ApiError};
use lectern::catalog::Strategy;
use lectern::llm::Cancel;
use lectern::search::{Hit, SearchMode, SearchRequest};
use lectern::{Access, AskChoices, ContextRequest, Library, Question};

/// The most passages a search returns.
const MAX_PASSAGES: usize = 50;

/// A tool's result, and the scope it was served over.
pub type ToolOutput = (Value, String);

/// The scope of `folder` (everything the access sees without one), and how the log names it.
fn scope_of(library: &Library, access: &Access, folder: Option<&str>) -> Result<Resolved, ApiError> {
    match folder.map(|f| f.trim().trim_matches('/')) {
        None | Some("") => scope::resolve(library, access, LIBRARY_MODEL),
        Some(path) => scope::resolve(library, access, &format!("{LIBRARY_MODEL}/{path}")).map_err(|e| {
            if e.status() == StatusCode::NOT_FOUND {
                ApiError::no_such_folder(path)
            } else {
                e
            }
        }),
    }
}

/// [`scope_of`], off the async threads.
async fn resolved(library: &Library, access: &Access, folder: Option<&str>) -> Result<Resolved, ApiError> {
    let (library, access, folder) = (library.clone(), access.clone(), folder.map(str::to_string));
    blocking(move || scope_of(&library, &access, folder.as_deref())).await
}

fn passage(hit: &Hit) -> Value {
    json!({
        "document": hit.document_name,
        "document_id": hit.document,
        "folder": hit.folder_path,
        "page": hit.page,
        "chunk_id": hit.chunk_id,
        "char_start": hit.char_start,
        "char_end": hit.char_end,
        "score": hit.score,
        "text": hit.text,
    })
}

/// `search_documents`: the passages that best match `query`, best first.
pub async fn search(
    library: &Library,
    access: &Access,
    query: &str,
    folder: Option<&str>,
    k: Option<usize>,
) -> Result<ToolOutput, ApiError> {
    if query.trim().is_empty() {
        return Err(ApiError::invalid("the query is empty"));
    }
    let resolved = resolved(library, access, folder).await?;
    let request = SearchRequest {
        query: query.to_string(),
        scope: resolved.scope,
        k: k.unwrap_or(8).clamp(1, MAX_PASSAGES),
        mode: SearchMode::Hybrid,
        second_stage: false,
    };
    let results = library.search(&request).await?;
    let passages: Vec<Value> = results.hits.iter().map(passage).collect();
    Ok((json!({ "passages": passages }), resolved.label))
}

/// `get_context`: the best passages for `query` that fit `max_tokens`, as `POST /v1/context`
/// gives them.
pub async fn context(
    library: &Library,
    access: &Access,
    query: &str,
    folder: Option<&str>,
    max_tokens: usize,
    tokenizer: Option<String>,
) -> Result<ToolOutput, ApiError> {
    check(query, "max_tokens", max_tokens, MAX_CONTEXT_TOKENS)?;
    let resolved = resolved(library, access, folder).await?;
    let request = ContextRequest {
        query: query.to_string(),
        scope: resolved.scope,
        max_tokens,
        tokenizer,
    };
    let window = library.context_window(&request).await?;
    Ok((json!(window), resolved.label))
}

/// `ask`: an answer from the library's passages by the backend the user chose, with footnotes,
/// and the citations they point to.
/// `strategy` names when to search (the folder's default without one).
pub async fn ask(
    library: &Library,
    access: &Access,
    question: &str,
    folder: Option<&str>,
    strategy: Option<&str>,
    cancel: &Cancel,
) -> Result<ToolOutput, ApiError> {
    if question.trim().is_empty() {
        return Err(ApiError::invalid("the question is empty"));
    }
    let strategy = strategy
        .map(str::parse::<Strategy>)
        .transpose()
        .map_err(|e| ApiError::invalid(e.to_string()))?;
    let resolved = resolved(library, access, folder).await?;
    let question = Question {
        text: question.to_string(),
        history: Vec::new(),
        scope: resolved.scope,
    };
    let choices = AskChoices {
        strategy,
        ..AskChoices::default()
    };
    let answered = library.answer_as_chosen(question, &choices, cancel, None).await?;
    let answer = json!({
        "answer": answered.answer.markdown(),
        "citations": answered.answer.citations,
        "retrieval": answered.retrieval,
    });
    Ok((answer, resolved.label))
}

/// `list_folders`: the folders the access sees, with their counts (subfolders included).
pub fn folders(library: &Library, access: &Access) -> Result<ToolOutput, ApiError> {
    let folders: Vec<Value> = library
        .folder_stats()?
        .into_iter()
        .filter(|s| access.sees(&s.folder))
        .map(|s| json!({ "path": s.folder.path, "documents": s.documents, "pages": s.pages, "ready": s.ready }))
        .collect();
    Ok((json!({ "folders": folders }), "folders".into()))
}

/// `list_documents`: the documents of a folder (with its subfolders), or of everything the
/// access sees.
pub fn documents(library: &Library, access: &Access, folder: Option<&str>) -> Result<ToolOutput, ApiError> {
    let folders = library.folders_seen_by(access)?;
    let label = scope_of(library, access, folder)?.label;
    let documents: Vec<Value> = library
        .documents(folder, true)?
        .into_iter()
        .filter_map(|d| {
            let folder = folders.iter().find(|f| f.id == d.folder)?;
            Some(json!({
                "id": d.id,
                "name": d.file_name,
                "title": d.title,
                "folder": folder.path,
                "pages": d.page_count,
                "status": d.status.as_str(),
            }))
        })
        .collect();
    Ok((json!({ "documents": documents }), label))
}

/// `read_passage`: a passage by its document and chunk id, as a search or a citation gave them.
pub fn read_passage(
    library: &Library,
    access: &Access,
    document: &str,
    chunk_id: &str,
) -> Result<ToolOutput, ApiError> {
    let doc = library.document_seen_by(access, document)?;
    let chunk = library.passage(doc.id, chunk_id)?;
    let passage = json!({
        "document": doc.file_name,
        "document_id": doc.id,
        "page": chunk.page,
        "chunk_id": chunk.id.0,
        "char_start": chunk.char_start,
        "char_end": chunk.char_end,
        "text": chunk.text,
    });
    Ok((passage, format!("document {}", doc.id)))
}

/// `read_page`: a page's stored text, the one citations' character ranges point into.
pub fn read_page(library: &Library, access: &Access, document: &str, page: u32) -> Result<ToolOutput, ApiError> {
    let doc = library.document_seen_by(access, document)?;
    let text = library.page_text(doc.id, page)?;
    let page = json!({
        "document": doc.file_name,
        "document_id": doc.id,
        "page": page,
        "pages": doc.page_count,
        "text": text,
    });
    Ok((page, format!("document {}", doc.id)))
}

/// `add_documents`: the files at `paths` added to `folder` as an indexing job (for the whole
/// library's access only: a token limited to folders must not read the server's other files).
pub fn add_documents(
    library: &Library,
    access: &Access,
    paths: &[String],
    folder: &str,
) -> Result<ToolOutput, ApiError> {
    let paths: Vec<std::path::PathBuf> = paths.iter().map(Into::into).collect();
    let job = super::jobs::start_by_path(library, access, &paths, folder)?;
    let label = format!("job {}", job.id);
    Ok((json!(job), label))
}

/// `job_status`: how a job stands, and its log after `log_after` if asked.
pub fn job_status(
    library: &Library,
    access: &Access,
    job: &str,
    log_after: Option<i64>,
) -> Result<ToolOutput, ApiError> {
    let job = library.job_seen_by(access, job)?;
    let mut value = json!(job);
    if let Some(after) = log_after {
        value["log"] = json!(library.job_events(&job.id, after, 500)?);
    }
    Ok((value, format!("job {}", job.id)))
}
