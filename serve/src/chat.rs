//! `POST /v1/chat/completions` on the OpenAI API's wire format, streamed (server-sent events) or
//! not. The model names the scope; the last message is the question and the ones before it the
//! conversation, read as a Lectern chat's; the answer comes from the backend the user chose, its
//! footnotes in the content and its citations (document, page, character range, quote, score)
//! in an extra `citations` field of the reply or of the stream's last chunk, beside `retrieval`
//! (the strategy, and what was searched for: `lectern.strategy` in the request chooses when to
//! search). Nothing is kept:
//! the client keeps the conversation. A client that goes away stops its answer.

use std::convert::Infallible;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::error::Body;
use super::scope::{self, logged};
use super::{blocking, ApiError, Served};
use lectern::answer::{footnote_list, Answer, AnswerEvent};
use lectern::catalog::{now_millis, Citation, Strategy};
use lectern::llm::{Cancel, Finish, Message, Role};
use lectern::Error;
use lectern::{Access, Answered, AskChoices, Question};

/// A chat completion request; what Lectern does not use (temperature, tools, …) is ignored.
#[derive(Deserialize)]
pub struct ChatBody {
    model: String,
    messages: Vec<InMessage>,
    #[serde(default)]
    stream: bool,
    max_tokens: Option<usize>,
    max_completion_tokens: Option<usize>,
    n: Option<u32>,
    /// Lectern's own options (an OpenAI client sends them with `extra_body`).
    #[serde(default)]
    lectern: LecternOptions,
}

/// What a chat completion may say that OpenAI's API has no field for.
#[derive(Deserialize, Default)]
struct LecternOptions {
    /// When to search (the scope's folders' default without it).
    strategy: Option<Strategy>,
}

#[derive(Deserialize)]
struct InMessage {
    role: String,
    content: Option<Content>,
}

/// A message's content: text, or parts of which the text ones are read.
#[derive(Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Deserialize)]
struct Part {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
}

impl Content {
    fn text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter(|p| p.kind == "text")
                .filter_map(|p| p.text.as_deref())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// Stops an answer when dropped: when its request ends, finished or not (a client that hangs up
/// drops it before the answer is done).
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The question and the conversation before it. The client's system messages are not the
/// library's to follow: the answer keeps to its own instructions and to the passages.
fn question_of(messages: &[InMessage]) -> Result<(String, Vec<Message>), ApiError> {
    let mut turns: Vec<Message> = messages
        .iter()
        .filter_map(|m| {
            let role = match m.role.as_str() {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                _ => return None,
            };
            Some(Message::new(
                role,
                m.content.as_ref().map(Content::text).unwrap_or_default(),
            ))
        })
        .collect();
    match turns.pop() {
        Some(last) if last.role == Role::User && !last.content.trim().is_empty() => Ok((last.content, turns)),
        _ => Err(ApiError::invalid(
            "the last message must be the user's question, with text",
        )),
    }
}

/// Where an answer stands when its stream starts.
enum Outcome {
    Running(JoinHandle<Result<Answered, Error>>),
    Done(Box<Answered>),
}

impl Outcome {
    async fn get(self) -> Result<Answered, ApiError> {
        match self {
            Outcome::Done(answered) => Ok(*answered),
            Outcome::Running(answering) => Ok(answering.await.map_err(Error::stopped("answering"))??),
        }
    }
}

/// What a completion and each of its chunks name.
struct Reply {
    id: String,
    created: i64,
    model: String,
}

impl Reply {
    fn chunk(&self, delta: Value, finish: Option<&str>) -> Value {
        json!({
            "id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
            "system_fingerprint": null,
            "choices": [{ "index": 0, "delta": delta, "logprobs": null, "finish_reason": finish }],
        })
    }
}

/// The footnotes that follow an answer's text in its content, as a Lectern chat shows them.
fn footnotes(citations: &[Citation]) -> String {
    if citations.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", footnote_list(citations))
    }
}

fn finish_reason(finish: Finish) -> &'static str {
    match finish {
        Finish::Length => "length",
        Finish::Stop | Finish::Cancelled => "stop",
    }
}

