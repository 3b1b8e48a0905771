//! Chat models behind a server: Ollama's `/api/chat` (newline-delimited JSON) and the
//! OpenAI-compatible `/v1/chat/completions` (server-sent events), both streamed.
//!
//! The reply is read on a thread of its own and handed over piece by piece, so that a cancel is
//! honoured at once even while the server is silent; the reading thread ends with the connection.

use std::io::BufReader;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use reqwest::blocking::Response;
use serde::Deserialize;
use serde_json::json;

use crate::model_server::{error_message, read_line, Endpoint, ServerApi, ServerError};

use super::tools::{self, Tool, ToolCall, Turn};
use super::{
    estimate_tokens, window, Cancel, Finish, GenerateOptions, LanguageModel, LlmError, Message, DEFAULT_SERVER_CONTEXT,
};

/// The most text one answer may stream (a long answer is a few kilobytes).
const MAX_ANSWER: usize = 4 << 20;

/// How often a waiting generation looks at its cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(10);

/// A model served over HTTP.
#[derive(Debug, Clone)]
pub struct HttpChat {
    endpoint: Endpoint,
    context: usize,
    /// The window the server reported for the model, if it did.
    reported: Option<usize>,
    /// Whether the user set the window (`LECTERN_LLM_CONTEXT`).
    set: bool,
}

