//! The library as an MCP server (the official Rust SDK, `rmcp`): over standard input and output
//! (`lectern mcp`, for a client that starts it) and over streamable HTTP at `/mcp` beside the
//! OpenAI-style endpoints, behind the same tokens. Tools search, answer, list, read and add, each
//! result naming its documents and pages (`tools.rs`); a tool call is logged with its scope, as
//! a request is. Over HTTP a call reaches what its request's token reaches; over standard input
//! the whole library.

use std::sync::Arc;
use std::time::Instant;

use axum::http::request::Parts;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;

use super::tools::{self, ToolOutput};
use super::{blocking, ApiError, MAX_BODY};
use lectern::catalog::{now_millis, ApiRequest};
use lectern::llm::Cancel;
use lectern::Error;
use lectern::{Access, Library};

/// What the client's model is told of the server.
const INSTRUCTIONS: &str = "Lectern: the user's own library of PDFs, in folders. search_documents finds passages, get_context \
     packs the best of them into a number of tokens, ask answers a question from them with numbered footnotes, list_folders and list_documents show what there is, \
     read_passage and read_page read what a passage or a citation points to, add_documents adds PDFs as an indexing job \
     that job_status follows. Cite the document and page of every passage you use.";

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    /// What to look for, in words.
    query: String,
    /// A folder's path as list_folders gives it; the whole library without one.
    folder: Option<String>,
    /// How many passages, 1 to 50 (8 without).
    k: Option<usize>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ContextArgs {
    /// What the passages are for, in words.
    query: String,
    /// A folder's path as list_folders gives it; the whole library without one.
    folder: Option<String>,
    /// The most tokens the passages may take, 1 to 100,000.
    max_tokens: usize,
    /// An installed chat model's id whose tokenizer counts the tokens; an estimate without one.
    tokenizer: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AskArgs {
    /// The question.
    question: String,
    /// A folder's path as list_folders gives it; the whole library without one.
    folder: Option<String>,
    /// When to search: always, confidence (only passages that clearly bear on the question),
    /// function (the model decides) or smart (small talk is not searched); the folder's default
    /// without one.
    strategy: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct FolderArgs {
    /// A folder's path as list_folders gives it (with its subfolders); the whole library without one.
    folder: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PassageArgs {
    /// The document's id, as a search or a citation gave it.
    document: String,
    /// The passage's chunk_id, as a search or a citation gave it.
    chunk_id: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PageArgs {
    /// The document's id, as a search, a citation or list_documents gave it.
    document: String,
    /// The page, from 1.
    page: u32,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AddArgs {
    /// PDF files, or directories searched for PDFs, on the machine Lectern runs on.
    paths: Vec<String>,
    /// The folder's path as list_folders gives it.
    folder: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct JobArgs {
    /// The job's id, as add_documents gave it.
    job: String,
    /// Also return the job's log after this entry id (0: from the start).
    log_after: Option<i64>,
}

/// The MCP tools over a library.
#[derive(Clone)]
pub struct LibraryTools {
    library: Library,
    /// What a call reaches when its request does not say (over standard input).
    local: Option<Access>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl LibraryTools {
    fn new(library: Library, local: Option<Access>) -> LibraryTools {
        LibraryTools {
            library,
            local,
            tool_router: Self::tool_router(),
        }
    }

    /// What the call reaches: its HTTP request's token's access, else the local one.
    fn access(&self, context: &RequestContext<RoleServer>) -> Result<Access, ErrorData> {
        context
            .extensions
            .get::<Parts>()
            .and_then(|parts| parts.extensions.get::<Access>())
            .or(self.local.as_ref())
            .cloned()
            .ok_or_else(|| ErrorData::invalid_request("the request carries no token", None))
    }

    /// Logs the call and turns its result into the tool's reply: an error the client's model
    /// reads, or the result as JSON.
    async fn reply(
        &self,
        tool: &str,
        access: &Access,
        started: Instant,
        result: Result<ToolOutput, ApiError>,
    ) -> Result<CallToolResult, ErrorData> {
        let (scope, status) = match &result {
            Ok((_, scope)) => (scope.clone(), 200),
            Err(e) => ("-".to_string(), e.status().as_u16()),
        };
        let entry = ApiRequest {
            at: now_millis(),
            holder: access.holder.clone(),
            method: "MCP".into(),
            path: format!("tools/{tool}"),
            scope,
            status,
            millis: started.elapsed().as_millis() as u64,
        };
        super::log(&self.library, entry).await;
        match result {
            Ok((value, _)) => Ok(CallToolResult::success(vec![ContentBlock::json(&value)?])),
            Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(e.message().to_string())])),
        }
    }

    #[tool(
        description = "Search the library for the passages that best match a query (words and meaning), best first, each with its document, page and chunk_id.",
        annotations(read_only_hint = true)
    )]
    async fn search_documents(
        &self,
        Parameters(args): Parameters<SearchArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        let result = tools::search(&self.library, &access, &args.query, args.folder.as_deref(), args.k).await;
        self.reply("search_documents", &access, started, result).await
    }

    #[tool(
        description = "The best passages for a query that fit max_tokens, packed as Lectern's own answers pack them: their text labelled [1], [2], … and each passage's document, page and character range, the tokens used, and whether any was left out (truncated).",
        annotations(read_only_hint = true)
    )]
    async fn get_context(
        &self,
        Parameters(args): Parameters<ContextArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        let result = tools::context(
            &self.library,
            &access,
            &args.query,
            args.folder.as_deref(),
            args.max_tokens,
            args.tokenizer,
        )
        .await;
        self.reply("get_context", &access, started, result).await
    }

    #[tool(
        description = "Answer a question from the library's passages, with numbered footnotes; the citations give each footnote's document, page, character range and quote.",
        annotations(read_only_hint = true)
    )]
    async fn ask(
        &self,
        Parameters(args): Parameters<AskArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        // A call the client cancels stops its answer.
        let cancel = Cancel::new();
        let stop = {
            let (asked, cancel) = (context.ct.clone(), cancel.clone());
            tokio::spawn(async move {
                asked.cancelled().await;
                cancel.cancel();
            })
        };
        let (folder, strategy) = (args.folder.as_deref(), args.strategy.as_deref());
        let result = tools::ask(&self.library, &access, &args.question, folder, strategy, &cancel).await;
        stop.abort();
        self.reply("ask", &access, started, result).await
    }

    #[tool(
        description = "List the library's folders with their document and page counts (subfolders included).",
        annotations(read_only_hint = true)
    )]
    async fn list_folders(&self, context: RequestContext<RoleServer>) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        let (library, seen) = (self.library.clone(), access.clone());
        let result = blocking(move || tools::folders(&library, &seen)).await;
        self.reply("list_folders", &access, started, result).await
    }

    #[tool(
        description = "List the documents of a folder (with its subfolders) or of the whole library: id, name, title, folder, pages and status.",
        annotations(read_only_hint = true)
    )]
    async fn list_documents(
        &self,
        Parameters(args): Parameters<FolderArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        let (library, seen) = (self.library.clone(), access.clone());
        let result = blocking(move || tools::documents(&library, &seen, args.folder.as_deref())).await;
        self.reply("list_documents", &access, started, result).await
    }

    #[tool(
        description = "Read one passage of a document by its chunk_id, with its page and character range.",
        annotations(read_only_hint = true)
    )]
    async fn read_passage(
        &self,
        Parameters(args): Parameters<PassageArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        let (library, seen) = (self.library.clone(), access.clone());
        let result = blocking(move || tools::read_passage(&library, &seen, &args.document, &args.chunk_id)).await;
        self.reply("read_passage", &access, started, result).await
    }

    #[tool(
        description = "Read the whole text of one page of a document, the text citations' character ranges point into.",
        annotations(read_only_hint = true)
    )]
    async fn read_page(
        &self,
        Parameters(args): Parameters<PageArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        let (library, seen) = (self.library.clone(), access.clone());
        let result = blocking(move || tools::read_page(&library, &seen, &args.document, args.page)).await;
        self.reply("read_page", &access, started, result).await
    }

    #[tool(
        description = "Add PDF files or directories (paths on the machine Lectern runs on) to a folder as an indexing job; returns the job's id and counts at once, and indexing goes on in the background (job_status follows it)."
    )]
    async fn add_documents(
        &self,
        Parameters(args): Parameters<AddArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        let (library, seen) = (self.library.clone(), access.clone());
        let result = blocking(move || tools::add_documents(&library, &seen, &args.paths, &args.folder)).await;
        self.reply("add_documents", &access, started, result).await
    }

    #[tool(
        description = "How an indexing job stands (running, paused, cancelled or done; documents done, failed and left; pages per second), with its log after an entry id if asked.",
        annotations(read_only_hint = true)
    )]
    async fn job_status(
        &self,
        Parameters(args): Parameters<JobArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (access, started) = (self.access(&context)?, Instant::now());
        let (library, seen) = (self.library.clone(), access.clone());
        let result = blocking(move || tools::job_status(&library, &seen, &args.job, args.log_after)).await;
        self.reply("job_status", &access, started, result).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LibraryTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("lectern", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// Serves the whole library over standard input and output until the client leaves.
pub async fn serve_stdio(library: Library) -> Result<(), Error> {
    let running = LibraryTools::new(library, Some(Access::whole_library("mcp (standard input)")))
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Error::Io {
            path: "standard input".into(),
            source: std::io::Error::other(e.to_string()),
        })?;
    running.waiting().await.map_err(Error::stopped("the MCP server"))?;
    Ok(())
}

/// The streamable HTTP endpoint, one stateless server per request, each call reaching what its
/// request's token reaches. `hosts` are the names a request may give as its host (a web page
/// that rebinds another name to this machine is refused); a request from a web page is refused.
pub fn http_service(library: Library, hosts: Vec<String>) -> StreamableHttpService<LibraryTools, NeverSessionManager> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(MAX_BODY)
        .enforce_origin_validation();
    let config = if hosts.is_empty() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(hosts)
    };
    StreamableHttpService::new(
        move || Ok(LibraryTools::new(library.clone(), None)),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}
