//! `lectern serve`: the library for other programs, over HTTP on the OpenAI API's wire format
//! (`/v1/models`, `/v1/chat/completions`, `/v1/embeddings`) and Lectern's own search
//! (`/v1/search`, `/v1/context`), stored PDFs and page texts, and indexing jobs (`/v1/jobs`). Safe by default: it listens where it is told (the
//! loopback interface unless told otherwise), every request needs a bearer token (the library's,
//! or one limited to folders: [`lectern::Access`]), bodies are bounded, no CORS header is ever
//! sent (a web page cannot read a reply), and each request is logged in the library with who
//! asked and its scope, never its text. `routes.rs`, `chat.rs` and `jobs.rs` hold the endpoints,
//! `scope.rs` what a token reaches, `error.rs` the error replies.

mod chat;
mod error;
mod jobs;
mod mcp;
mod routes;
mod scope;
mod tools;

use std::net::SocketAddr;
use std::time::Instant;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

pub use error::ApiError;
pub use mcp::serve_stdio;
pub use scope::LIBRARY_MODEL;

use lectern::catalog::{now_millis, ApiRequest};
use lectern::Error;
use lectern::{Library, TOKEN_FILE};

/// The most a request's body may hold.
pub(crate) const MAX_BODY: usize = 1 << 20;

/// Where the server listens by default: this machine only.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:8765";

/// What every request is served with.
#[derive(Clone)]
struct Served {
    library: Library,
}

/// The server's routes over `library`, each behind a token, for a server listening at `address`.
pub fn router(library: Library, address: SocketAddr) -> Router {
    let mcp = mcp::http_service(library.clone(), allowed_hosts(address));
    let served = Served { library };
    Router::new()
        .nest_service("/mcp", mcp)
        .route("/v1/models", get(routes::models))
        .route("/v1/chat/completions", post(chat::completions))
        .route("/v1/search", post(routes::search))
        .route("/v1/context", post(routes::context))
        .route("/v1/embeddings", post(routes::embeddings))
        .route("/v1/documents/{id}/pdf", get(routes::document_pdf))
        .route("/v1/documents/{id}/pages/{page}", get(routes::page_text))
        .route("/v1/jobs", post(jobs::create).get(jobs::list))
        .route(
            "/v1/jobs/upload",
            post(jobs::upload).layer(DefaultBodyLimit::max(jobs::MAX_UPLOAD)),
        )
        .route("/v1/jobs/{id}", get(jobs::show))
        .route("/v1/jobs/{id}/log", get(jobs::log))
        .route("/v1/jobs/{id}/{action}", post(jobs::act))
        .layer(middleware::from_fn_with_state(served.clone(), authorised))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(served)
}

/// Runs blocking library work off the server's threads.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(Error::stopped("serving a request"))?
}

/// Serves `library` on `listener` until the process ends.
pub async fn serve(library: Library, listener: tokio::net::TcpListener) -> Result<(), Error> {
    serve_until(library, listener, std::future::pending()).await
}

/// Serves `library` on `listener` until `stop` completes; requests under way are finished.
pub async fn serve_until(
    library: Library,
    listener: tokio::net::TcpListener,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    // Made now, if the library has none, so that it can be read before the first request.
    library.api_token()?;
    let address = local_address(&listener)?;
    eprintln!(
        "lectern: serving the library at http://{address}/v1 (token in {})",
        library.config().home.join(TOKEN_FILE).display()
    );
    axum::serve(
        listener,
        router(library, address).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(stop)
    .await
    .map_err(Error::io("the server's socket"))
}

/// The names a request to a server at `address` may give as its host: this machine's, and the
/// address's own; any for a server on every interface.
fn allowed_hosts(address: SocketAddr) -> Vec<String> {
    let ip = address.ip();
    if ip.is_unspecified() {
        return Vec::new();
    }
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(String::from).to_vec();
    if !ip.is_loopback() {
        hosts.push(ip.to_string());
    }
    hosts
}

/// Listens at `address` for [`serve`].
pub async fn bind(address: SocketAddr) -> Result<tokio::net::TcpListener, Error> {
    tokio::net::TcpListener::bind(address).await.map_err(|e| Error::Listen {
        address: address.to_string(),
        reason: e.to_string(),
    })
}

/// The address `listener` is bound to.
pub fn local_address(listener: &tokio::net::TcpListener) -> Result<SocketAddr, Error> {
    listener.local_addr().map_err(Error::io("the server's socket"))
}

/// Lets a request through only with a token, looked up for each request so that a rotated or
/// removed token stops at once, and hands the handler what the token reaches. Each request
/// goes to standard error; an admitted one is also logged in the library (who asked, its method,
/// path, scope, reply and time, never its body) before its reply leaves, a refused one is not (a
/// stranger cannot flood the log). A streamed reply is logged when it starts.
async fn authorised(State(served): State<Served>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let given = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default()
        .to_string();
    let (method, path) = (request.method().to_string(), request.uri().path().to_string());
    let library = served.library.clone();
    let refused = |e: ApiError| {
        let reply = e.into_response();
        eprintln!("lectern serve: refused {method} {path} -> {}", reply.status().as_u16());
        reply
    };
    let access = match blocking(move || Ok(library.api_access(&given)?)).await {
        Ok(Some(access)) => access,
        Ok(None) => return refused(ApiError::unauthorised()),
        Err(e) => return refused(e),
    };
    let holder = access.holder.clone();
    request.extensions_mut().insert(access);
    let reply = next.run(request).await;
    let scope = match reply.extensions().get::<scope::Logged>() {
        Some(logged) => logged.0.clone(),
        // MCP logs each tool call with its scope.
        None if path.starts_with("/mcp") => "mcp".to_string(),
        None => "-".to_string(),
    };
    let entry = ApiRequest {
        at: now_millis(),
        holder,
        method,
        path,
        scope,
        status: reply.status().as_u16(),
        millis: started.elapsed().as_millis() as u64,
    };
    eprintln!(
        "lectern serve: {} {} {} [{}] -> {} in {} ms",
        entry.holder, entry.method, entry.path, entry.scope, entry.status, entry.millis
    );
    log(&served.library, entry).await;
    reply
}

/// Adds `entry` to the library's request log (a failure is said on standard error: the
/// request was served).
pub(crate) async fn log(library: &Library, entry: ApiRequest) {
    let library = library.clone();
    let logged = blocking(move || Ok(library.log_api_request(&entry)?)).await;
    if let Err(e) = logged {
        eprintln!("lectern serve: the request could not be logged: {}", e.message());
    }
}
