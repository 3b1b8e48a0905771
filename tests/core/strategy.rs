//! Retrieval strategies: when a question searches. `smart` skips small talk and answers a request
//! about the last answer from its question's passages; `function` searches for what the model
//! asks for, with the tool in the request (OpenAI's and Ollama's wire formats) or in the prompt
//! (a server that refuses tools); `confidence` gives the model only passages that clearly bear on
//! the question; a chat keeps its strategy, and a folder gives its chats a default. The model is
//! a loopback server speaking the real wire formats, which records what it was sent.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use lectern::answer::AnswerKind;
use lectern::catalog::Strategy;
use lectern::llm::{Cancel, HttpChat, LanguageModel};
use lectern::model_server::ServerApi;
use lectern::{AskOutcome, AskRequest, Library};
use serde_json::{json, Value};

use crate::answer::{corpus_library, ollama_lines, serve, sse_events, support_check, Reply};
use crate::common::runtime;

const QUESTION: &str = "Who waived all copyright to 'Variation Itself - Variations on Lorem Ipsum'?";

/// The requests a server was sent, in order.
type Sent = Arc<Mutex<Vec<Value>>>;

/// A server that answers `replies` requests with what `reply` makes of each request's body (and
/// its number, from 0), keeping every body, and `checks` support checks (Lectern asking whether
/// an answer's passages state it) with a yes, neither kept nor numbered.
fn recording(
    replies: usize,
    checks: usize,
    reply: impl Fn(usize, &Value) -> Vec<String> + Send + 'static,
    content_type: &'static str,
) -> (String, Sent, std::thread::JoinHandle<()>) {
    let sent: Sent = Arc::default();
    let kept = sent.clone();
    let (url, server) = serve(replies + checks, move |path, _, body| {
        if let Some(yes) = support_check(path, body, "Yes") {
            return yes;
        }
        let mut kept = kept.lock().unwrap();
        let pieces = reply(kept.len(), body);
        kept.push(body.clone());
        Reply {
            status: 200,
            content_type,
            pieces,
            pause: Duration::ZERO,
        }
    });
    (url, sent, server)
}

fn openai(url: &str) -> Arc<dyn LanguageModel> {
    Arc::new(HttpChat::new(ServerApi::OpenAi, &format!("{url}/v1"), "m", None, 8192).unwrap())
}

fn ask(library: &Library, request: &AskRequest, model: &Arc<dyn LanguageModel>) -> AskOutcome {
    runtime()
        .block_on(library.ask(request, Some(model.clone()), &Cancel::new(), None))
        .unwrap()
}

/// The text of a request's last message.
fn last_message(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .map_or_else(String::new, |m| m["content"].as_str().unwrap_or_default().to_string())
}

/// Whether a request's prompt holds retrieved passages.
fn has_passages(body: &Value) -> bool {
    last_message(body).contains("[1]")
}

#[test]
fn smart_skips_small_talk_answers_a_request_about_the_last_answer_from_its_passages_and_stays_the_chats() {
    let (t, scope) = corpus_library();
    // The answer and the table cite a passage: each is checked against it.
    let (url, sent, server) = recording(
        3,
        2,
        |_, _| sse_events(&["Jason Schott waived it [1]."], true),
        "text/event-stream",
    );
    let model = openai(&url);

    let mut first = AskRequest::new(QUESTION);
    first.scope = Some(scope.clone());
    first.strategy = Some(Strategy::Smart);
    let asked = ask(&t, &first, &model);
    assert_eq!(asked.retrieval.query.as_deref(), Some(QUESTION));
    assert_eq!(
        asked.chat.strategy,
        Some(Strategy::Smart),
        "the chat keeps the strategy it was asked with"
    );

    // The chat's strategy holds without being named again.
    let mut thanks = AskRequest::new("Thanks a lot!");
    thanks.chat = Some(asked.chat.id);
    let replied = ask(&t, &thanks, &model);
    assert_eq!(replied.retrieval.query, None, "small talk is not searched");
    assert!(replied.results.hits.is_empty());
    assert!(replied.answer.citations.is_empty());

    let mut table = AskRequest::new("Make it a table");
    table.chat = Some(asked.chat.id);
    let tabled = ask(&t, &table, &model);
    assert_eq!(
        tabled.retrieval.query.as_deref(),
        Some(QUESTION),
        "a request about the last answer gets its question's passages"
    );
    assert!(!tabled.answer.citations.is_empty(), "{:#?}", tabled.answer);
    server.join().unwrap();

    let sent = sent.lock().unwrap();
    assert!(has_passages(&sent[0]) && has_passages(&sent[2]));
    assert!(!has_passages(&sent[1]), "{}", sent[1]);
    assert_eq!(last_message(&sent[1]), "Thanks a lot!");
    let (_, messages) = t.chat(asked.chat.id).unwrap();
    assert_eq!(messages.len(), 6);
}

