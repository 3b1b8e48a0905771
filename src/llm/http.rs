//! Chat models behind a server: Ollama's `/api/chat` (newline-delimited JSON) and the
//! OpenAI-compatible `/v1/chat/completions` (server-sent events), both streamed.
//!
//! The reply is read on a thread of its own and handed over piece by piece, so that a cancel is
//! honoured at once even while the server is silent; the reading thread ends with the connection.

use std::io::{BufRead, BufReader};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use reqwest::blocking::{Client, Response};
use serde::Deserialize;
use serde_json::json;

use crate::server::ServerApi;

use super::{
    estimate_tokens, window, Cancel, Finish, GenerateOptions, LanguageModel, LlmError, Message, DEFAULT_SERVER_CONTEXT,
};

/// How often a waiting generation looks at its cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(10);

/// A model served over HTTP.
#[derive(Debug, Clone)]
pub struct HttpChat {
    api: ServerApi,
    url: String,
    model: String,
    api_key: Option<String>,
    context: usize,
    /// The window the server reported for the model, if it did.
    reported: Option<usize>,
    /// Whether the user set the window (`LECTERN_LLM_CONTEXT`).
    set: bool,
    client: Client,
}

/// What the reading thread hands over.
enum Event {
    Text(String),
    Done(Finish),
    Failed(LlmError),
}

impl HttpChat {
    /// A client for `model` at `base_url`; `context` is the context window to plan prompts for.
    pub fn new(
        api: ServerApi,
        base_url: &str,
        model: &str,
        api_key: Option<String>,
        context: usize,
    ) -> Result<HttpChat, LlmError> {
        let url = api.endpoint(base_url, "chat", "chat/completions");
        let client = Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| LlmError::Unreachable {
                backend: api.name(),
                url: url.clone(),
                reason: e.to_string(),
            })?;
        Ok(HttpChat {
            api,
            url,
            model: model.to_string(),
            api_key,
            context,
            reported: None,
            set: false,
            client,
        })
    }

    /// A client for `model` at `base_url` that plans prompts for the window the model really has:
    /// Ollama's is `setting` (else [`DEFAULT_SERVER_CONTEXT`], sent as `num_ctx`) capped by what
    /// the model allows; an OpenAI-compatible server's is what it reports, capped by `setting`;
    /// without a report, `setting` or the default.
    pub fn connect(
        api: ServerApi,
        base_url: &str,
        model: &str,
        api_key: Option<String>,
        setting: Option<usize>,
    ) -> Result<HttpChat, LlmError> {
        let mut chat = HttpChat::new(api, base_url, model, api_key, setting.unwrap_or(DEFAULT_SERVER_CONTEXT))?;
        chat.reported = window::reported(&chat.client, api, base_url, model, chat.api_key.as_deref());
        chat.set = setting.is_some();
        chat.context = match (api, setting, chat.reported) {
            (ServerApi::Ollama, _, Some(allowed)) => chat.context.min(allowed),
            (ServerApi::OpenAi, Some(set), Some(reported)) => set.min(reported),
            (ServerApi::OpenAi, None, Some(reported)) => reported,
            (_, _, None) => chat.context,
        };
        Ok(chat)
    }

    fn body(&self, messages: &[Message], options: &GenerateOptions) -> serde_json::Value {
        match self.api {
            ServerApi::Ollama => json!({
                "model": self.model,
                "messages": messages,
                "stream": true,
                "options": {
                    "temperature": options.temperature,
                    "num_predict": options.max_tokens,
                    "num_ctx": self.context,
                },
            }),
            ServerApi::OpenAi => json!({
                "model": self.model,
                "messages": messages,
                "stream": true,
                "temperature": options.temperature,
                "max_tokens": options.max_tokens,
            }),
        }
    }

    /// Sends the request and checks the status; the body is left to stream.
    fn open(&self, messages: &[Message], options: &GenerateOptions) -> Result<Response, LlmError> {
        let backend = self.api.name();
        let mut request = self.client.post(&self.url).json(&self.body(messages, options));
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let reply = request.send().map_err(|e| LlmError::Unreachable {
            backend,
            url: self.url.clone(),
            reason: root_cause(&e),
        })?;
        let status = reply.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(reply);
        }
        let message = error_message(&reply.text().unwrap_or_default());
        let url = self.url.clone();
        Err(match status {
            401 | 403 => LlmError::Unauthorized { backend, url },
            404 if self.api == ServerApi::Ollama || message.contains("model") => LlmError::UnknownModel {
                backend,
                url,
                model: self.model.clone(),
                hint: match self.api {
                    ServerApi::Ollama => ": install it with `ollama pull` followed by its name",
                    ServerApi::OpenAi => ": check the model name in the settings",
                },
            },
            400 | 413 if says_too_long(&message) => LlmError::ServerContextFull {
                backend,
                url,
                window: self.context,
                message,
            },
            _ => LlmError::Server {
                backend,
                url,
                status,
                message,
            },
        })
    }

    /// Reads the streamed reply, sending its pieces to `events` until it ends or nobody listens.
    fn read(&self, reply: Response, events: &mpsc::Sender<Event>) {
        let backend = self.api.name();
        let bad = |reason: String| LlmError::BadReply {
            backend,
            url: self.url.clone(),
            reason,
        };
        for line in BufReader::new(reply).lines() {
            let line = match line {
                Ok(line) => line,
                Err(_) => break,
            };
            let parsed = match self.api {
                ServerApi::Ollama => ollama_line(&line),
                ServerApi::OpenAi => openai_line(&line),
            };
            let event = match parsed {
                Ok(Some(event)) => event,
                Ok(None) => continue,
                Err(reason) => Event::Failed(bad(reason)),
            };
            let last = !matches!(event, Event::Text(_));
            if events.send(event).is_err() || last {
                return;
            }
        }
        let _ = events.send(Event::Failed(LlmError::Dropped {
            backend,
            url: self.url.clone(),
        }));
    }
}

