//! `lectern serve` over real HTTP on the loopback interface: the token is required, the library
//! and its folders are models, search and answers keep to a model's scope, a token limited to a
//! folder sees nothing outside it, answers stream as OpenAI's do with their citations,
//! embeddings are the library's model's, errors come in the OpenAI API's shape, bodies are
//! bounded, and every request is logged with its scope.

use reqwest::blocking::Client;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::{index_small_corpus, library, runtime, write_text_pdf, TestLibrary};

/// A library with the small corpus in "Corpus" and a memo in "Other", served on a free port of
/// the loopback interface.
pub struct Served {
    pub t: TestLibrary,
    pub rt: tokio::runtime::Runtime,
    /// `http://127.0.0.1:PORT/v1`.
    pub base: String,
    http: Client,
}

impl Served {
    pub fn new() -> Served {
        let t = library();
        index_small_corpus(&t);
        t.create_folder("Other").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let memo = dir.path().join("memo.pdf");
        write_text_pdf(&memo, &["The lighthouse keeper lit the lamp at dusk"]);
        t.add(&[memo], "Other").unwrap();
        crate::common::index_all(&t);
        let rt = runtime();
        let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        rt.spawn(lectern_serve::serve(t.library.clone(), listener));
        Served {
            t,
            rt,
            base,
            http: Client::new(),
        }
    }

    fn get(&self, path: &str, token: &str) -> reqwest::blocking::Response {
        self.http
            .get(format!("{}{path}", self.base))
            .bearer_auth(token)
            .send()
            .unwrap()
    }

    fn post(&self, path: &str, token: &str, body: Value) -> reqwest::blocking::Response {
        self.http
            .post(format!("{}{path}", self.base))
            .bearer_auth(token)
            .json(&body)
            .send()
            .unwrap()
    }

    /// The ids of the models `token` sees.
    fn models(&self, token: &str) -> Vec<String> {
        let models: Value = self.get("/models", token).json().unwrap();
        models["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect()
    }

    /// The documents of the library's folder `folder`.
    pub fn documents_in(&self, folder: &str) -> Vec<lectern::Document> {
        self.t.documents(Some(folder), true).unwrap()
    }
}

#[test]
fn callers_making_the_first_token_at_once_all_get_the_one_kept() {
    let t = library();
    let tokens: Vec<String> = std::thread::scope(|s| {
        let callers: Vec<_> = (0..8).map(|_| s.spawn(|| t.api_token().unwrap())).collect();
        callers.into_iter().map(|c| c.join().unwrap()).collect()
    });
    let kept = t.api_token().unwrap();
    assert!(tokens.iter().all(|token| *token == kept), "{tokens:?} against {kept}");
    assert_ne!(t.rotate_api_token().unwrap(), kept, "a rotation replaces it");
}

#[test]
fn the_library_is_served_to_other_programs_behind_its_token() {
    let served = Served::new();
    let (t, rt, base, http) = (&served.t, &served.rt, &served.base, &served.http);
    let token = t.api_token().unwrap();
    let mode = std::fs::metadata(t.home.path().join(lectern::TOKEN_FILE)).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o600
    );
    let get = |path: &str, token: &str| served.get(path, token);
    let post = |path: &str, body: Value| served.post(path, &token, body);

    // Without the token, or with another, nothing is served.
    let refused = http.get(format!("{base}/models")).send().unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(refused.json::<Value>().unwrap()["error"]["code"], "invalid_api_key");
    assert_eq!(get("/models", "lectern-wrong").status(), StatusCode::UNAUTHORIZED);
    assert!(refused_cross_origin(http, base));

    assert_eq!(
        served.models(&token),
        [
            "lectern",
            "lectern/Corpus",
            "lectern/Other",
            "lectern/Personal Knowledge"
        ]
    );

    // A folder's model searches that folder only.
    let found: Value = post(
        "/search",
        json!({ "model": "lectern/Other", "query": "lighthouse keeper lamp", "k": 5 }),
    )
    .json()
    .unwrap();
    let hits = found["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{found}");
    assert!(hits.iter().all(|h| h["document_name"] == "memo.pdf"), "{found}");
    let everywhere: Value = post(
        "/search",
        json!({ "query": "lighthouse keeper lamp", "mode": "keyword" }),
    )
    .json()
    .unwrap();
    assert_eq!(everywhere["hits"][0]["document_name"], "memo.pdf", "{everywhere}");

