//! Answers: the Ollama and OpenAI wire formats against a loopback server that streams the real
//! formats (errors and dropped connections included), cancellation, the built-in model over real
//! PDFs, the relevance floor, and chats kept across a restart.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use lectern::answer::{answer, AnswerEvent, AnswerKind, AnswerSettings, Stage};
use lectern::catalog::{DocumentId, FolderId, Scope};
use lectern::llm::{Backend, BuiltinModel, Cancel, GenerateOptions, HttpChat, LanguageModel, LlmError, Role};
use lectern::model_server::{ServerApi, ServerError};
use lectern::search::{Hit, ScoreComponents, SearchMode};
use lectern::{
    About, AskAt, AskChoices, AskRequest, AskedOf, BackendKind, Because, Error, ErrorCode, Hint, Library, Settings,
};

use crate::common::{config, index_small_corpus, library, models_dir, read_request, runtime};

/// What the test server does with one request: the status, and the body written in pieces with
/// a pause after each (`None` body pieces: close the connection at once after the headers).
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub pieces: Vec<String>,
    pub pause: Duration,
}

/// A server answering `replies` requests, one at a time; it hands each request's path, authorization
/// header and JSON body to `handler`.
pub fn serve(
    replies: usize,
    handler: impl Fn(&str, &str, &serde_json::Value) -> Reply + Send + 'static,
) -> (String, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        for stream in listener.incoming().take(replies) {
            let mut stream: TcpStream = stream.unwrap();
            let (path, auth, json) = read_request(&stream);
            let reply = handler(&path, &auth, &json);
            let head = format!(
                "HTTP/1.1 {} X\r\ncontent-type: {}\r\nconnection: close\r\n\r\n",
                reply.status, reply.content_type
            );
            if stream.write_all(head.as_bytes()).is_err() {
                continue;
            }
            for piece in &reply.pieces {
                if stream
                    .write_all(piece.as_bytes())
                    .and_then(|()| stream.flush())
                    .is_err()
                {
                    break;
                }
                std::thread::sleep(reply.pause);
            }
        }
    });
    (url, handle)
}

pub fn ollama_lines(pieces: &[&str], done: bool) -> Vec<String> {
    let mut lines: Vec<String> = pieces
        .iter()
        .map(|p| {
            serde_json::json!({"model": "m", "message": {"role": "assistant", "content": p}, "done": false}).to_string()
                + "\n"
        })
        .collect();
    if done {
        lines.push(serde_json::json!({"model": "m", "done": true, "done_reason": "stop"}).to_string() + "\n");
    }
    lines
}