/// What the reading thread hands over.
enum Event {
    Text(String),
    /// A piece of a tool call: its name when first sent, and more of its arguments' JSON.
    Call {
        name: Option<String>,
        arguments: String,
    },
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
        Ok(HttpChat {
            endpoint: Endpoint::new(api, url, model, api_key, None)?,
            context,
            reported: None,
            set: false,
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
        chat.reported = window::reported(&chat.endpoint, base_url);
        chat.set = setting.is_some();
        chat.context = match (api, setting, chat.reported) {
            (ServerApi::Ollama, _, Some(allowed)) => chat.context.min(allowed),
            (ServerApi::OpenAi, Some(set), Some(reported)) => set.min(reported),
            (ServerApi::OpenAi, None, Some(reported)) => reported,
            (_, _, None) => chat.context,
        };
        Ok(chat)
    }

    fn body(&self, messages: &[Message], options: &GenerateOptions, tool: Option<&Tool>) -> serde_json::Value {
        let mut body = match self.endpoint.api() {
            ServerApi::Ollama => json!({
                "model": self.endpoint.model(),
                "messages": messages,
                "stream": true,
                "options": {
                    "temperature": options.temperature,
                    "num_predict": options.max_tokens,
                    "num_ctx": self.context,
                },
            }),
            ServerApi::OpenAi => json!({
                "model": self.endpoint.model(),
                "messages": messages,
                "stream": true,
                "temperature": options.temperature,
                "max_tokens": options.max_tokens,
            }),
        };
        if let Some(tool) = tool {
            body["tools"] = json!([tool.as_request()]);
        }
        body
    }

    /// Sends the request and checks the status; the body is left to stream. A prompt the server
    /// says is too long names the window Lectern planned for.
    fn open(&self, messages: &[Message], options: &GenerateOptions, tool: Option<&Tool>) -> Result<Response, LlmError> {
        self.endpoint
            .post(&self.body(messages, options, tool))
            .map_err(|e| match e {
                ServerError::Refused {
                    server,
                    url,
                    status: 400 | 413,
                    message,
                } if says_too_long(&message) => LlmError::ServerContextFull {
                    server,
                    url,
                    window: self.context,
                    message,
                },
                e => e.into(),
            })
    }

    /// Reads the streamed reply, sending its pieces to `events` until it ends or nobody listens.
    /// A line too long, or an answer that goes on past [`MAX_ANSWER`], ends it with an error.
    fn read(&self, reply: Response, events: &mpsc::Sender<Event>) {
        let mut reader = BufReader::new(reply);
        let mut answered = 0usize;
        while let Some(line) = read_line(&mut reader) {
            let line = match line {
                Ok(line) => line,
                Err(reason) => {
                    let _ = events.send(Event::Failed(self.endpoint.bad_reply(reason).into()));
                    return;
                }
            };
            let parsed = match self.endpoint.api() {
                ServerApi::Ollama => ollama_line(&line),
                ServerApi::OpenAi => openai_line(&line),
            };
            let event = match parsed {
                Ok(Some(Event::Text(text))) if answered + text.len() > MAX_ANSWER => Event::Failed(
                    self.endpoint
                        .bad_reply(format!(
                            "the answer went on past {} MB; the server does not stop",
                            MAX_ANSWER >> 20
                        ))
                        .into(),
                ),
                Ok(Some(event)) => event,
                Ok(None) => continue,
                Err(reason) => Event::Failed(self.endpoint.bad_reply(reason).into()),
            };
            if let Event::Text(text) = &event {
                answered += text.len();
            }
            let last = matches!(event, Event::Done(_) | Event::Failed(_));
            if events.send(event).is_err() || last {
                return;
            }
        }
        let _ = events.send(Event::Failed(self.endpoint.dropped().into()));
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
        let endpoint = &self.endpoint;
        format!(
            "{} model {} at {}, {window}",
            endpoint.api().name(),
            endpoint.model(),
            endpoint.url()
        )
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
        self.run(messages, options, None, cancel, on_text)
            .map(|(finish, _)| finish)
    }

    /// The tool goes in the request as the server's API lists tools; a server that refuses
    /// tools for this model (Ollama: "does not support tools") gets it in the prompt instead.
    fn generate_or_call(
        &self,
        messages: &[Message],
        tool: &Tool,
        options: &GenerateOptions,
        cancel: &Cancel,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Turn, LlmError> {
        match self.run(messages, options, Some(tool), cancel, on_text) {
            Ok((_, Some(call))) => Ok(Turn::Called(call)),
            Ok((finish, None)) => Ok(Turn::Answered(finish)),
            Err(LlmError::Server(ServerError::Refused {
                status: 400, message, ..
            })) if message.to_lowercase().contains("tool") => {
                tools::in_prompt(self, messages, tool, options, cancel, on_text)
            }
            Err(e) => Err(e),
        }
    }
}

impl HttpChat {
    /// One streamed request, with `tool` on offer if given: how it ended, and the call the
    /// model made instead of answering, if it did.
    fn run(
        &self,
        messages: &[Message],
        options: &GenerateOptions,
        tool: Option<&Tool>,
        cancel: &Cancel,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<(Finish, Option<ToolCall>), LlmError> {
        let (sender, events) = mpsc::channel();
        let reader = self.clone();
        let (messages, options, tool) = (messages.to_vec(), *options, tool.cloned());
        std::thread::spawn(move || match reader.open(&messages, &options, tool.as_ref()) {
            Ok(reply) => reader.read(reply, &sender),
            Err(e) => {
                let _ = sender.send(Event::Failed(e));
            }
        });
        let mut call: Option<(String, String)> = None;
        loop {
            if cancel.is_cancelled() {
                return Ok((Finish::Cancelled, None));
            }
            match events.recv_timeout(CANCEL_POLL) {
                Ok(Event::Text(text)) => on_text(&text),
                Ok(Event::Call { name, arguments }) => {
                    let (called, so_far) = call.get_or_insert_with(Default::default);
                    if let Some(name) = name.filter(|n| !n.is_empty()) {
                        *called = name;
                    }
                    so_far.push_str(&arguments);
                }
                Ok(Event::Done(finish)) => return Ok((finish, call.map(to_call))),
                Ok(Event::Failed(e)) => return Err(e),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(self.endpoint.dropped().into()),
            }
        }
    }
}

/// A call from its name and its arguments' JSON (empty or unreadable: no arguments).
fn to_call((name, arguments): (String, String)) -> ToolCall {
    let arguments = serde_json::from_str(&arguments).unwrap_or_else(|_| json!({}));
    ToolCall { name, arguments }
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
    #[serde(default)]
    tool_calls: Vec<CallPiece>,
}

/// A tool call, or a piece of one, in either API's stream.
#[derive(Deserialize)]
struct CallPiece {
    #[serde(default)]
    function: Option<FunctionPiece>,
}

#[derive(Deserialize)]
struct FunctionPiece {
    #[serde(default)]
    name: Option<String>,
    /// OpenAI's: a piece of the JSON text; Ollama's: the whole object.
    #[serde(default)]
    arguments: Option<serde_json::Value>,
}

impl CallPiece {
    fn into_event(self) -> Option<Event> {
        let function = self.function?;
        let arguments = match function.arguments {
            Some(serde_json::Value::String(text)) => text,
            Some(serde_json::Value::Null) | None => String::new(),
            Some(object) => object.to_string(),
        };
        Some(Event::Call {
            name: function.name,
            arguments,
        })
    }
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
    let Some(mut message) = parsed.message else {
        return Ok(None);
    };
    // Ollama sends a call whole, in one line; only the first of several is made.
    if !message.tool_calls.is_empty() {
        return Ok(message.tool_calls.swap_remove(0).into_event());
    }
    Ok((!message.content.is_empty()).then_some(Event::Text(message.content)))
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
    #[serde(default)]
    tool_calls: Vec<OpenAiCallPiece>,
}

#[derive(Deserialize)]
struct OpenAiCallPiece {
    /// Which call of the reply the piece belongs to; only the first is made.
    #[serde(default)]
    index: usize,
    #[serde(flatten)]
    piece: CallPiece,
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
    if let Some(delta) = choice.delta {
        if let Some(first) = delta.tool_calls.into_iter().find(|c| c.index == 0) {
            return Ok(first.piece.into_event());
        }
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            return Ok(Some(Event::Text(text)));
        }
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