/// `POST /v1/chat/completions`.
pub async fn completions(
    State(served): State<Served>,
    Extension(access): Extension<Access>,
    Body(body): Body<ChatBody>,
) -> Result<Response, ApiError> {
    if body.n.is_some_and(|n| n != 1) {
        return Err(ApiError::invalid("one choice is served (n = 1)"));
    }
    let (text, history) = question_of(&body.messages)?;
    let library = served.library.clone();
    let model = body.model.clone();
    let resolved = blocking(move || scope::resolve(&library, &access, &model)).await?;
    let question = Question {
        text,
        history,
        scope: resolved.scope,
    };
    let choices = AskChoices {
        max_tokens: body.max_completion_tokens.or(body.max_tokens),
        strategy: body.lectern.strategy,
        ..AskChoices::default()
    };
    let reply = Reply {
        id: format!("chatcmpl-{}", uuid::Uuid::new_v4().simple()),
        created: now_millis() / 1000,
        model: body.model,
    };
    let cancel = Cancel::new();
    if !body.stream {
        let _stop = CancelOnDrop(cancel.clone());
        let answered = served
            .library
            .answer_as_chosen(question, &choices, &cancel, None)
            .await?;
        let (answer, retrieval) = (answered.answer, answered.retrieval);
        let completion = json!({
            "id": reply.id, "object": "chat.completion", "created": reply.created, "model": reply.model,
            "system_fingerprint": null,
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": format!("{}{}", answer.body.trim_end(), footnotes(&answer.citations)),
                    "refusal": null,
                },
                "logprobs": null,
                "finish_reason": finish_reason(answer.finish),
            }],
            "citations": answer.citations,
            "retrieval": retrieval,
        });
        return Ok((logged(resolved.label), Json(completion)).into_response());
    }

    // From here the answer stops when the client hangs up, before its first word too.
    let stop = CancelOnDrop(cancel.clone());
    let (events, mut answer_events) = mpsc::unbounded_channel();
    let library = served.library.clone();
    let answering = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            library
                .answer_as_chosen(question, &choices, &cancel, Some(events))
                .await
        })
    };
    // An answer that fails before its first word (no model, nothing in scope, a server down)
    // is an error reply, not a stream.
    let first = answer_events.recv().await;
    let outcome = match first {
        Some(_) => Outcome::Running(answering),
        None => Outcome::Done(Box::new(Outcome::Running(answering).get().await?)),
    };
    let (out, mut sent) = mpsc::channel::<Event>(64);
    tokio::spawn(async move {
        let _stop = stop;
        let send = |value: Value| {
            let out = out.clone();
            async move { out.send(Event::default().data(value.to_string())).await.is_ok() }
        };
        if !send(reply.chunk(json!({ "role": "assistant", "content": "" }), None)).await {
            return;
        }
        // White space at the end of a piece is held back until text follows it, so that the
        // content ends as the whole reply's does, the footnotes straight after the text.
        let mut held = String::new();
        let mut next = first;
        while let Some(event) = next {
            if let AnswerEvent::Text { text } = event {
                held.push_str(&text);
                let kept = held.trim_end().len();
                if kept > 0 {
                    let piece: String = held.drain(..kept).collect();
                    if !send(reply.chunk(json!({ "content": piece }), None)).await {
                        return;
                    }
                }
            }
            next = tokio::select! {
                event = answer_events.recv() => event,
                () = out.closed() => return,
            };
        }
        match outcome.get().await {
            Ok(answered) => {
                let Answer { citations, finish, .. } = answered.answer;
                let retrieval = answered.retrieval;
                if !citations.is_empty() && !send(reply.chunk(json!({ "content": footnotes(&citations) }), None)).await
                {
                    return;
                }
                let mut last = reply.chunk(json!({}), Some(finish_reason(finish)));
                last["citations"] = json!(citations);
                last["retrieval"] = json!(retrieval);
                if !send(last).await {
                    return;
                }
            }
            Err(e) => {
                if !send(e.body()).await {
                    return;
                }
            }
        }
        let _ = out.send(Event::default().data("[DONE]")).await;
    });
    let stream = futures::stream::poll_fn(move |cx| sent.poll_recv(cx)).map(Ok::<_, Infallible>);
    Ok((
        logged(resolved.label),
        Sse::new(stream).keep_alive(KeepAlive::default()),
    )
        .into_response())
}
