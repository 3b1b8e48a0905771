//! `lectern serve`: the library for other programs, over HTTP on the OpenAI API's wire format
//! (`/v1/models`, `/v1/embeddings`) and Lectern's own search (`/v1/search`) and stored PDFs.
//! Safe by default: it listens where it is told (the loopback interface unless told otherwise),
//! every request needs the library's bearer token (`token.rs`), bodies are bounded, no CORS
//! header is ever sent (a web page cannot read a reply), and each request is logged with its
//! scope, never its text. `routes.rs` holds the endpoints, `error.rs` the error replies.

mod error;
mod routes;
mod token;

use std::net::SocketAddr;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

pub use error::ApiError;
pub use token::{api_token, rotate_api_token, TOKEN_FILE};

use crate::error::Error;
use crate::Library;

/// The most a request's body may hold.
const MAX_BODY: usize = 1 << 20;

/// Where the server listens by default: this machine only.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:8765";

/// What every request is served with.
#[derive(Clone)]
struct Served {
    library: Library,
}

/// The server's routes over `library`, each behind the library's token.
pub fn router(library: Library) -> Router {
    let served = Served { library };
    Router::new()
        .route("/v1/models", get(routes::models))
        .route("/v1/search", post(routes::search))
        .route("/v1/embeddings", post(routes::embeddings))
        .route("/v1/documents/{id}/pdf", get(routes::document_pdf))
        .layer(middleware::from_fn_with_state(served.clone(), authorised))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(served)
}

/// Serves `library` on `listener` until the process ends.
pub async fn serve(library: Library, listener: tokio::net::TcpListener) -> Result<(), Error> {
    // Made now, if the library has none, so that it can be read before the first request.
    api_token(&library.config().home)?;
    let address = listener.local_addr().map_err(|source| Error::Io {
        path: "the server's socket".into(),
        source,
    })?;
    eprintln!(
        "lectern: serving the library at http://{address}/v1 (token in {})",
        library.config().home.join(TOKEN_FILE).display()
    );
    axum::serve(
        listener,
        router(library).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .await
    .map_err(|source| Error::Io {
        path: "the server's socket".into(),
        source,
    })
}

/// Lets a request through only with the library's bearer token, read for each request so that
/// a rotated token takes effect at once; logs what it asked of the library (its method, path and
/// reply, never its body).
async fn authorised(State(served): State<Served>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    let reply = match api_token(&served.library.config().home) {
        Ok(token) if token::matches(given, &token) => next.run(request).await,
        Ok(_) => ApiError::unauthorised().into_response(),
        Err(e) => ApiError::from(e).into_response(),
    };
    eprintln!("lectern serve: {method} {path} -> {}", reply.status().as_u16());
    reply
}