#[test]
fn a_folder_gives_its_chats_a_default_strategy_and_a_chat_may_change_it() {
    let (t, scope) = corpus_library();
    let (url, _, server) = recording(1, 0, |_, _| sse_events(&["Hello!"], true), "text/event-stream");
    let model = openai(&url);
    t.set_folder_strategy("Corpus", Some(Strategy::Smart)).unwrap();
    assert_eq!(t.default_strategy(&scope).unwrap(), Strategy::Smart);
    let mut hello = AskRequest::new("hello");
    hello.scope = Some(scope.clone());
    let outcome = ask(&t, &hello, &model);
    server.join().unwrap();
    assert_eq!(outcome.retrieval.strategy, Strategy::Smart);
    assert_eq!(outcome.retrieval.query, None);
    assert_eq!(outcome.chat.strategy, None, "the chat follows its folder");

    // A chat's own strategy wins over its folder's, and an unknown name is refused clearly.
    let chat = t.set_chat_strategy(outcome.chat.id, Some(Strategy::Always)).unwrap();
    assert_eq!(chat.strategy, Some(Strategy::Always));
    let mut again = AskRequest::new("hello");
    again.chat = Some(chat.id);
    let searched = runtime().block_on(t.ask(&again, None, &Cancel::new(), None)).unwrap();
    assert_eq!(searched.retrieval.strategy, Strategy::Always);
    assert!(searched.retrieval.query.is_some());
    t.set_folder_strategy("Corpus", None).unwrap();
    assert_eq!(t.default_strategy(&scope).unwrap(), Strategy::Always);
    let e = "sometimes".parse::<Strategy>().unwrap_err();
    assert!(e.to_string().contains("always, confidence, function or smart"), "{e}");
}

/// An OpenAI stream whose reply is a call of the search tool, its arguments in pieces.
fn openai_call(query: &str) -> Vec<String> {
    let arguments = json!({ "query": query }).to_string();
    let (head, tail) = arguments.split_at(arguments.len() / 2);
    let start = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null, "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "search_documents", "arguments": ""}}]},
        "finish_reason": null}]});
    let piece = |text: &str| {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": text}}]},
            "finish_reason": null}]})
    };
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    vec![
        format!("data: {start}\n\n"),
        format!("data: {}\n\n", piece(head)),
        format!("data: {}\n\n", piece(tail)),
        format!("data: {end}\n\ndata: [DONE]\n\n"),
    ]
}

#[test]
fn function_searches_for_the_query_the_model_calls_with_over_openais_wire_format() {
    let (t, scope) = corpus_library();
    let (url, sent, server) = recording(
        3,
        1,
        |n, _| match n {
            0 => openai_call("copyright waiver Lorem Ipsum"),
            1 => sse_events(&["Jason Schott [1]."], true),
            _ => sse_events(&["You're welcome!"], true),
        },
        "text/event-stream",
    );
    let model = openai(&url);
    let mut request = AskRequest::new(QUESTION);
    request.scope = Some(scope);
    request.strategy = Some(Strategy::Function);
    let outcome = ask(&t, &request, &model);
    assert_eq!(outcome.retrieval.query.as_deref(), Some("copyright waiver Lorem Ipsum"));
    assert_eq!(outcome.answer.kind, AnswerKind::Generated);
    assert!(!outcome.answer.citations.is_empty(), "{:#?}", outcome.answer);

    // The model may also answer at once: nothing is searched.
    let mut thanks = AskRequest::new("Thank you, that is all.");
    thanks.chat = Some(outcome.chat.id);
    let replied = ask(&t, &thanks, &model);
    server.join().unwrap();
    assert_eq!(replied.retrieval.query, None);
    assert_eq!(replied.answer.body, "You're welcome!");

    let sent = sent.lock().unwrap();
    assert_eq!(sent[0]["tools"][0]["function"]["name"], "search_documents");
    assert_eq!(
        sent[0]["tools"][0]["function"]["parameters"]["required"],
        json!(["query"])
    );
    assert!(!has_passages(&sent[0]));
    assert!(
        sent[1].get("tools").is_none(),
        "the answer is asked for without the tool"
    );
    assert!(has_passages(&sent[1]));
}

