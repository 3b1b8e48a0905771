//! The one HTTP client of a model server's endpoint, shared by the embedder and the chat client:
//! the request with its key, and a failed status turned into a [`ServerError`]. Nothing a server
//! sends is read without a bound: an error body, a whole JSON reply, a line of a stream.

use std::io::{BufRead, Read};
use std::time::Duration;

use reqwest::blocking::{Client, Response};
use serde_json::Value;

use super::{ServerApi, ServerError};

/// The most of an error reply that is read: its message is at the start.
const MAX_ERROR_BODY: u64 = 64 << 10;

/// The most a whole JSON reply may hold (a batch of embeddings is well under a megabyte).
const MAX_JSON_REPLY: u64 = 64 << 20;

/// The most one line of a streamed reply may hold.
pub const MAX_LINE: u64 = 1 << 20;

/// Reads a whole reply as JSON, refusing one larger than [`MAX_JSON_REPLY`].
pub fn read_json(reply: impl Read) -> Result<Value, String> {
    let mut body = Vec::new();
    reply
        .take(MAX_JSON_REPLY + 1)
        .read_to_end(&mut body)
        .map_err(|e| root_cause(&e))?;
    if body.len() as u64 > MAX_JSON_REPLY {
        return Err(format!("the reply is larger than {} MB", MAX_JSON_REPLY >> 20));
    }
    serde_json::from_slice(&body).map_err(|e| e.to_string())
}

/// The next line of a streamed reply without its line ending: `None` at the end (or when the
/// connection fails), `Err` for a line longer than [`MAX_LINE`].
pub fn read_line(reader: &mut impl BufRead) -> Option<Result<String, String>> {
    let mut line = Vec::new();
    match reader.take(MAX_LINE + 1).read_until(b'\n', &mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) if line.len() as u64 > MAX_LINE => {
            Some(Err(format!("a line of the reply is longer than {} MB", MAX_LINE >> 20)))
        }
        Ok(_) => {
            while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                line.pop();
            }
            Some(Ok(String::from_utf8_lossy(&line).into_owned()))
        }
    }
}

/// One endpoint of a model server, for one model.
#[derive(Debug, Clone)]
pub struct Endpoint {
    api: ServerApi,
    url: String,
    model: String,
    api_key: Option<String>,
    client: Client,
}

impl Endpoint {
    /// The endpoint `url` of a server speaking `api`, for `model`. `timeout` bounds a whole
    /// request; `None` sets no bound (a streamed answer from a slow server may take minutes, and
    /// the user can stop it), rather than the HTTP client's default of 30 seconds. Connecting may
    /// take 5 seconds at most.
    pub fn new(
        api: ServerApi,
        url: String,
        model: &str,
        api_key: Option<String>,
        timeout: Option<Duration>,
    ) -> Result<Endpoint, ServerError> {
        if api_key.is_some() && !private_channel(&url) {
            return Err(ServerError::KeyInClear { url });
        }
        let client = Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(timeout)
            .build()
            .map_err(|e| ServerError::Unreachable {
                server: api.name(),
                url: url.clone(),
                reason: root_cause(&e),
            })?;
        Ok(Endpoint {
            api,
            url,
            model: model.to_string(),
            api_key,
            client,
        })
    }

    pub fn api(&self) -> ServerApi {
        self.api
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn api_key(&self) -> Option<&str> {
        self.api_key.as_deref()
    }

    /// The HTTP client, for the best-effort requests around the endpoint (a model's window).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Posts `body` as JSON; a success's body is left to read (or stream).
    pub fn post(&self, body: &Value) -> Result<Response, ServerError> {
        let mut request = self.client.post(&self.url).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let reply = request.send().map_err(|e| ServerError::Unreachable {
            server: self.api.name(),
            url: self.url.clone(),
            reason: root_cause(&e),
        })?;
        let status = reply.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(reply);
        }
        let mut said = Vec::new();
        let _ = reply.take(MAX_ERROR_BODY).read_to_end(&mut said);
        Err(self.refusal(status, &String::from_utf8_lossy(&said)))
    }

    /// Posts `body` and reads the whole reply as JSON.
    pub fn post_json(&self, body: &Value) -> Result<Value, ServerError> {
        read_json(self.post(body)?).map_err(|reason| self.bad_reply(reason))
    }

    /// A reply that does not say what the API says it should.
    pub fn bad_reply(&self, reason: String) -> ServerError {
        ServerError::BadReply {
            server: self.api.name(),
            url: self.url.clone(),
            reason,
        }
    }

    /// The reply ended before its end.
    pub fn dropped(&self) -> ServerError {
        ServerError::Dropped {
            server: self.api.name(),
            url: self.url.clone(),
        }
    }

    /// What a failed status says: a key refused, a model the server does not have (Ollama says so
    /// with a 404; others name the model in the message), or the server's own message.
    fn refusal(&self, status: u16, body: &str) -> ServerError {
        let server = self.api.name();
        let url = self.url.clone();
        let message = error_message(body);
        match status {
            401 | 403 => ServerError::Unauthorized { server, url },
            404 if self.api == ServerApi::Ollama || message.contains("model") => ServerError::UnknownModel {
                server,
                url,
                model: self.model.clone(),
                remedy: match self.api {
                    ServerApi::Ollama => ": install it with `ollama pull` followed by its name",
                    ServerApi::OpenAi => ": check the model name",
                },
            },
            _ => ServerError::Refused {
                server,
                url,
                status,
                message,
            },
        }
    }
}

/// Whether what is sent to `url` stays between this machine and the server: https, or plain http
/// to this machine (an address of its own, or `localhost`).
fn private_channel(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    let local = |host: &str| {
        host.eq_ignore_ascii_case("localhost")
            || host
                .trim_matches(['[', ']'])
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    };
    match url.scheme() {
        "https" => true,
        "http" => url.host_str().is_some_and(local),
        _ => false,
    }
}

/// The message of an error body: `{"error": "..."}` (Ollama), `{"error": {"message": "..."}}`
/// (OpenAI), or the body itself, shortened.
pub fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    match error {
        Some(Value::String(s)) => s.clone(),
        Some(e) => e
            .get("message")
            .and_then(|m| m.as_str())
            .map_or_else(|| e.to_string(), str::to_string),
        None => body.chars().take(300).collect(),
    }
}

/// The innermost cause of a request error: "connection refused" rather than "error sending
/// request".
pub fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_goes_over_https_or_to_this_machine_only() {
        let endpoint =
            |url: &str, key: Option<&str>| Endpoint::new(ServerApi::OpenAi, url.into(), "m", key.map(Into::into), None);
        for url in [
            "https://api.example.com/v1/chat/completions",
            "http://127.0.0.1:8080/v1/chat/completions",
            "http://localhost:11434/api/chat",
            "http://[::1]:8080/v1/chat/completions",
        ] {
            assert!(endpoint(url, Some("sk-x")).is_ok(), "{url}");
        }
        for url in [
            "http://192.168.1.20:8080/v1/chat/completions",
            "http://llm.example.com/v1/embeddings",
        ] {
            let e = endpoint(url, Some("sk-x")).unwrap_err();
            assert!(matches!(e, ServerError::KeyInClear { .. }), "{url}: {e}");
            assert!(endpoint(url, None).is_ok(), "no key, nothing to keep private: {url}");
        }
    }
}