    // The cited document's PDF and the page's stored text, for a client to show.
    let memo = hits[0]["document"].as_str().unwrap();
    let pdf = get(&format!("/documents/{memo}/pdf"), &token);
    assert_eq!(pdf.headers()["content-type"], "application/pdf");
    assert!(pdf.bytes().unwrap().starts_with(b"%PDF"));
    let page: Value = get(&format!("/documents/{memo}/pages/1"), &token).json().unwrap();
    let text = page["text"].as_str().unwrap();
    let (start, end) = (
        hits[0]["char_start"].as_u64().unwrap(),
        hits[0]["char_end"].as_u64().unwrap(),
    );
    let cited: String = text.chars().skip(start as usize).take((end - start) as usize).collect();
    assert_eq!(cited, hits[0]["text"].as_str().unwrap(), "{page}");
    assert_eq!(page["pages"], 1);
    let beyond = get(&format!("/documents/{memo}/pages/2"), &token);
    assert_eq!(beyond.status(), StatusCode::NOT_FOUND);
    assert!(beyond.text().unwrap().contains("no page 2 (it has 1)"));

    // Embeddings are the library's model's, as it embeds a question.
    let embedded: Value = post(
        "/embeddings",
        json!({ "model": "lectern", "input": ["lamp at dusk", "keeper"] }),
    )
    .json()
    .unwrap();
    let first: Vec<f32> = serde_json::from_value(embedded["data"][0]["embedding"].clone()).unwrap();
    assert_eq!(embedded["data"].as_array().unwrap().len(), 2);
    assert_eq!(first, rt.block_on(t.embed_query("lamp at dusk")).unwrap());

