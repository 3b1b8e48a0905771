//! The server's error replies, in the OpenAI API's shape (`{"error": {"message", "type",
//! "code"}}`) so its clients report them as they report OpenAI's, with the HTTP status a
//! library error's code implies; a request body the server cannot read is replied to the same
//! way ([`Body`]). A fault of Lectern's own is told to the client without its details (paths on
//! this machine), which go to standard error.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde_json::json;

use lectern::{Error, ErrorCode};

/// A request the server could not serve, and why.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    code: Option<&'static str>,
    message: String,
}

impl ApiError {
    /// A request without a token, or with one the library does not know.
    pub fn unauthorised() -> ApiError {
        ApiError {
            status: StatusCode::UNAUTHORIZED,
            kind: "invalid_request_error",
            code: Some("invalid_api_key"),
            message: "this server needs a token of the library as a bearer token (`lectern serve --show-token` prints the library's own)"
                .into(),
        }
    }

    /// A request that names something this library does not have, or asks what it cannot do.
    pub fn invalid(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            kind: "invalid_request_error",
            code: None,
            message: message.into(),
        }
    }

    /// A token limited to folders that were all deleted since it was made.
    pub fn sees_nothing() -> ApiError {
        ApiError {
            status: StatusCode::FORBIDDEN,
            kind: "invalid_request_error",
            code: Some("no_folders"),
            message: "every folder this token was limited to has been deleted, so it sees nothing; make a new token (`lectern serve token add`)".into(),
        }
    }

    /// A request this token may not make, and why.
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::FORBIDDEN,
            kind: "invalid_request_error",
            code: Some("forbidden"),
            message: message.into(),
        }
    }

    /// A folder path (of an MCP tool's arguments) that names no folder the token sees.
    pub fn no_such_folder(path: &str) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            kind: "invalid_request_error",
            code: Some("folder_not_found"),
            message: format!("no folder {path:?} (list_folders lists them)"),
        }
    }

    /// A model name that is neither the library nor one of its folders.
    pub fn no_such_model(model: &str) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            kind: "invalid_request_error",
            code: Some("model_not_found"),
            message: format!("no model {model:?}: the models are \"lectern\" (the whole library) and \"lectern/<folder path>\" (GET /v1/models lists them)"),
        }
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        let (status, kind) = match e.code() {
            ErrorCode::NotFound => (StatusCode::NOT_FOUND, "invalid_request_error"),
            ErrorCode::InvalidInput | ErrorCode::NeedsPassword | ErrorCode::Ambiguous => {
                (StatusCode::BAD_REQUEST, "invalid_request_error")
            }
            ErrorCode::Conflict => (StatusCode::CONFLICT, "invalid_request_error"),
            ErrorCode::Unavailable | ErrorCode::Offline => (StatusCode::SERVICE_UNAVAILABLE, "server_error"),
            ErrorCode::Internal => {
                eprintln!("lectern serve: {e}");
                return ApiError {
                    status: StatusCode::INTERNAL_SERVER_ERROR,
                    kind: "server_error",
                    code: None,
                    message: "Lectern failed to serve this request; the server's standard error says why".into(),
                };
            }
        };
        ApiError {
            status,
            kind,
            code: matches!(e, Error::WhichDocument { .. }).then_some("which_document"),
            message: e.to_string(),
        }
    }
}

impl ApiError {
    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The HTTP status the error is replied with.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The reply's body, also sent as a stream's last event when an answer fails part-way.
    pub fn body(&self) -> serde_json::Value {
        json!({ "error": { "message": self.message, "type": self.kind, "code": self.code, "param": null } })
    }
}

/// A JSON request body whose errors (not JSON, a field missing or of the wrong kind, too
/// large) are replied to in the OpenAI API's shape.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Body<T>, ApiError> {
        match Json::<T>::from_request(request, state).await {
            Ok(Json(body)) => Ok(Body(body)),
            Err(rejection) => Err(ApiError::rejected(&rejection)),
        }
    }
}

impl ApiError {
    fn rejected(rejection: &JsonRejection) -> ApiError {
        ApiError {
            status: rejection.status(),
            kind: "invalid_request_error",
            code: None,
            message: rejection.body_text(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body())).into_response()
    }
}