#[test]
fn function_works_over_ollamas_wire_format_and_with_a_server_that_refuses_tools() {
    let (t, scope) = corpus_library();
    let call = json!({"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "search_documents", "arguments": {"query": "Lorem Ipsum copyright"}}}]},
        "done": false})
    .to_string()
        + "\n";
    let (url, sent, server) = recording(
        2,
        1,
        move |n, _| match n {
            0 => vec![call.clone(), ollama_lines(&[], true).concat()],
            _ => ollama_lines(&["Jason Schott [1]."], true),
        },
        "application/x-ndjson",
    );
    let model: Arc<dyn LanguageModel> = Arc::new(HttpChat::new(ServerApi::Ollama, &url, "m", None, 8192).unwrap());
    let mut request = AskRequest::new(QUESTION);
    request.scope = Some(scope.clone());
    request.strategy = Some(Strategy::Function);
    let outcome = ask(&t, &request, &model);
    server.join().unwrap();
    assert_eq!(outcome.retrieval.query.as_deref(), Some("Lorem Ipsum copyright"));
    assert_eq!(sent.lock().unwrap()[0]["tools"][0]["type"], "function");

    // A model the server runs without tools gets the tool in its prompt, and its call is read
    // from its reply.
    let (url, server) = serve(4, |path, _, body| {
        if let Some(yes) = support_check(path, body, "Yes") {
            return yes;
        }
        if body.get("tools").is_some() {
            return Reply {
                status: 400,
                content_type: "application/json",
                pieces: vec![json!({"error": "registry.ollama.ai/library/m does not support tools"}).to_string()],
                pause: Duration::ZERO,
            };
        }
        let system = body["messages"][0]["content"].as_str().unwrap_or_default();
        let reply = if system.contains("<tools>") {
            "<tool_call>\n{\"name\": \"search_documents\", \"arguments\": {\"query\": \"who waived copyright\"}}\n</tool_call>"
        } else {
            "Jason Schott [1]."
        };
        Reply {
            status: 200,
            content_type: "application/x-ndjson",
            pieces: ollama_lines(&[reply], true),
            pause: Duration::ZERO,
        }
    });
    let model: Arc<dyn LanguageModel> = Arc::new(HttpChat::new(ServerApi::Ollama, &url, "m", None, 8192).unwrap());
    let outcome = ask(&t, &request, &model);
    server.join().unwrap();
    assert_eq!(outcome.retrieval.query.as_deref(), Some("who waived copyright"));
    assert!(!outcome.answer.citations.is_empty(), "{:#?}", outcome.answer);
}

#[test]
fn confidence_gives_the_model_only_passages_that_clearly_bear_on_the_question() {
    let (t, scope) = corpus_library();
    let mut request = AskRequest::new(QUESTION);
    request.scope = Some(scope.clone());
    request.strategy = Some(Strategy::Confidence);
    let rt = runtime();
    let outcome = rt.block_on(t.ask(&request, None, &Cancel::new(), None)).unwrap();
    assert_eq!(outcome.answer.kind, AnswerKind::Extractive);
    assert!(!outcome.answer.citations.is_empty());
    let floor = 0.28 + lectern::answer::CONFIDENCE_MARGIN;
    for citation in &outcome.answer.citations {
        let hit = outcome
            .results
            .hits
            .iter()
            .find(|h| h.document == citation.document && h.page == citation.page)
            .unwrap();
        assert!(hit.components.vector.unwrap() >= floor, "{hit:#?}");
    }
    // The search found passages below that bar, which the answer left out.
    assert!(outcome
        .results
        .hits
        .iter()
        .any(|h| h.components.vector.unwrap_or(0.0) < floor));

    // A question nothing answers clearly: "not found", with the nearest passages.
    request.question = "What colour is the office carpet on the third floor?".into();
    let outcome = rt.block_on(t.ask(&request, None, &Cancel::new(), None)).unwrap();
    assert_eq!(outcome.answer.kind, AnswerKind::NotFound, "{:#?}", outcome.answer);
}