    // Errors say what is wrong, in the shape OpenAI's clients read.
    let unknown = post("/search", json!({ "model": "lectern/Nowhere", "query": "lamp" }));
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(unknown.json::<Value>().unwrap()["error"]["code"], "model_not_found");
    assert_eq!(
        post("/search", json!({ "query": "lamp", "k": 0 })).status(),
        StatusCode::BAD_REQUEST
    );
    // On a connection of its own: the server stops reading a body past its limit and closes
    // the connection after replying, which a pooled connection's next request could meet.
    let huge = Client::new()
        .post(format!("{base}/search"))
        .bearer_auth(&token)
        .json(&json!({ "query": "x".repeat(2 << 20) }))
        .send()
        .unwrap();
    assert_eq!(huge.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(huge.json::<Value>().unwrap()["error"]["message"].is_string());
    let unreadable = post("/search", json!({ "query": "lamp", "mode": "psychic" }));
    assert_eq!(unreadable.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(unreadable.json::<Value>().unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("mode"));
    let tokens = post("/embeddings", json!({ "model": "lectern", "input": [[1, 2, 3]] }));
    assert_eq!(tokens.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        get(&format!("/documents/{memo}/pages/two"), &token).status(),
        StatusCode::BAD_REQUEST
    );

    // A rotated token replaces the old one at once.
    let rotated = t.rotate_api_token().unwrap();
    assert_ne!(rotated, token);
    assert_eq!(get("/models", &token).status(), StatusCode::UNAUTHORIZED);
    assert_eq!(get("/models", &rotated).status(), StatusCode::OK);
}

/// A web page's preflight gets no CORS header, so no browser lets a page read the library.
fn refused_cross_origin(http: &Client, base: &str) -> bool {
    let reply = http
        .request(reqwest::Method::OPTIONS, format!("{base}/search"))
        .header("Origin", "https://example.com")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .unwrap();
    reply.headers().get("access-control-allow-origin").is_none()
}

/// Each `data:` payload of a server-sent event stream, in order.
fn events(stream: &str) -> Vec<String> {
    stream
        .split("\n\n")
        .filter_map(|event| event.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(str::to_string)
        .collect()
}

/// Answers from the passages themselves: no language model to install for a test.
pub fn answer_extractively(t: &TestLibrary) {
    t.save_settings(&lectern::Settings {
        backend: lectern::BackendKind::Extractive,
        ..lectern::Settings::default()
    })
    .unwrap();
}

#[test]
fn answers_come_as_openai_chat_completions_streamed_or_not_with_their_citations() {
    let served = Served::new();
    let t = &served.t;
    let token = t.api_token().unwrap();
    answer_extractively(t);
    let chats_before = t.chats().unwrap().len();
    let question = json!({
        "model": "lectern/Other",
        "messages": [
            { "role": "system", "content": "You are a helpful assistant." },
            { "role": "user", "content": "Who lit the lamp?" },
        ],
    });

    let reply = served.post("/chat/completions", &token, question.clone());
    assert_eq!(reply.status(), StatusCode::OK);
    let completion: Value = reply.json().unwrap();
    assert_eq!(completion["object"], "chat.completion");
    assert_eq!(completion["model"], "lectern/Other");
    let choice = &completion["choices"][0];
    assert_eq!(choice["message"]["role"], "assistant");
    assert_eq!(choice["finish_reason"], "stop");
    let content = choice["message"]["content"].as_str().unwrap();
    assert!(
        content.contains("[^1]") && content.contains("lighthouse keeper"),
        "{content}"
    );
    let citation = &completion["citations"][0];
    assert_eq!(citation["document_name"], "memo.pdf");
    assert_eq!(citation["page"], 1);
    let page: Value = served
        .get(
            &format!("/documents/{}/pages/1", citation["document"].as_str().unwrap()),
            &token,
        )
        .json()
        .unwrap();
    let (start, end) = (
        citation["char_start"].as_u64().unwrap(),
        citation["char_end"].as_u64().unwrap(),
    );
    let quoted: String = page["text"]
        .as_str()
        .unwrap()
        .chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect();
    assert_eq!(quoted, citation["quote"].as_str().unwrap());
    assert_eq!(completion["retrieval"]["strategy"], "always");
    assert_eq!(completion["retrieval"]["query"], "Who lit the lamp?");

    // Lectern's own options choose when to search; a strategy it does not know is refused.
    let mut confident = question.clone();
    confident["lectern"] = json!({ "strategy": "confidence" });
    let reply: Value = served.post("/chat/completions", &token, confident).json().unwrap();
    assert_eq!(reply["retrieval"]["strategy"], "confidence", "{reply}");
    let mut unknown = question.clone();
    unknown["lectern"] = json!({ "strategy": "sometimes" });
    let reply = served.post("/chat/completions", &token, unknown);
    assert_eq!(reply.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refused = reply.text().unwrap();
    assert!(refused.contains("sometimes") && refused.contains("smart"), "{refused}");

    // Streamed: the same answer in pieces, the citations in the last chunk, then [DONE].
    let mut streamed = question.clone();
    streamed["stream"] = json!(true);
    let reply = served.post("/chat/completions", &token, streamed);
    assert_eq!(reply.status(), StatusCode::OK);
    assert!(reply.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let payloads = events(&reply.text().unwrap());
    assert_eq!(payloads.last().map(String::as_str), Some("[DONE]"));
    let chunks: Vec<Value> = payloads[..payloads.len() - 1]
        .iter()
        .map(|p| serde_json::from_str(p).unwrap())
        .collect();
    assert!(chunks.iter().all(|c| c["object"] == "chat.completion.chunk"));
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let text: String = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, content);
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert_eq!(last["citations"], completion["citations"]);
    assert_eq!(last["retrieval"], completion["retrieval"]);

    // The conversation before the question is read with it; nothing is kept as a chat.
    let followup = json!({
        "model": "lectern",
        "messages": [
            { "role": "user", "content": "Who lit the lamp?" },
            { "role": "assistant", "content": content },
            { "role": "user", "content": [{ "type": "text", "text": "And when did the keeper light it?" }] },
        ],
    });
    let reply: Value = served.post("/chat/completions", &token, followup).json().unwrap();
    assert_eq!(reply["citations"][0]["document_name"], "memo.pdf", "{reply}");
    assert_eq!(t.chats().unwrap().len(), chats_before);

    // A question that cannot be answered is an error reply, streamed or not.
    let no_question = served.post(
        "/chat/completions",
        &token,
        json!({ "model": "lectern", "messages": [{ "role": "assistant", "content": "Hello" }] }),
    );
    assert_eq!(no_question.status(), StatusCode::BAD_REQUEST);
    let nowhere = served.post(
        "/chat/completions",
        &token,
        json!({ "model": "lectern/Nowhere", "stream": true, "messages": [{ "role": "user", "content": "lamp?" }] }),
    );
    assert_eq!(nowhere.status(), StatusCode::NOT_FOUND);
    assert_eq!(nowhere.json::<Value>().unwrap()["error"]["code"], "model_not_found");

    // A question that points at one document without naming it, over four, is refused with the
    // likeliest documents named; over one document it is answered.
    let which = |model: &str| json!({ "model": model, "messages": [{ "role": "user", "content": "What is on the first page of this document?" }] });
    let reply = served.post("/chat/completions", &token, which("lectern"));
    assert_eq!(reply.status(), StatusCode::BAD_REQUEST);
    let error: Value = reply.json().unwrap();
    assert_eq!(error["error"]["code"], "which_document", "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("4 documents") && message.contains("(in "), "{message}");
    let reply: Value = served
        .post("/chat/completions", &token, which("lectern/Other"))
        .json()
        .unwrap();
    assert_eq!(reply["citations"][0]["document_name"], "memo.pdf", "{reply}");
}

#[test]
fn a_token_limited_to_a_folder_never_sees_another() {
    let served = Served::new();
    let t = &served.t;
    answer_extractively(t);
    // A folder whose path starts as the token's does is another folder.
    t.create_folder("Otherwise").unwrap();
    let (made, limited) = t.create_api_token("notes app", &["Other".to_string()]).unwrap();
    assert_eq!(made.name, "notes app");
    assert_ne!(limited, t.api_token().unwrap());
    assert_eq!(served.models(&limited), ["lectern", "lectern/Other"]);
    let sibling = served.post(
        "/search",
        &limited,
        json!({ "model": "lectern/Otherwise", "query": "lamp" }),
    );
    assert_eq!(sibling.status(), StatusCode::NOT_FOUND);

    // Every search, whatever its words, finds passages of "Other" only.
    let corpus = served.documents_in("Corpus");
    let corpus_words = [
        "lorem ipsum dolor",
        "multicolumn text columns",
        "LibreOffice Writer document",
    ];
    for (model, mode) in [
        ("lectern", "keyword"),
        ("lectern", "hybrid"),
        ("lectern/Other", "vector"),
    ] {
        for words in corpus_words {
            let found: Value = served
                .post(
                    "/search",
                    &limited,
                    json!({ "model": model, "query": words, "mode": mode, "k": 100 }),
                )
                .json()
                .unwrap();
            let hits = found["hits"].as_array().unwrap();
            assert!(hits.iter().all(|h| h["document_name"] == "memo.pdf"), "{found}");
        }
    }
    // The same words with the library's token do find the corpus: the limit is what hid it.
    let open: Value = served
        .post(
            "/search",
            &t.api_token().unwrap(),
            json!({ "query": corpus_words[0], "mode": "keyword" }),
        )
        .json()
        .unwrap();
    assert_ne!(open["hits"][0]["document_name"], "memo.pdf", "{open}");

    // Answers too; another folder's model, PDF or page is not found, as if it did not exist.
    let answer: Value = served
        .post(
            "/chat/completions",
            &limited,
            json!({ "model": "lectern", "messages": [{ "role": "user", "content": corpus_words[0] }] }),
        )
        .json()
        .unwrap();
    let citations = answer["citations"].as_array().unwrap();
    assert!(citations.iter().all(|c| c["document_name"] == "memo.pdf"), "{answer}");
    let denied = served.post(
        "/search",
        &limited,
        json!({ "model": "lectern/Corpus", "query": "lorem" }),
    );
    assert_eq!(denied.status(), StatusCode::NOT_FOUND);
    for doc in &corpus {
        let id = doc.id.to_string();
        // Neither the whole id nor a prefix of it finds another folder's document.
        for path in [
            format!("/documents/{id}/pdf"),
            format!("/documents/{id}/pages/1"),
            format!("/documents/{}/pdf", &id[..8]),
        ] {
            assert_eq!(served.get(&path, &limited).status(), StatusCode::NOT_FOUND, "{path}");
        }
    }
    // Its own document is found by a prefix.
    let memo = served.documents_in("Other")[0].id.to_string();
    let own = served.get(&format!("/documents/{}/pages/1", &memo[..8]), &limited);
    assert_eq!(own.status(), StatusCode::OK);

    // The log says who asked what, over which scope, and never the words.
    let log = t.api_requests(100).unwrap();
    assert!(log
        .iter()
        .any(|r| r.holder == "notes app" && r.path == "/v1/search" && r.scope == "folder Other" && r.status == 200));
    assert!(log
        .iter()
        .any(|r| r.holder == "notes app" && r.path == "/v1/search" && r.status == 404));
    assert!(log.iter().any(|r| r.holder == "library" && r.scope == "library"));
    let logged = serde_json::to_string(&log).unwrap();
    assert!(corpus_words.iter().all(|w| !logged.contains(w)), "{logged}");

    // A token whose folders are all deleted sees nothing; a removed one is refused.
    t.delete_folder("Other", lectern::DeleteMode::DeleteDocuments).unwrap();
    assert!(served.models(&limited).is_empty());
    let nothing = served.post("/search", &limited, json!({ "query": "lorem" }));
    assert_eq!(nothing.status(), StatusCode::FORBIDDEN);
    let embedded = served.post("/embeddings", &limited, json!({ "model": "lectern", "input": "lamp" }));
    assert_eq!(embedded.status(), StatusCode::FORBIDDEN);
    t.remove_api_token("notes app").unwrap();
    assert_eq!(served.get("/models", &limited).status(), StatusCode::UNAUTHORIZED);
}

/// Where `scripts/test.sh` installs the `openai` Python package (beside the models).
fn python_packages() -> std::path::PathBuf {
    let dir = crate::common::models_dir().join("python-packages");
    assert!(
        dir.join("openai").is_dir(),
        "the openai Python package is not installed in {}; run scripts/test.sh",
        dir.display()
    );
    dir
}

#[test]
fn the_openai_python_client_reads_the_library() {
    let served = Served::new();
    let t = &served.t;
    answer_extractively(t);
    let dimension = served.rt.block_on(t.embed_query("lamp")).unwrap().len();
    let script = crate::common::repository().join("tests/clients/openai_client.py");
    let run = std::process::Command::new("python3")
        .arg(script)
        .args([
            &served.base,
            &t.api_token().unwrap(),
            "lectern/Other",
            &dimension.to_string(),
        ])
        .env("PYTHONPATH", python_packages())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
}

/// A stand-in for a remote OpenAI-compatible model server (the wire protocol, on loopback): it
/// answers every chat with `pieces`, streamed with `pause` between them; other paths are not
/// found. Serves until the test ends.
fn slow_model_server(pieces: &'static [&'static str], pause: std::time::Duration) -> String {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            std::thread::spawn(move || {
                let (path, _, _) = crate::common::read_request(&stream);
                if !path.ends_with("/chat/completions") {
                    let _ = stream.write_all(b"HTTP/1.1 404 X\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
                    return;
                }
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n");
                for piece in pieces {
                    let chunk =
                        json!({ "choices": [{ "index": 0, "delta": { "content": piece }, "finish_reason": null }] });
                    if stream.write_all(format!("data: {chunk}\n\n").as_bytes()).is_err() {
                        return;
                    }
                    std::thread::sleep(pause);
                }
                let last = json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] });
                let _ = stream.write_all(format!("data: {last}\n\ndata: [DONE]\n\n").as_bytes());
            });
        }
    });
    url
}

