//! `lectern serve` over real HTTP on the loopback interface: the token is required, the library
//! and its folders are models, search keeps to a model's scope, embeddings are the library's
//! model's, errors come in the OpenAI API's shape, and bodies are bounded.

use reqwest::blocking::Client;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::common::{index_small_corpus, library, runtime, write_text_pdf};

#[test]
fn the_library_is_served_to_other_programs_behind_its_token() {
    let t = library();
    index_small_corpus(&t);
    t.create_folder("Other").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("memo.pdf");
    write_text_pdf(&memo, &["The lighthouse keeper lit the lamp at dusk"]);
    t.add(&[memo], "Other").unwrap();
    crate::common::index_all(&t);

    let token = lectern::serve::api_token(t.home.path()).unwrap();
    let rt = runtime();
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    rt.spawn(lectern::serve::serve(t.library.clone(), listener));
    let mode = std::fs::metadata(t.home.path().join(lectern::serve::TOKEN_FILE)).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o600
    );
    let http = Client::new();
    let get = |path: &str, token: &str| http.get(format!("{base}{path}")).bearer_auth(token).send().unwrap();
    let post = |path: &str, body: Value| {
        http.post(format!("{base}{path}"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .unwrap()
    };

    // Without the token, or with another, nothing is served.
    let refused = http.get(format!("{base}/models")).send().unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(refused.json::<Value>().unwrap()["error"]["code"], "invalid_api_key");
    assert_eq!(get("/models", "lectern-wrong").status(), StatusCode::UNAUTHORIZED);
    assert!(refused_cross_origin(&http, &base));

    let models: Value = get("/models", &token).json().unwrap();
    let ids: Vec<&str> = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"lectern") && ids.contains(&"lectern/Corpus") && ids.contains(&"lectern/Other"),
        "{ids:?}"
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

    // The cited document's PDF, for a client to show.
    let pdf = get(
        &format!("/documents/{}/pdf", hits[0]["document"].as_str().unwrap()),
        &token,
    );
    assert_eq!(pdf.headers()["content-type"], "application/pdf");
    assert!(pdf.bytes().unwrap().starts_with(b"%PDF"));

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
    let huge = post("/search", json!({ "query": "x".repeat(2 << 20) }));
    assert_eq!(huge.status(), StatusCode::PAYLOAD_TOO_LARGE);

    // A rotated token replaces the old one at once.
    let rotated = lectern::serve::rotate_api_token(t.home.path()).unwrap();
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