pub fn sse_events(pieces: &[&str], done: bool) -> Vec<String> {
    let mut events: Vec<String> = pieces
        .iter()
        .map(|p| {
            let chunk = serde_json::json!({"id": "c", "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]});
            format!("data: {chunk}\n\n")
        })
        .collect();
    if done {
        let last = serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
        events.push(format!("data: {last}\n\ndata: [DONE]\n\n"));
    }
    events
}

fn hit(document: DocumentId, name: &str, page: u32, text: &str, cosine: f32) -> Hit {
    Hit {
        document,
        document_name: name.into(),
        folder: FolderId(1),
        folder_path: "Docs".into(),
        chunk_id: format!("{page:024}"),
        page,
        char_start: 10,
        char_end: 10 + text.chars().count() as u32,
        text: text.into(),
        score: cosine,
        components: ScoreComponents {
            vector: Some(cosine),
            ..ScoreComponents::default()
        },
        remote: None,
        context: String::new(),
    }
}

fn hits() -> Vec<Hit> {
    let doc = DocumentId::new_random();
    vec![
        hit(doc, "towers.pdf", 3, "The Eiffel Tower is 330 metres tall.", 0.8),
        hit(doc, "towers.pdf", 5, "It was finished in 1889.", 0.6),
    ]
}

/// The reply to the support check (Lectern asking whether the passages an answer cites state it)
/// in the wire format of `path`, `verdict` as its text; `None` when `body` is another request.
pub fn support_check(path: &str, body: &serde_json::Value, verdict: &str) -> Option<Reply> {
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    if !system.starts_with("You check whether") {
        return None;
    }
    let (content_type, pieces) = if path == "/api/chat" {
        ("application/x-ndjson", ollama_lines(&[verdict], true))
    } else {
        ("text/event-stream", sse_events(&[verdict], true))
    };
    Some(Reply {
        status: 200,
        content_type,
        pieces,
        pause: Duration::ZERO,
    })
}

/// The text an answer streamed, in order.
fn streamed_text(events: &[AnswerEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AnswerEvent::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The steps an answer said it began, in order, and where the first text came among the events.
fn stages(events: &[AnswerEvent]) -> (Vec<&Stage>, Option<usize>) {
    let stages = events
        .iter()
        .filter_map(|e| match e {
            AnswerEvent::Stage { stage, text } => {
                assert_eq!(text, &stage.to_string());
                Some(stage)
            }
            _ => None,
        })
        .collect();
    let first_text = events.iter().position(|e| matches!(e, AnswerEvent::Text { .. }));
    (stages, first_text)
}

/// Runs `answer` with `model` over [`hits`], collecting the streamed events.
fn ask_model(model: &dyn LanguageModel) -> (Result<lectern::answer::Answer, LlmError>, Vec<AnswerEvent>) {
    let mut events = Vec::new();
    let result = answer(
        Some(model),
        "How tall is the Eiffel Tower?",
        &[],
        &hits(),
        &AnswerSettings::default(),
        &Cancel::new(),
        &mut |e| events.push(e),
    );
    (result, events)
}

#[test]
fn ollama_wire_format_streams_and_citations_resolve_across_pieces() {
    let (url, server) = serve(2, |path, _, body| {
        assert_eq!(path, "/api/chat");
        assert_eq!(body["model"], "llama3.2");
        if let Some(reply) = support_check(path, body, "Yes") {
            return reply;
        }
        assert_eq!(body["stream"], true);
        assert_eq!(body["messages"][0]["role"], "system");
        let question = body["messages"].as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap();
        assert!(question.contains("[1] towers.pdf, page 3:\nThe Eiffel Tower is 330 metres tall."));
        assert!(question
            .trim_end()
            .ends_with("Answer directly, citing the excerpt numbers."));
        Reply {
            status: 200,
            content_type: "application/x-ndjson",
            pieces: ollama_lines(
                &["It is 330 metres tall [", "1][", "7] and was finished in 1889 [2", "]."],
                true,
            ),
            pause: Duration::from_millis(5),
        }
    });
    let model = HttpChat::new(ServerApi::Ollama, &url, "llama3.2", None, 4096).unwrap();
    let (result, events) = ask_model(&model);
    server.join().unwrap();
    let answer = result.unwrap();
    assert_eq!(answer.kind, AnswerKind::Generated);
    assert_eq!(answer.body, "It is 330 metres tall [^1] and was finished in 1889 [^2].");
    assert_eq!(answer.citations.len(), 2);
    assert_eq!((answer.citations[0].page, answer.citations[1].page), (3, 5));
    assert_eq!(answer.citations[0].quote, "The Eiffel Tower is 330 metres tall.");
    assert!(answer
        .markdown()
        .ends_with("[^2]: towers.pdf, page 5: \"It was finished in 1889.\""));
    let streamed: Vec<&AnswerEvent> = events
        .iter()
        .filter(|e| matches!(e, AnswerEvent::Text { .. }))
        .collect();
    assert!(streamed.len() >= 3, "the answer arrives in pieces: {events:?}");
    let first_citation = events
        .iter()
        .position(|e| matches!(e, AnswerEvent::Citation { .. }))
        .unwrap();
    assert!(
        first_citation < events.len() - 1,
        "footnotes resolve while the answer streams"
    );
}

#[test]
fn openai_wire_format_streams_server_sent_events_with_the_key() {
    let (url, server) = serve(2, |path, auth, body| {
        assert_eq!(path, "/v1/chat/completions");
        assert_eq!(auth, "Bearer sk-test");
        assert_eq!(body["stream"], true);
        if let Some(reply) = support_check(path, body, "Yes") {
            return reply;
        }
        Reply {
            status: 200,
            content_type: "text/event-stream",
            pieces: {
                let mut p = vec![": keep-alive\n\n".to_string()];
                p.extend(sse_events(&["330 metres", " [^1]."], true));
                p
            },
            pause: Duration::from_millis(5),
        }
    });
    let model = HttpChat::new(
        ServerApi::OpenAi,
        &format!("{url}/v1"),
        "gpt-x",
        Some("sk-test".into()),
        8192,
    )
    .unwrap();
    let (result, _) = ask_model(&model);
    server.join().unwrap();
    let answer = result.unwrap();
    assert_eq!(answer.body, "330 metres [^1].");
    assert_eq!(answer.citations[0].page, 3);
}

#[test]
fn a_servers_own_window_is_the_one_prompts_are_planned_for() {
    // Ollama says what the model allows; Lectern asks for no more than that as `num_ctx`.
    let (url, server) = serve(2, |path, _, body| match path {
        "/api/show" => {
            assert_eq!(body["model"], "tiny");
            Reply {
                status: 200,
                content_type: "application/json",
                pieces: vec![r#"{"model_info":{"general.architecture":"qwen2","qwen2.context_length":2048}}"#.into()],
                pause: Duration::ZERO,
            }
        }
        _ => {
            assert_eq!(body["options"]["num_ctx"], 2048);
            Reply {
                status: 200,
                content_type: "application/x-ndjson",
                pieces: ollama_lines(&["330 metres [1]."], true),
                pause: Duration::ZERO,
            }
        }
    });
    let ollama = HttpChat::connect(ServerApi::Ollama, &url, "tiny", None, None).unwrap();
    assert_eq!(ollama.context_window(), 2048);
    assert!(
        ollama.describe().contains("2048 tokens, as the server reports"),
        "{}",
        ollama.describe()
    );
    assert_eq!(ask_model(&ollama).0.unwrap().body, "330 metres [^1].");
    server.join().unwrap();

    // An OpenAI-compatible server's reported window counts, within the user's setting; one that
    // says nothing leaves the setting; and a prompt it refuses as too long is said so.
    let (url, server) = serve(3, |path, _, _| {
        match path {
        "/v1/models" => Reply {
            status: 200,
            content_type: "application/json",
            pieces: vec![r#"{"object":"list","data":[{"id":"served","object":"model","max_model_len":8192}]}"#.into()],
            pause: Duration::ZERO,
        },
        "/v1/chat/completions" => Reply {
            status: 400,
            content_type: "application/json",
            pieces: vec![r#"{"error":{"message":"This model's maximum context length is 2048 tokens.","type":"invalid_request_error"}}"#.into()],
            pause: Duration::ZERO,
        },
        _ => Reply {
            status: 404,
            content_type: "text/plain",
            pieces: vec!["no such page".into()],
            pause: Duration::ZERO,
        },
    }
    });
    let served = HttpChat::connect(ServerApi::OpenAi, &url, "served", None, None).unwrap();
    assert_eq!(served.context_window(), 8192);
    let capped = HttpChat::connect(ServerApi::OpenAi, &format!("{url}/v1"), "served", None, Some(6000)).unwrap();
    assert_eq!(capped.context_window(), 6000);
    let err = ask_model(&capped).0.unwrap_err();
    assert!(matches!(err, LlmError::ServerContextFull { window: 6000, .. }), "{err}");
    assert!(err.to_string().contains("LECTERN_LLM_CONTEXT"), "{err}");
    server.join().unwrap();
}

#[test]
fn a_model_that_finds_nothing_still_shows_the_passages_it_read() {
    let (url, server) = serve(1, |_, _, _| Reply {
        status: 200,
        content_type: "application/x-ndjson",
        pieces: ollama_lines(&["The documents ", "do not say."], true),
        pause: Duration::ZERO,
    });
    let model = HttpChat::new(ServerApi::Ollama, &url, "m", None, 4096).unwrap();
    let (result, events) = ask_model(&model);
    server.join().unwrap();
    let answer = result.unwrap();
    assert_eq!(answer.kind, AnswerKind::Generated);
    assert!(answer
        .body
        .starts_with("The documents do not say.\n\nThe passages that came nearest:"));
    let pages: Vec<u32> = answer.citations.iter().map(|c| c.page).collect();
    assert_eq!(pages, [3, 5], "{answer:#?}");
    assert!(
        answer.body.contains("**The Eiffel Tower is 330 metres tall.** [^1]"),
        "{}",
        answer.body
    );
    let streamed = streamed_text(&events);
    assert_eq!(streamed.trim(), answer.body, "what streamed is what is stored");
}

#[test]
fn an_answer_that_points_at_a_passage_without_naming_anything_shows_the_passage() {
    // "The Eiffel Tower is [1] towers.pdf, page 3.": the blank filled with a footnote and the
    // passage's label copied from the prompt.
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let (url, server) = serve(3, move |path, _, body| {
        if let Some(reply) = support_check(path, body, "Yes") {
            return reply;
        }
        Reply {
            status: 200,
            content_type: "application/x-ndjson",
            pieces: ollama_lines(
                if calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                    &["The Eiffel Tower is [1] ", "towers.pdf, page 3."]
                } else {
                    &["The Eiffel Tower is 330 metres tall [1]."]
                },
                true,
            ),
            pause: Duration::ZERO,
        }
    });
    let model = HttpChat::new(ServerApi::Ollama, &url, "m", None, 4096).unwrap();
    let (result, events) = ask_model(&model);
    let answer = result.unwrap();
    assert!(
        answer.body.contains(
            "The answer names nothing; the passages it cites:\n\n> **The Eiffel Tower is 330 metres tall.** [^1]"
        ),
        "{}",
        answer.body
    );
    assert_eq!(answer.citations.len(), 1);
    assert_eq!(
        streamed_text(&events).trim(),
        answer.body,
        "what streamed is what is stored"
    );

    // An answer that names what the passage holds is left as it is.
    let (result, _) = ask_model(&model);
    server.join().unwrap();
    let answer = result.unwrap();
    assert_eq!(answer.body, "The Eiffel Tower is 330 metres tall [^1].");
}

/// An answer is checked against the passages it cites; one they do not state becomes a decline
/// that keeps the model's reading and quotes the passages, and a check that fails changes nothing.
#[test]
fn an_answer_its_cited_passages_do_not_state_is_given_as_a_decline() {
    for verdict in ["No.", "Yes", "Perhaps"] {
        let (url, server) = serve(2, move |path, _, body| {
            if let Some(reply) = support_check(path, body, verdict) {
                let check = body["messages"][1]["content"].as_str().unwrap();
                assert!(
                    check.contains("[1] towers.pdf, page 5:\nIt was finished in 1889."),
                    "{check}"
                );
                assert!(!check.contains("330 metres"), "only the cited passage: {check}");
                assert!(check.contains("Question: How tall is the Eiffel Tower?"), "{check}");
                assert!(check.contains("Proposed answer: It is 1889 metres tall."), "{check}");
                return reply;
            }
            Reply {
                status: 200,
                content_type: "application/x-ndjson",
                pieces: ollama_lines(&["It is 1889 metres ", "tall [2]."], true),
                pause: Duration::ZERO,
            }
        });
        let model = HttpChat::new(ServerApi::Ollama, &url, "m", None, 4096).unwrap();
        let (result, events) = ask_model(&model);
        server.join().unwrap();
        let answer = result.unwrap();
        assert_eq!(answer.citations.len(), 1);
        assert_eq!(answer.citations[0].page, 5);
        // The window is told the model reads before its first words, and the check after them.
        let (said, first_text) = stages(&events);
        assert!(
            matches!(said[..], [Stage::Reading { passages, .. }, Stage::Checking] if *passages == answer.passages_supplied),
            "{said:?}"
        );
        let checking = events.iter().position(|e| {
            matches!(
                e,
                AnswerEvent::Stage {
                    stage: Stage::Checking,
                    ..
                }
            )
        });
        assert!(first_text.is_some_and(|at| at > 0 && checking > Some(at)), "{events:?}");
        if verdict != "No." {
            assert_eq!(answer.body, "It is 1889 metres tall [^1].", "{verdict}");
            assert_eq!(answer.unconfirmed, None);
            continue;
        }
        assert!(
            answer.body.starts_with(
                "The cited passages do not say this, so Lectern gives no answer.\n\nThe model's reading, \
                 which they do not bear out: \u{201c}It is 1889 metres tall.\u{201d}\n\nThe passages it cites:\n\n> "
            ),
            "{}",
            answer.body
        );
        assert!(
            answer.body.ends_with("[^1]"),
            "the passage, quoted with its footnote: {}",
            answer.body
        );
        assert_eq!(answer.unconfirmed.as_deref(), Some("It is 1889 metres tall [^1]."));
        assert!(lectern::answer::grade::counts_as_decline(&answer));
        let streamed = streamed_text(&events);
        assert!(
            streamed.ends_with("tall [^1].\n\n(The cited passages do not say this, so Lectern gives no answer.)"),
            "what streamed says the answer was taken back: {streamed}"
        );
    }

    // A check the server fails leaves the answer as it was.
    let (url, server) = serve(2, |path, _, body| {
        if support_check(path, body, "No").is_some() {
            return Reply {
                status: 500,
                content_type: "application/json",
                pieces: vec![r#"{"error":"out of memory"}"#.into()],
                pause: Duration::ZERO,
            };
        }
        Reply {
            status: 200,
            content_type: "application/x-ndjson",
            pieces: ollama_lines(&["It is 330 metres tall [1]."], true),
            pause: Duration::ZERO,
        }
    });
    let model = HttpChat::new(ServerApi::Ollama, &url, "m", None, 4096).unwrap();
    let (result, _) = ask_model(&model);
    server.join().unwrap();
    assert_eq!(result.unwrap().body, "It is 330 metres tall [^1].");
}

#[test]
fn server_errors_say_what_to_do() {
    let (url, server) = serve(3, |path, _, _| match path {
        "/api/chat" => Reply {
            status: 404,
            content_type: "application/json",
            pieces: vec![r#"{"error":"model \"nope\" not found, try pulling it first"}"#.into()],
            pause: Duration::ZERO,
        },
        _ => Reply {
            status: if path.starts_with("/other") { 500 } else { 401 },
            content_type: "application/json",
            pieces: vec![r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#.into()],
            pause: Duration::ZERO,
        },
    });
    let ollama = HttpChat::new(ServerApi::Ollama, &url, "nope", None, 4096).unwrap();
    let err = ask_model(&ollama).0.unwrap_err();
    assert!(
        matches!(err, LlmError::Server(ServerError::UnknownModel { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("ollama pull"), "{err}");

    let openai = HttpChat::new(ServerApi::OpenAi, &url, "gpt-x", Some("bad".into()), 4096).unwrap();
    let err = ask_model(&openai).0.unwrap_err();
    assert!(
        matches!(err, LlmError::Server(ServerError::Unauthorized { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("API key"), "{err}");

    let other = HttpChat::new(ServerApi::OpenAi, &format!("{url}/other"), "gpt-x", None, 4096).unwrap();
    let err = ask_model(&other).0.unwrap_err();
    assert!(
        matches!(err, LlmError::Server(ServerError::Refused { status: 500, .. })),
        "{err}"
    );
    assert!(err.to_string().contains("Incorrect API key provided"), "{err}");
    server.join().unwrap();

    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let err = ask_model(&HttpChat::new(ServerApi::Ollama, &down, "m", None, 4096).unwrap())
        .0
        .unwrap_err();
    assert!(
        matches!(err, LlmError::Server(ServerError::Unreachable { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("is the server running"), "{err}");
}

#[test]
fn a_connection_dropped_mid_stream_is_an_error_not_a_short_answer() {
    for api in [ServerApi::Ollama, ServerApi::OpenAi] {
        let (url, server) = serve(1, move |_, _, _| Reply {
            status: 200,
            content_type: "text/plain",
            pieces: match api {
                ServerApi::Ollama => ollama_lines(&["It is", " 330"], false),
                ServerApi::OpenAi => sse_events(&["It is", " 330"], false),
            },
            pause: Duration::from_millis(5),
        });
        let model = HttpChat::new(api, &url, "m", None, 4096).unwrap();
        let (result, events) = ask_model(&model);
        server.join().unwrap();
        assert!(
            matches!(result, Err(LlmError::Server(ServerError::Dropped { .. }))),
            "{api:?}: {result:?}"
        );
        assert!(!events.is_empty(), "what arrived before the drop was streamed");
    }
}

#[test]
fn cancel_stops_a_server_stream_well_before_its_next_piece() {
    let pause = Duration::from_secs(2);
    let (url, server) = serve(1, move |_, _, _| Reply {
        status: 200,
        content_type: "application/x-ndjson",
        pieces: ollama_lines(&["one", "two", "three"], true),
        pause,
    });
    let model = HttpChat::new(ServerApi::Ollama, &url, "m", None, 4096).unwrap();
    let cancel = Cancel::new();
    let mut cancelled_at = None;
    let finish = model
        .generate(
            &[lectern::llm::Message::new(Role::User, "hi")],
            &GenerateOptions::default(),
            &cancel,
            &mut |_| {
                cancel.cancel();
                cancelled_at.get_or_insert_with(Instant::now);
            },
        )
        .unwrap();
    let stopped = cancelled_at.unwrap().elapsed();
    assert_eq!(finish, lectern::llm::Finish::Cancelled);
    assert!(stopped < pause / 4, "stopped after {stopped:?}");
    server.join().unwrap();
}

fn builtin() -> BuiltinModel {
    let path = lectern::models::ModelStore::new(models_dir())
        .chat_model_path(Some("smollm2-135m"))
        .unwrap_or_else(|e| panic!("{e}"));
    BuiltinModel::load(&path, 1).unwrap_or_else(|e| panic!("{e}: run scripts/setup-models.sh"))
}

#[test]
fn the_builtin_model_reads_only_what_a_prompt_adds_to_the_last_and_answers_as_if_it_read_it_all() {
    let instructions = "You answer questions about the user's documents in one short sentence.";
    let questions = [
        "Excerpt [1]: The lighthouse at Cape Hollow was built in 1871 of granite.\n\nWhen was it built?",
        "Excerpt [1]: The keeper's cottage has two rooms and a red roof.\n\nWhat colour is the roof?",
    ];
    let options = GenerateOptions {
        max_tokens: 12,
        temperature: 0.0,
    };
    let ask = |model: &BuiltinModel, question: &str, cancel: &Cancel, stop_after: usize| {
        let messages = [
            lectern::llm::Message::new(Role::System, instructions),
            lectern::llm::Message::new(Role::User, question),
        ];
        let mut text = String::new();
        let mut pieces = 0;
        model
            .generate(&messages, &options, cancel, &mut |piece| {
                text.push_str(piece);
                pieces += 1;
                if pieces == stop_after {
                    cancel.cancel();
                }
            })
            .unwrap();
        text
    };
    // Each read whole by a model of its own.
    let fresh: Vec<String> = questions
        .iter()
        .map(|q| ask(&builtin(), q, &Cancel::new(), 0))
        .collect();
    assert!(fresh.iter().all(|a| !a.trim().is_empty()), "{fresh:?}");

    let model = builtin();
    assert!(model.cached_tokens().is_empty());
    assert_eq!(ask(&model, questions[0], &Cancel::new(), 0), fresh[0]);
    let [after_first] = model.cached_tokens()[..] else {
        panic!("one context kept: {:?}", model.cached_tokens())
    };
    let prompt = |q: &str| {
        model
            .render(&[
                lectern::llm::Message::new(Role::System, instructions),
                lectern::llm::Message::new(Role::User, q),
            ])
            .map(|p| model.tokenize(&p).len())
            .unwrap()
    };
    assert!(after_first > prompt(questions[0]), "the prompt and the answer are kept");
    // The second shares the instructions with the first: the same answer as read whole.
    assert_eq!(ask(&model, questions[1], &Cancel::new(), 0), fresh[1]);
    assert_eq!(model.cached_tokens().len(), 1, "read in the first's context");
    // A prompt with other instructions (an answer's support check) is read in a context of its
    // own, and the answers' context is kept for the next question.
    let check = [
        lectern::llm::Message::new(Role::System, "Reply with one word: yes or no."),
        lectern::llm::Message::new(Role::User, "Is the sky green?"),
    ];
    model.generate(&check, &options, &Cancel::new(), &mut |_| {}).unwrap();
    assert_eq!(model.cached_tokens().len(), 2);
    // An answer stopped part-way leaves the context usable; the next is as if read whole.
    let stopped = ask(&model, questions[0], &Cancel::new(), 2);
    assert!(fresh[0].starts_with(&stopped), "{stopped:?} / {:?}", fresh[0]);
    assert_eq!(ask(&model, questions[0], &Cancel::new(), 0), fresh[0]);
    assert_eq!(ask(&model, questions[1], &Cancel::new(), 0), fresh[1]);
}

#[test]
fn cancel_stops_the_builtin_model_within_a_token_and_within_a_prompt_slice() {
    // The bounds are the model's own step times measured in the same run, so that a busy
    // machine slows both sides alike.
    let model = builtin();
    let cancel = Cancel::new();
    let (mut cancelled_at, mut last, mut slowest_step, mut pieces) = (None, None::<Instant>, Duration::ZERO, 0);
    let finish = model
        .generate(
            &[lectern::llm::Message::new(
                Role::User,
                "Write a long story about a lighthouse.",
            )],
            &GenerateOptions {
                max_tokens: 400,
                temperature: 0.0,
            },
            &cancel,
            &mut |_| {
                pieces += 1;
                if let Some(last) = last {
                    slowest_step = slowest_step.max(last.elapsed());
                }
                last = Some(Instant::now());
                if pieces == 4 {
                    cancel.cancel();
                    cancelled_at = Some(Instant::now());
                }
            },
        )
        .unwrap();
    let stopped = cancelled_at.unwrap().elapsed();
    assert_eq!(finish, lectern::llm::Finish::Cancelled);
    assert_eq!(pieces, 4, "no text after the cancel");
    // A few steps' time, and a fifth of a second for a busy machine's preemptions: the 396
    // tokens left would take seconds.
    assert!(
        stopped < slowest_step * 3 + Duration::from_millis(200),
        "stopped {stopped:?} after the cancel; a token takes up to {slowest_step:?}"
    );

    // While it is still reading a long prompt (seconds on one thread), it stops at the end of the
    // prompt slice it is reading (64 tokens); one slice's time is measured on a prompt of that size.
    let sentence = "The lighthouse keeper wrote in his log every night. ";
    let one_token = GenerateOptions {
        max_tokens: 1,
        ..GenerateOptions::default()
    };
    let started = Instant::now();
    model
        .generate(
            &[lectern::llm::Message::new(Role::User, sentence.repeat(5))],
            &one_token,
            &Cancel::new(),
            &mut |_| {},
        )
        .unwrap();
    let slice = started.elapsed();
    let cancel = Cancel::new();
    let canceller = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(slice * 2);
            cancel.cancel();
            Instant::now()
        })
    };
    let finish = model
        .generate(
            &[lectern::llm::Message::new(Role::User, sentence.repeat(150))],
            &GenerateOptions::default(),
            &cancel,
            &mut |_| panic!("no text once cancelled"),
        )
        .unwrap();
    let stopped = canceller.join().unwrap().elapsed();
    assert_eq!(finish, lectern::llm::Finish::Cancelled);
    assert!(
        stopped < slice * 3,
        "stopped {stopped:?} after the cancel; a slice takes about {slice:?}"
    );
}

/// A library with the small corpus indexed in folder "Corpus", and that folder as a scope.
pub fn corpus_library() -> (crate::common::TestLibrary, Scope) {
    let t = library();
    let folder = index_small_corpus(&t);
    let scope = Scope {
        folders: vec![folder],
        ..Scope::default()
    };
    (t, scope)
}

#[test]
fn the_builtin_model_answers_over_real_pdfs_with_a_valid_citation() {
    let (t, scope) = corpus_library();
    let model: Arc<dyn LanguageModel> = Arc::new(builtin());
    // SmolLM2-135M answers some questions from the passages and makes others up; greedy decoding
    // on one thread makes this one reproducible.
    let mut request = AskRequest::new("Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?");
    request.scope = Some(scope);
    request.k = 5;
    request.settings.generate.max_tokens = 60;
    let outcome = runtime()
        .block_on(t.ask(&request, Some(model), &Cancel::new(), None))
        .unwrap();
    let answer = &outcome.answer;
    assert_eq!(answer.kind, AnswerKind::Generated, "{answer:#?}");
    assert!(!answer.citations.is_empty(), "no citation in: {}", answer.body);
    for citation in &answer.citations {
        // A passage may join neighbouring hits of a page: each of them is inside its quote.
        let supplied = outcome.results.hits.iter().any(|h| {
            h.document == citation.document && h.page == citation.page && citation.quote.contains(h.text.as_str())
        });
        assert!(supplied, "{citation:#?} is not a retrieved passage");
        assert!(answer.body.contains(&format!("[^{}]", citation.number)));
    }
}

#[test]
fn a_question_that_fails_before_its_answer_leaves_no_chat_behind() {
    let (t, scope) = corpus_library();
    let rt = runtime();
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let down = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let server_down: Arc<dyn LanguageModel> =
        Arc::new(HttpChat::new(ServerApi::Ollama, &down, "m", None, 4096).unwrap());
    let mut request = AskRequest::new("Which country has the largest area in the table of European Union countries?");
    request.scope = Some(scope.clone());
    let e = rt
        .block_on(t.ask(&request, Some(server_down.clone()), &Cancel::new(), None))
        .unwrap_err();
    assert!(e.to_string().contains("is the server running"), "{e}");
    assert!(t.chats().unwrap().is_empty(), "a failed first question makes no chat");

    // In a chat that exists, a failed question adds nothing and changes no scope.
    let first = rt.block_on(t.ask(&request, None, &Cancel::new(), None)).unwrap();
    let mut again = AskRequest::new("And the smallest?");
    again.chat = Some(first.chat.id);
    again.scope = Some(Scope::default());
    assert!(rt
        .block_on(t.ask(&again, Some(server_down), &Cancel::new(), None))
        .is_err());
    let (chat, messages) = t.chat(first.chat.id).unwrap();
    assert_eq!((chat.scope, messages.len()), (scope, 2));
}

#[test]
fn extractive_answers_put_the_line_that_answers_in_bold() {
    let (t, scope) = corpus_library();
    let mut request = AskRequest::new("Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?");
    request.scope = Some(scope);
    let outcome = runtime().block_on(t.ask(&request, None, &Cancel::new(), None)).unwrap();
    assert_eq!(outcome.answer.kind, AnswerKind::Extractive);
    let bold = lectern::answer::grade::graded_text(&outcome.answer);
    assert!(bold.contains("copyright"), "{bold:?} in {}", outcome.answer.body);
    assert!(
        bold.len() < outcome.answer.citations[0].quote.len(),
        "a line, not the whole passage"
    );
}

/// Issue 65 item 2: "page 2", "this document" over a folder of several.
#[test]
fn a_question_naming_no_document_is_asked_of_the_one_the_chat_is_about_else_the_likeliest_are_offered() {
    let (t, scope) = corpus_library();
    let rt = runtime();
    let ask = |request: &AskRequest| rt.block_on(t.ask(request, None, &Cancel::new(), None));
    let mut request = AskRequest::new("What does the second page of this document say?");
    request.scope = Some(scope.clone());
    let e = ask(&request).unwrap_err();
    let Error::WhichDocument { in_scope, choices } = &e else {
        panic!("{e}")
    };
    assert_eq!(*in_scope, 3);
    assert!((1..=3).contains(&choices.len()), "{choices:?}");
    assert_eq!(e.code(), ErrorCode::Ambiguous);
    assert_eq!(
        e.hint(),
        Some(Hint::ChooseDocument {
            choices: choices.clone()
        })
    );
    assert!(e.to_string().contains(&choices[0].name), "{e}");
    assert!(t.chats().unwrap().is_empty(), "nothing is kept");

    // Asked of the document open beside the chat: that one alone, its second page first.
    let two_pages = t
        .documents(None, false)
        .unwrap()
        .into_iter()
        .find(|d| d.file_name == "text-word-mac-lorem-ipsum-2p.pdf")
        .unwrap();
    request.about = Some(About {
        document: two_pages.id,
        because: Because::Open,
    });
    let outcome = ask(&request).unwrap();
    assert_eq!(
        outcome.asked_of,
        Some(AskedOf {
            document: two_pages.id,
            name: two_pages.display_name.clone(),
            because: Because::Open,
        })
    );
    assert!(outcome.results.hits.iter().all(|h| h.document == two_pages.id));
    assert_eq!(outcome.results.hits[0].page, 2);
    assert!(outcome.results.hits[0].components.named_page);
    // The page named is the answer, whatever its words: not "not found".
    assert_eq!(outcome.answer.kind, AnswerKind::Extractive, "{}", outcome.answer.body);
    assert!(!outcome.answer.citations.is_empty());
    assert!(outcome.answer.citations.iter().all(|c| c.document == two_pages.id));
    assert_eq!(outcome.chat.scope, scope, "the chat stays over the folder");

    // The chat's next question naming none is asked of the document its last answer cited.
    let mut next = AskRequest::new("And what is on the first page?");
    next.chat = Some(outcome.chat.id);
    let followed = ask(&next).unwrap();
    let asked_of = followed.asked_of.unwrap();
    assert_eq!((asked_of.document, asked_of.because), (two_pages.id, Because::Cited));
    assert!(followed.results.hits.iter().all(|h| h.document == two_pages.id));

    // A question that names its document, or points at none, is asked of the whole scope.
    for question in [
        "What does the second page of the lorem ipsum document say?",
        "Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?",
    ] {
        let mut request = AskRequest::new(question);
        request.scope = Some(scope.clone());
        assert_eq!(ask(&request).unwrap().asked_of, None, "{question}");
    }
}

#[test]
fn a_question_the_documents_do_not_answer_gets_not_found_with_the_nearest_passages() {
    let (t, scope) = corpus_library();
    let rt = runtime();
    let mut request = AskRequest::new("What is the best recipe for sourdough bread with a crispy crust?");
    request.scope = Some(scope.clone());
    let outcome = rt.block_on(t.ask(&request, None, &Cancel::new(), None)).unwrap();
    assert_eq!(outcome.answer.kind, AnswerKind::NotFound, "{:#?}", outcome.answer);
    assert!(outcome.answer.body.starts_with("I could not find this"));
    assert_eq!(outcome.answer.citations.len(), 3, "the nearest passages are listed");

    // Keyword search has no similarity to judge by: the share of the question's keyword weight
    // the best passage has decides there.
    for mode in [SearchMode::Hybrid, SearchMode::Keyword] {
        let mut request = AskRequest::new("What is the best recipe for sourdough bread with a crispy crust?");
        request.scope = Some(scope.clone());
        request.mode = mode;
        let outcome = rt.block_on(t.ask(&request, None, &Cancel::new(), None)).unwrap();
        assert_eq!(
            outcome.answer.kind,
            AnswerKind::NotFound,
            "{mode:?}: {:#?}",
            outcome.answer
        );

        let mut request =
            AskRequest::new("Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?");
        request.scope = Some(scope.clone());
        request.mode = mode;
        let outcome = rt.block_on(t.ask(&request, None, &Cancel::new(), None)).unwrap();
        assert_eq!(outcome.answer.kind, AnswerKind::Extractive, "{mode:?}");
        assert_eq!(
            outcome.answer.citations[0].document_name,
            "text-word-mac-lorem-ipsum-2p.pdf"
        );
    }
}

#[test]
fn chats_keep_scope_and_citations_across_a_restart_and_export_as_markdown() {
    let (t, scope) = corpus_library();
    let rt = runtime();
    let mut first = AskRequest::new("Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?");
    first.scope = Some(scope.clone());
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let one = rt.block_on(t.ask(&first, None, &Cancel::new(), Some(sender))).unwrap();
    let mut streamed = 0;
    while events.try_recv().is_ok() {
        streamed += 1;
    }
    assert!(
        streamed > one.answer.citations.len(),
        "text and footnotes were streamed"
    );
    let mut second = AskRequest::new("Which country has the largest area in the table of European Union countries?");
    second.chat = Some(one.chat.id);
    let two = rt.block_on(t.ask(&second, None, &Cancel::new(), None)).unwrap();
    assert_eq!(two.chat.id, one.chat.id);
    assert_eq!(two.chat.scope, scope, "a continued chat keeps its scope");
    assert_eq!(two.chat.message_count, 4);

    let crate::common::TestLibrary { library, home } = t;
    drop(library);
    let reopened = Library::open(config(home.path())).unwrap();
    let (chat, messages) = reopened.chat(one.chat.id).unwrap();
    assert_eq!(chat.title, first.question);
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0].role, Role::User);
    assert_eq!(messages[1].citations, one.answer.citations);
    assert_eq!(messages[3].citations, two.answer.citations);
    assert_eq!(messages[1].kind, Some(AnswerKind::Extractive));

    let renamed = reopened.rename_chat(chat.id, "  Lorem   and the EU ").unwrap();
    assert_eq!(renamed.title, "Lorem and the EU");
    let markdown = reopened.export_chat(chat.id).unwrap();
    let total = one.answer.citations.len() + two.answer.citations.len();
    assert!(markdown.starts_with("# Lorem and the EU\n"));
    assert!(markdown.contains(&format!("\n## {}\n", second.question)));
    for n in 1..=total {
        assert_eq!(
            markdown.matches(&format!("[^{n}]:")).count(),
            1,
            "footnote {n} in:\n{markdown}"
        );
        assert!(markdown.contains(&format!("[^{n}]\n")) || markdown.contains(&format!("[^{n}] ")));
    }
    assert!(!markdown.contains(&format!("[^{}]", total + 1)));
    // One answer alone: its question as the title, its own footnotes numbered from one.
    assert_eq!(messages[3].id, two.message);
    let answer = reopened.export_answer(chat.id, two.message).unwrap();
    assert!(answer.starts_with(&format!("# {}\n", second.question)), "{answer}");
    assert!(!answer.contains(&first.question));
    for n in 1..=two.answer.citations.len() {
        assert_eq!(answer.matches(&format!("[^{n}]:")).count(), 1, "{answer}");
    }
    assert!(
        reopened.export_answer(chat.id, messages[0].id).is_err(),
        "a question is no answer"
    );
    reopened.delete_chat(chat.id).unwrap();
    assert!(reopened.chats().unwrap().is_empty());
    assert!(reopened.chat(chat.id).is_err());
}

#[test]
fn settings_persist_are_checked_and_name_the_backend_with_its_key() {
    let t = library();
    assert_eq!(t.settings().unwrap(), Settings::default());
    let mut settings = Settings {
        backend: BackendKind::Openai,
        model: Some("gpt-x".into()),
        url: Some(" http://127.0.0.1:9/v1 ".into()),
        api_key: Some("sk-saved".into()),
        mode: SearchMode::Keyword,
        k: 7,
        ocr: false,
    };
    t.save_settings(&settings).unwrap();
    let crate::common::TestLibrary { library, home } = t;
    drop(library);
    let reopened = Library::open(config(home.path())).unwrap();
    assert_eq!(reopened.settings().unwrap(), settings, "settings survive a restart");
    match settings.backend(&config(home.path())).unwrap() {
        Backend::OpenAi {
            url, model, api_key, ..
        } => {
            assert_eq!((url.as_str(), model.as_str()), ("http://127.0.0.1:9/v1", "gpt-x"));
            assert_eq!(api_key.as_deref(), Some("sk-saved"));
        }
        other => panic!("{other:?}"),
    }

    settings.k = 0;
    let e = reopened.save_settings(&settings).unwrap_err();
    assert!(e.to_string().contains("between 1 and 50"), "{e}");
    settings.k = 5;
    settings.backend = BackendKind::Ollama;
    settings.model = Some("  ".into());
    let e = reopened.save_settings(&settings).unwrap_err();
    assert!(e.to_string().contains("needs a model name"), "{e}");
    assert_eq!(reopened.settings().unwrap().k, 7, "a refused save changes nothing");
}

#[test]
fn a_questions_choices_put_what_the_program_was_told_over_the_saved_settings() {
    let (t, scope) = corpus_library();
    let nothing = AskChoices::default();
    let plan = t.plan_answer(&nothing).unwrap();
    assert_eq!(
        (plan.k, plan.mode),
        (10, SearchMode::Hybrid),
        "nothing saved: the defaults"
    );

    t.save_settings(&Settings {
        backend: BackendKind::Extractive,
        mode: SearchMode::Keyword,
        k: 2,
        ..Settings::default()
    })
    .unwrap();
    let plan = t.plan_answer(&nothing).unwrap();
    assert_eq!(
        (&plan.backend, plan.k, plan.mode),
        (&Backend::Extractive, 2, SearchMode::Keyword)
    );
    let told = AskChoices {
        k: Some(3),
        mode: Some(SearchMode::Vector),
        relevance_floor: Some(0.5),
        max_tokens: Some(64),
        ..AskChoices::default()
    };
    let plan = t.plan_answer(&told).unwrap();
    assert_eq!(
        (&plan.backend, plan.k, plan.mode),
        (&Backend::Extractive, 3, SearchMode::Vector)
    );
    assert_eq!(plan.settings.relevance_floor, Some(0.5));
    assert_eq!(plan.settings.generate.max_tokens, 64);
    let too_many = AskChoices {
        k: Some(51),
        ..AskChoices::default()
    };
    let e = t.plan_answer(&too_many).unwrap_err();
    assert!(e.to_string().contains("between 1 and 50"), "{e}");

    // A program that says nothing answers with the saved settings: extractively, two passages.
    let outcome = runtime()
        .block_on(t.ask_as_chosen(
            "Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?".into(),
            AskAt {
                scope: Some(scope),
                ..AskAt::default()
            },
            &nothing,
            &Cancel::new(),
            None,
        ))
        .unwrap();
    assert_eq!(outcome.answer.kind, AnswerKind::Extractive);
    assert_eq!(outcome.results.mode, SearchMode::Keyword);
    assert!(outcome.results.hits.len() <= 2, "{}", outcome.results.hits.len());
}

#[test]
fn a_connection_check_has_the_server_answer_and_reports_a_refused_key() {
    // Each check asks the server for the model's window first (`/v1/models`, then `/props`).
    let (url, server) = serve(6, |path, auth, body| {
        if path != "/v1/chat/completions" {
            return Reply {
                status: 404,
                content_type: "text/plain",
                pieces: vec!["not here".into()],
                pause: Duration::ZERO,
            };
        }
        assert_eq!(body["messages"][0]["role"], "user");
        if auth == "Bearer sk-good" {
            Reply {
                status: 200,
                content_type: "text/event-stream",
                pieces: sse_events(&["ready"], true),
                pause: Duration::ZERO,
            }
        } else {
            Reply {
                status: 401,
                content_type: "application/json",
                pieces: vec![r#"{"error":{"message":"Incorrect API key"}}"#.into()],
                pause: Duration::ZERO,
            }
        }
    });
    let backend = |key: &str| Settings {
        backend: BackendKind::Openai,
        model: Some("gpt-x".into()),
        url: Some(format!("{url}/v1")),
        api_key: Some(key.into()),
        ..Settings::default()
    };
    let home = tempfile::tempdir().unwrap();
    let config = config(home.path());
    let check = backend("sk-good").backend(&config).unwrap().check(1).unwrap();
    assert_eq!(check.reply, "ready");
    assert!(check.description.contains("gpt-x"), "{check:?}");
    let e = backend("sk-bad").backend(&config).unwrap().check(1).unwrap_err();
    assert!(e.to_string().contains("key"), "{e}");
    server.join().unwrap();

    let extractive = Settings {
        backend: BackendKind::Extractive,
        ..Settings::default()
    };
    assert_eq!(extractive.backend(&config).unwrap().check(1).unwrap().reply, "");
}

/// A hostile server: for each of `requests` requests, the status line and headers, `start`, then
/// `piece` again and again until the client hangs up.
fn endless(requests: usize, status: u16, start: &'static str, piece: &'static str) -> (String, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let mut stream: TcpStream = stream.unwrap();
            read_request(&stream);
            let head =
                format!("HTTP/1.1 {status} X\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{start}");
            let mut written = stream.write_all(head.as_bytes());
            let block = piece.repeat((64 << 10) / piece.len().max(1));
            while written.is_ok() {
                written = stream.write_all(block.as_bytes());
            }
        }
    });
    (url, handle)
}

#[test]
fn a_server_that_never_stops_talking_gets_a_clear_error_not_the_memory() {
    let cases: [(u16, &str, &str, &str); 3] = [
        // An error body without end: its start is the message.
        (500, r#"{"error":"overloaded "#, "and then some ", "overloaded"),
        // One line without end.
        (
            200,
            r#"{"model":"m","message":{"role":"assistant","content":""#,
            "a",
            "longer than 1 MB",
        ),
        // An answer without end, line after valid line.
        (
            200,
            "",
            "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"and so on \"},\"done\":false}\n",
            "went on past 4 MB",
        ),
    ];
    for (status, start, piece, says) in cases {
        let (url, server) = endless(1, status, start, piece);
        let model = HttpChat::new(ServerApi::Ollama, &url, "m", None, 4096).unwrap();
        let err = ask_model(&model).0.unwrap_err();
        assert!(err.to_string().contains(says), "{status} {piece:?}: {err}");
        server.join().unwrap();
    }
}

/// SmolLM2 and Qwen2.5 have answered with a sentence of their instructions; none may reach the
/// reader, split across the stream however it comes.
#[test]
fn a_copy_of_the_instructions_never_reaches_the_answer() {
    let echo = [
        "The number with its unit, ",
        "the name, and the date",
        " or a short phrase.\n",
    ];
    let answer_pieces = ["It is 330 ", "metres tall [1]."];
    let (url, server) = serve(3, move |path, _, json| {
        if let Some(reply) = support_check(path, json, "Yes") {
            return reply;
        }
        // The first request gets the copy and an answer, the second the copy alone.
        let alone = json["messages"].to_string().contains("How high");
        let pieces: Vec<&str> = if alone {
            echo.to_vec()
        } else {
            echo.iter().chain(answer_pieces.iter()).copied().collect()
        };
        Reply {
            status: 200,
            content_type: "application/x-ndjson",
            pieces: ollama_lines(&pieces, true),
            pause: Duration::ZERO,
        }
    });
    let model = HttpChat::new(ServerApi::Ollama, &url, "m", None, 4096).unwrap();
    let (result, events) = ask_model(&model);
    let first = result.unwrap();
    assert_eq!(first.body, "It is 330 metres tall [^1].");
    let streamed = streamed_text(&events);
    assert!(!streamed.contains("short phrase"), "{streamed}");

    let mut events = Vec::new();
    let alone = answer(
        Some(&model),
        "How high is the Eiffel Tower?",
        &[],
        &hits(),
        &AnswerSettings::default(),
        &Cancel::new(),
        &mut |e| events.push(e),
    )
    .unwrap();
    server.join().unwrap();
    assert!(
        alone
            .body
            .starts_with("The model gave no answer of its own.\n\nThe passages that came nearest:"),
        "{}",
        alone.body
    );
    assert!(!alone.body.contains("short phrase"), "{}", alone.body);
    assert_eq!(alone.citations.len(), 2, "the passages it read, cited");
}

/// A model that declines is given the passages that did not fit its prompt before its decline
/// is shown; the decline it took back never reaches the reader.
#[test]
fn a_decline_gets_a_second_look_at_the_passages_that_did_not_fit() {
    let doc = DocumentId::new_random();
    // A window of 4,096 tokens holds either passage with the instructions, not both.
    let first = "Visitors climb the stairs to the second floor. ".repeat(85);
    let second = format!(
        "The Eiffel Tower is 330 metres tall. {}",
        "Paris has many bridges. ".repeat(500)
    );
    let hits = vec![
        hit(doc, "towers.pdf", 3, &first, 0.8),
        hit(doc, "towers.pdf", 5, &second, 0.6),
    ];
    for answers_second_time in [true, false] {
        // An answer is checked against its passages once more.
        let requests = if answers_second_time { 3 } else { 2 };
        let (url, server) = serve(requests, move |path, _, json| {
            if let Some(reply) = support_check(path, json, "Yes") {
                return reply;
            }
            let prompt = json["messages"].to_string();
            let reply = if prompt.contains("page 5") && answers_second_time {
                vec!["It is ", "330 metres tall [1]."]
            } else {
                vec!["The documents ", "do not say."]
            };
            Reply {
                status: 200,
                content_type: "application/x-ndjson",
                pieces: ollama_lines(&reply, true),
                pause: Duration::ZERO,
            }
        });
        let model = HttpChat::new(ServerApi::Ollama, &url, "m", None, 4096).unwrap();
        let mut events = Vec::new();
        let answered = answer(
            Some(&model),
            "How tall is the Eiffel Tower?",
            &[],
            &hits,
            &AnswerSettings::default(),
            &Cancel::new(),
            &mut |e| events.push(e),
        )
        .unwrap();
        server.join().unwrap();
        let streamed = streamed_text(&events);
        if answers_second_time {
            assert_eq!(answered.body, "It is 330 metres tall [^1].");
            assert_eq!(answered.citations[0].page, 5);
            assert_eq!(streamed, answered.body, "the first look's decline was not shown");
        } else {
            assert!(
                answered.body.starts_with("The documents do not say."),
                "{}",
                answered.body
            );
            assert_eq!(streamed.matches("do not say").count(), 1, "{streamed}");
            assert_eq!(answered.citations[0].page, 3, "the best-ranked passages, cited");
        }
    }
}

/// A small annual report: a cover, prose naming figures, its three statements (in millions),
/// and a note whose table repeats a balance sheet row.
/// A PDF at `path` with a page of each of `pages`' lines.
fn write_pages(path: &std::path::Path, pages: &[&[&str]]) {
    let pages: Vec<Vec<String>> = pages
        .iter()
        .map(|lines| lines.iter().map(|l| l.to_string()).collect())
        .collect();
    std::fs::write(path, lectern::pdf::pages_pdf(&pages)).unwrap();
}

fn write_filing(path: &std::path::Path) {
    write_pages(
        path,
        &[
            &[
                "NORTHWIND TRADERS, INC.",
                "ANNUAL REPORT ON FORM 10-K",
                "For the fiscal year ended December 31, 2023",
            ],
            &[
                "Management's Discussion and Analysis",
                "Capital expenditures rose as we opened twelve new warehouses during the year.",
                "Cash income tax payments were 1,560 in 2023, and we expect them to grow.",
            ],
            &[
                "NORTHWIND TRADERS, INC.",
                "CONSOLIDATED STATEMENTS OF OPERATIONS",
                "(In millions)",
                "Years ended December 31, 2023 2022 2021",
                "Net sales 12,400 11,000 9,800",
                "Cost of sales 7,440 6,710 6,080",
                "Operating income 1,860 1,540 1,180",
                "Net income 1,302 1,078 826",
            ],
            &[
                "NORTHWIND TRADERS, INC.",
                "CONSOLIDATED BALANCE SHEETS",
                "(In millions)",
                "December 31, 2023 December 31, 2022",
                "Inventories 2,150 1,980",
                "Total current assets 5,600 5,050",
                "Total assets 14,200 13,100",
                "Total current liabilities 3,500 3,350",
            ],
            &[
                "NORTHWIND TRADERS, INC.",
                "CONSOLIDATED STATEMENTS OF CASH FLOWS",
                "(In millions)",
                "Years ended December 31, 2023 2022 2021",
                "Net cash provided by operating activities 2,310 1,950 1,610",
                "Purchases of property and equipment (1,577) (1,373) (1,120)",
                "Cash income tax payments 1,560 1,420 1,300",
            ],
            &[
                "Notes to Consolidated Financial Statements",
                "Note 5. Inventories by kind",
                "December 31, 2023 December 31, 2022",
                "Finished goods 1,700 1,600",
                "Inventories 2,150 1,980",
            ],
        ],
    );
}

/// A quarterly report of the same company: the quarter's and the year to date's columns, and a
/// balance sheet at the quarter's end and at the year's.
fn write_quarterly_filing(path: &std::path::Path) {
    write_pages(
        path,
        &[
            &[
                "NORTHWIND TRADERS, INC.",
                "QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d)",
                "For the quarterly period ended June 30, 2024",
            ],
            &[
                "NORTHWIND TRADERS, INC.",
                "CONSOLIDATED STATEMENTS OF OPERATIONS",
                "(In millions)",
                "Three Months Ended Six Months Ended",
                "June 30, 2024 June 30, 2023 June 30, 2024 June 30, 2023",
                "Net sales 3,300 2,900 6,500 5,700",
                "Net income 350 300 690 600",
            ],
            &[
                "NORTHWIND TRADERS, INC.",
                "CONSOLIDATED BALANCE SHEETS",
                "(In millions)",
                "June 30, 2024 December 31, 2023",
                "Total current assets 5,900 5,600",
                "Total current liabilities 3,700 3,500",
            ],
        ],
    );
}

#[test]
fn a_metric_asked_of_a_filing_is_computed_by_lectern_from_its_statements_rows() {
    let t = library();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("northwind-2023-10k.pdf");
    write_filing(&path);
    let quarterly = dir.path().join("northwind-2024q2-10q.pdf");
    write_quarterly_filing(&quarterly);
    // Another company's filing, of a year Northwind's do not hold.
    let other = dir.path().join("contoso-2019-10k.pdf");
    write_pages(
        &other,
        &[&[
            "CONTOSO LTD.",
            "CONSOLIDATED BALANCE SHEETS",
            "(In millions)",
            "December 31, 2019 December 31, 2018",
            "Total current assets 1,400 1,300",
            "Total current liabilities 900 800",
        ]],
    );
    t.create_folder("Filings").unwrap();
    t.add(&[path, quarterly, other], "Filings").unwrap();
    crate::common::index_all(&t);
    let rt = runtime();
    let ask = |question: &str| {
        let request = AskRequest::new(question);
        let mut events = Vec::new();
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        let outcome = rt
            .block_on(t.ask(&request, None, &Cancel::new(), Some(sender)))
            .unwrap();
        while let Ok(event) = receiver.try_recv() {
            events.push(event);
        }
        (outcome, events)
    };

    let (outcome, events) = ask(
        "What is the FY2023 operating cash flow ratio for Northwind? Operating cash flow ratio is defined as: \
         cash from operations / total current liabilities. Round your answer to two decimal places.",
    );
    let answer = &outcome.answer;
    assert_eq!(answer.kind, AnswerKind::Computed, "{}", answer.body);
    assert_eq!(
        lectern::answer::grade::graded_text(answer),
        "Operating cash flow ratio (FY2023): **0.66**."
    );
    let (said, _) = stages(&events);
    assert_eq!(said, [&Stage::Searching, &Stage::Computing]);
    assert!(
        events[..2].iter().all(|e| matches!(e, AnswerEvent::Stage { .. })),
        "both said before the answer: {events:?}"
    );
    assert!(
        answer.body.contains("2,310 [^1] / 3,500 [^2] = 0.66"),
        "{}",
        answer.body
    );
    let cited: Vec<(u32, &str)> = answer.citations.iter().map(|c| (c.page, c.quote.as_str())).collect();
    assert_eq!(
        cited,
        [
            (5, "Net cash provided by operating activities 2,310 1,950 1,610"),
            (4, "Total current liabilities 3,500 3,350")
        ]
    );
    // Each citation's range is its row in the page's text, and the row is among the results.
    for citation in &answer.citations {
        let page = t.page_text(citation.document, citation.page).unwrap();
        let row: String = page
            .chars()
            .skip(citation.char_start as usize)
            .take((citation.char_end - citation.char_start) as usize)
            .collect();
        assert_eq!(row, citation.quote);
        assert!(outcome
            .results
            .hits
            .iter()
            .any(|h| h.chunk_id == citation.chunk_id && h.text == row));
    }
    assert_eq!(streamed_text(&events), answer.body);
    let (_, messages) = t.chat(outcome.chat.id).unwrap();
    assert_eq!(messages[1].kind, Some(AnswerKind::Computed));

    // The answer to `question`, which must open with `start`.
    let opening = |question: &str, start: &str| {
        let (outcome, _) = ask(question);
        assert!(outcome.answer.body.starts_with(start), "{}", outcome.answer.body);
        outcome
    };
    opening(
        "What is Northwind's FY2021 - FY2023 3 year average of capex as a % of revenue? Answer in units of \
         percents and round to one decimal place.",
        "Capex as a share of revenue (FY2021 to FY2023, average): **12.2%**.",
    );

    // The balance sheet's row, not the note's, and not the prose's or the tax row's 1,560.
    let outcome = opening(
        "What is Northwind's year end FY2023 amount of inventories? Answer in USD millions.",
        "Inventories (FY2023): **$2,150 million**.",
    );
    assert_eq!(outcome.answer.citations[0].page, 4);

    // A year the statements do not hold is not computed, not even from another company's
    // filing that holds it: the passages answer as before.
    let (outcome, _) = ask("What is Northwind's FY2019 total current liabilities?");
    assert_eq!(outcome.answer.kind, AnswerKind::Extractive, "{}", outcome.answer.body);
    opening(
        "What is Contoso's FY2019 total current liabilities?",
        "Total current liabilities (FY2019): **900 million**.",
    );

    // A quarter's figures come from its quarterly report's quarter columns (not the half
    // year's); a yes-or-no question is answered first.
    let outcome = opening(
        "What were Northwind's net sales in Q2 of FY2024?",
        "Net sales (Q2 FY2024): **3,300 million**.",
    );
    assert_eq!(outcome.answer.citations[0].document_name, "northwind-2024q2-10q.pdf");
    opening(
        "Did Northwind's net sales increase from Q2 FY2023 to Q2 FY2024?",
        "Yes. Net sales growth (Q2 FY2023 to Q2 FY2024): **13.8% (+400 million)**.",
    );
    opening(
        "Does Northwind have positive working capital as of Q2 of FY2024?",
        "Yes. Working capital (Q2 FY2024): **2,200 million**.",
    );
    // The quarterly report's figures are no fiscal year's: FY2024 is not computed from them.
    let (outcome, _) = ask("What were Northwind's FY2024 net sales?");
    assert_ne!(outcome.answer.kind, AnswerKind::Computed, "{}", outcome.answer.body);

    // Never another question: a ratio whose second term Lectern does not know is not answered
    // by its first, and a question naming no company over three filings is not computed from
    // whichever gives the operands.
    for question in [
        "What is Northwind's FY2023 total debt to EBITDA ratio? Round to three decimal places.",
        "How much did Northwind's net sales grow in FY2023?",
        "What is the FY2023 operating cash flow ratio? Operating cash flow ratio is defined as: cash from \
         operations / total current liabilities.",
    ] {
        let (outcome, _) = ask(question);
        assert_ne!(
            outcome.answer.kind,
            AnswerKind::Computed,
            "{question}: {}",
            outcome.answer.body
        );
    }
}