#[test]
fn searches_are_served_while_an_answer_streams() {
    let served = Served::new();
    let t = &served.t;
    const PIECES: &[&str] = &["The ", "keeper ", "lit ", "the ", "lamp ", "at ", "dusk ", "[^1]", "."];
    t.save_settings(&lectern::Settings {
        backend: lectern::BackendKind::Openai,
        model: Some("slow".into()),
        url: Some(slow_model_server(PIECES, std::time::Duration::from_millis(300))),
        ..lectern::Settings::default()
    })
    .unwrap();
    let token = t.api_token().unwrap();
    let started = std::time::Instant::now();
    let streaming = std::thread::scope(|scope| {
        let answer = scope.spawn(|| {
            let reply = served.post(
                "/chat/completions",
                &token,
                json!({ "model": "lectern/Other", "stream": true, "messages": [{ "role": "user", "content": "Who lit the lamp?" }] }),
            );
            let text = reply.text().unwrap();
            (text, started.elapsed())
        });
        // Searches meanwhile, each answered while the answer is still being written.
        std::thread::sleep(std::time::Duration::from_millis(600));
        let mut searched = Vec::new();
        for _ in 0..3 {
            let found: Value = served
                .post(
                    "/search",
                    &token,
                    json!({ "query": "lighthouse keeper", "mode": "keyword" }),
                )
                .json()
                .unwrap();
            assert_eq!(found["hits"][0]["document_name"], "memo.pdf");
            searched.push(started.elapsed());
        }
        let (text, answered) = answer.join().unwrap();
        (text, answered, searched)
    });
    let (text, answered, searched) = streaming;
    assert!(
        searched.iter().all(|at| *at < answered),
        "{searched:?} against {answered:?}"
    );
    let content: String = events(&text)
        .iter()
        .filter(|p| *p != "[DONE]")
        .filter_map(|p| serde_json::from_str::<Value>(p).ok())
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str().map(str::to_string))
        .collect();
    assert!(
        content.starts_with("The keeper lit the lamp at dusk [^1]."),
        "{content}"
    );
}