impl LanguageModel for HttpChat {
    fn describe(&self) -> String {
        let window = match self.reported {
            Some(reported) if reported > self.context => {
                format!("a context of {} tokens (the model allows {reported})", self.context)
            }
            Some(_) => format!("a context of {} tokens, as the server reports", self.context),
            None => format!(
                "a context of {} tokens (assumed: the server does not say)",
                self.context
            ),
        };
        format!("{} model {} at {}, {window}", self.api.name(), self.model, self.url)
    }

    fn context_window(&self) -> usize {
        self.context
    }

    fn count_tokens(&self, text: &str) -> usize {
        estimate_tokens(text)
    }

    fn generate(
        &self,
        messages: &[Message],
        options: &GenerateOptions,
        cancel: &Cancel,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Finish, LlmError> {
        let (sender, events) = mpsc::channel();
        let reader = self.clone();
        let (messages, options) = (messages.to_vec(), *options);
        std::thread::spawn(move || match reader.open(&messages, &options) {
            Ok(reply) => reader.read(reply, &sender),
            Err(e) => {
                let _ = sender.send(Event::Failed(e));
            }
        });
        loop {
            if cancel.is_cancelled() {
                return Ok(Finish::Cancelled);
            }
            match events.recv_timeout(CANCEL_POLL) {
                Ok(Event::Text(text)) => on_text(&text),
                Ok(Event::Done(finish)) => return Ok(finish),
                Ok(Event::Failed(e)) => return Err(e),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(LlmError::Dropped {
                        backend: self.api.name(),
                        url: self.url.clone(),
                    })
                }
            }
        }
    }
}

#[derive(Deserialize)]
struct OllamaLine {
    #[serde(default)]
    message: Option<OllamaMessage>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    done_reason: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
struct OllamaMessage {
    #[serde(default)]
    content: String,
}

/// One line of Ollama's stream.
fn ollama_line(line: &str) -> Result<Option<Event>, String> {
    if line.trim().is_empty() {
        return Ok(None);
    }
    let parsed: OllamaLine = serde_json::from_str(line).map_err(|e| format!("{e} in {line:.200}"))?;
    if let Some(error) = parsed.error {
        return Err(error);
    }
    if parsed.done {
        let finish = match parsed.done_reason.as_deref() {
            Some("length") => Finish::Length,
            _ => Finish::Stop,
        };
        return Ok(Some(Event::Done(finish)));
    }
    Ok(parsed
        .message
        .filter(|m| !m.content.is_empty())
        .map(|m| Event::Text(m.content)))
}

#[derive(Deserialize)]
struct OpenAiChunk {
    #[serde(default)]
    choices: Vec<OpenAiChoice>,
}

#[derive(Deserialize)]
struct OpenAiChoice {
    #[serde(default)]
    delta: Option<OpenAiDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct OpenAiDelta {
    #[serde(default)]
    content: Option<String>,
}

/// One line of an OpenAI-compatible event stream: `data: {json}`, `data: [DONE]`, or another
/// SSE field (comments, event names, blank separators) that carries nothing for us.
fn openai_line(line: &str) -> Result<Option<Event>, String> {
    let Some(data) = line.strip_prefix("data:") else {
        return Ok(None);
    };
    let data = data.trim();
    if data == "[DONE]" {
        return Ok(Some(Event::Done(Finish::Stop)));
    }
    let value: serde_json::Value = serde_json::from_str(data).map_err(|e| format!("{e} in {data:.200}"))?;
    if value.get("error").is_some() {
        return Err(error_message(data));
    }
    let chunk: OpenAiChunk = serde_json::from_value(value).map_err(|e| e.to_string())?;
    let Some(choice) = chunk.choices.into_iter().next() else {
        return Ok(None);
    };
    if let Some(text) = choice.delta.and_then(|d| d.content).filter(|t| !t.is_empty()) {
        return Ok(Some(Event::Text(text)));
    }
    Ok(match choice.finish_reason.as_deref() {
        Some("length") => Some(Event::Done(Finish::Length)),
        // "stop" is followed by `[DONE]`, which ends the stream.
        _ => None,
    })
}

/// Whether a server's error message says the prompt is longer than the model's window (OpenAI
/// and vLLM: "maximum context length"; llama.cpp: "exceeds the available context size").
fn says_too_long(message: &str) -> bool {
    let lower = message.to_lowercase();
    ["context length", "context size", "context window", "too many tokens"]
        .iter()
        .any(|phrase| lower.contains(phrase))
}

/// The message of an error body: `{"error": "..."}` (Ollama), `{"error": {"message": "..."}}`
/// (OpenAI), or the body itself, shortened.
fn error_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    match error {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(e) => e
            .get("message")
            .and_then(|m| m.as_str())
            .map_or_else(|| e.to_string(), str::to_string),
        None => body.chars().take(300).collect(),
    }
}

/// The innermost cause of a request error: "connection refused" rather than "error sending
/// request".
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}
