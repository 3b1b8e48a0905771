//! The client of a remote library: another Lectern server's `/v1` API, asked with the token
//! its owner gave. It lists the folders the token sees, searches them, and fetches a cited PDF.
//! Nothing the server sends is read without a bound (`server::read_json`).

use std::io::Read;
use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::json;
use thiserror::Error;

use crate::fault::ErrorCode;
use crate::model_server::{error_message, read_json, root_cause};
use crate::search::{SearchMode, SearchResults};

/// How long a search of a remote library may take.
const SEARCH_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest PDF fetched from a remote library (the server takes uploads up to 512 MB).
const MAX_PDF: u64 = 512 << 20;

/// What went wrong with a remote library.
#[derive(Debug, Error)]
pub enum RemoteError {
    #[error("could not reach the remote library \"{remote}\" at {url} ({reason}): is its `lectern serve` running? Check the URL")]
    Unreachable {
        remote: String,
        url: String,
        reason: String,
    },
    #[error("the remote library \"{remote}\" refused its token: ask its owner for a valid one, then `lectern remote rm {remote}` and add it again")]
    Unauthorized { remote: String },
    #[error("the remote library \"{remote}\" has no folder \"{folder}\" that its token sees")]
    NoFolder { remote: String, folder: String },
    #[error("the remote library \"{remote}\" answered with an error (HTTP {status}): {message}")]
    Refused {
        remote: String,
        status: u16,
        message: String,
    },
    #[error("the remote library \"{remote}\" sent a reply Lectern cannot read: {reason}; is {url} a Lectern server's /v1 address?")]
    BadReply {
        remote: String,
        url: String,
        reason: String,
    },
}

impl From<RemoteError> for crate::error::Error {
    fn from(e: RemoteError) -> Self {
        let code = match e {
            RemoteError::NoFolder { .. } => ErrorCode::NotFound,
            _ => ErrorCode::Unavailable,
        };
        crate::error::Error::Remote {
            message: e.to_string(),
            code,
        }
    }
}

/// A remote library's API, with its token.
#[derive(Debug, Clone)]
pub struct RemoteClient {
    name: String,
    /// The API base, without a trailing slash (`http://host:8765/v1`).
    url: String,
    token: String,
    client: Client,
}

impl RemoteClient {
    pub fn new(name: &str, url: &str, token: &str) -> Result<RemoteClient, RemoteError> {
        let url = url.trim().trim_end_matches('/').to_string();
        let client = Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| RemoteError::Unreachable {
                remote: name.into(),
                url: url.clone(),
                reason: root_cause(&e),
            })?;
        Ok(RemoteClient {
            name: name.into(),
            url,
            token: token.into(),
            client,
        })
    }

    /// The folders the token sees (their paths).
    pub fn folders(&self) -> Result<Vec<String>, RemoteError> {
        let reply = self.send(self.client.get(self.at("models")).timeout(SEARCH_TIMEOUT))?;
        let models = self.json(reply)?;
        let ids: Vec<&str> = models["data"]
            .as_array()
            .map(|data| data.iter().filter_map(|m| m["id"].as_str()).collect())
            .ok_or_else(|| self.bad_reply("its model list has no \"data\""))?;
        Ok(ids
            .iter()
            .filter_map(|id| id.strip_prefix("lectern/"))
            .map(str::to_string)
            .collect())
    }

    /// Searches the folder (or all the token sees) for `query`: the remote's own ranking.
    pub fn search(
        &self,
        query: &str,
        folder: Option<&str>,
        k: usize,
        mode: SearchMode,
    ) -> Result<SearchResults, RemoteError> {
        let model = folder.map_or_else(|| "lectern".to_string(), |f| format!("lectern/{f}"));
        let body = json!({ "query": query, "model": model, "k": k, "mode": mode });
        let request = self.client.post(self.at("search")).json(&body).timeout(SEARCH_TIMEOUT);
        let reply = match self.send(request) {
            Err(RemoteError::Refused { status: 404, .. }) if folder.is_some() => {
                return Err(RemoteError::NoFolder {
                    remote: self.name.clone(),
                    folder: folder.unwrap_or_default().to_string(),
                })
            }
            reply => reply?,
        };
        serde_json::from_value(self.json(reply)?).map_err(|e| self.bad_reply(&e.to_string()))
    }

    /// A document's PDF.
    pub fn pdf(&self, document: &str) -> Result<Vec<u8>, RemoteError> {
        let url = self.at(&format!("documents/{document}/pdf"));
        let reply = self.send(self.client.get(url))?;
        let mut bytes = Vec::new();
        reply
            .take(MAX_PDF + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| self.unreachable(&root_cause(&e)))?;
        if bytes.len() as u64 > MAX_PDF {
            return Err(self.bad_reply("the PDF is larger than 512 MB"));
        }
        Ok(bytes)
    }

    fn at(&self, path: &str) -> String {
        format!("{}/{path}", self.url)
    }

    /// Sends a request with the token; a failed status becomes the error it says.
    fn send(&self, request: RequestBuilder) -> Result<Response, RemoteError> {
        let reply = request
            .bearer_auth(&self.token)
            .send()
            .map_err(|e| self.unreachable(&root_cause(&e)))?;
        let status = reply.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(reply);
        }
        let mut said = Vec::new();
        let _ = reply.take(64 << 10).read_to_end(&mut said);
        Err(match status {
            401 | 403 => RemoteError::Unauthorized {
                remote: self.name.clone(),
            },
            _ => RemoteError::Refused {
                remote: self.name.clone(),
                status,
                message: error_message(&String::from_utf8_lossy(&said)),
            },
        })
    }

    fn json(&self, reply: Response) -> Result<serde_json::Value, RemoteError> {
        read_json(reply).map_err(|reason| self.bad_reply(&reason))
    }

    fn unreachable(&self, reason: &str) -> RemoteError {
        RemoteError::Unreachable {
            remote: self.name.clone(),
            url: self.url.clone(),
            reason: reason.into(),
        }
    }

    fn bad_reply(&self, reason: &str) -> RemoteError {
        RemoteError::BadReply {
            remote: self.name.clone(),
            url: self.url.clone(),
            reason: reason.into(),
        }
    }
}