/// `POST /v1/context`: the best passages for a query that fit `max_tokens`, packed as an answer's
/// prompt packs them, counted by a model's tokenizer or by the stated estimate, `truncated`
/// when a passage found was left out; the passages are those an answer's search finds, in its
/// order.
#[test]
fn a_context_window_packs_the_best_passages_into_the_tokens_asked_for() {
    let served = Served::new();
    let token = served.t.api_token().unwrap();
    let context = |body: Value| -> Value {
        let reply = served.post("/context", &token, body);
        assert_eq!(reply.status(), StatusCode::OK);
        reply.json().unwrap()
    };
    let query = "lorem ipsum dolor sit amet";
    let roomy = context(json!({ "model": "lectern/Corpus", "query": query, "max_tokens": 20000 }));
    let passages = roomy["passages"].as_array().unwrap();
    assert!(passages.len() >= 2, "{roomy}");
    assert_eq!(roomy["truncated"], false, "{roomy}");
    assert!(roomy["counted_with"].as_str().unwrap().contains("estimate"), "{roomy}");
    let text = roomy["text"].as_str().unwrap();
    for (i, p) in passages.iter().enumerate() {
        assert_eq!(p["label"], i + 1);
        let header = format!(
            "[{}] {}, page {}",
            i + 1,
            p["document_name"].as_str().unwrap(),
            p["page"]
        );
        assert!(text.contains(&header), "{header} in {text}");
        assert!(text.contains(p["text"].as_str().unwrap().trim()), "{p}");
    }
    let estimate = text.chars().count().div_ceil(4);
    assert!(roomy["tokens"].as_u64().unwrap() as usize >= estimate, "{roomy}");

    // The same passages as an answer's search finds, in its order.
    let request = lectern::search::SearchRequest {
        query: query.into(),
        scope: lectern::catalog::Scope {
            folders: vec![served.t.folder("Corpus").unwrap().id],
            ..Default::default()
        },
        k: 10,
        mode: lectern::search::SearchMode::Hybrid,
        second_stage: false,
    };
    let found = served.rt.block_on(served.t.search(&request)).unwrap();
    let first = &found.hits[0];
    assert_eq!(
        (
            passages[0]["document"].as_str().unwrap(),
            passages[0]["page"].as_u64().unwrap()
        ),
        (first.document.to_string().as_str(), u64::from(first.page))
    );

    // Little room: fewer passages, within it, and said to be cut.
    let tight = context(json!({ "model": "lectern/Corpus", "query": query, "max_tokens": 150 }));
    assert!(tight["tokens"].as_u64().unwrap() <= 150, "{tight}");
    assert!(tight["passages"].as_array().unwrap().len() < passages.len(), "{tight}");
    assert_eq!(tight["truncated"], true, "{tight}");

    // Counted by the tokenizer of an installed chat model.
    let counted =
        context(json!({ "model": "lectern/Corpus", "query": query, "max_tokens": 150, "tokenizer": "smollm2-135m" }));
    assert_eq!(counted["counted_with"], "smollm2-135m's tokenizer", "{counted}");
    assert!(counted["tokens"].as_u64().unwrap() <= 150, "{counted}");

    let refused = served.post("/context", &token, json!({ "query": query, "max_tokens": 0 }));
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
}
