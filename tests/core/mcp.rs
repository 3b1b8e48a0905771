//! The MCP server with the official Rust SDK's client: over standard input and output (`lectern
//! mcp`, started by the client) it lists its tools, and each one answers with the documents and
//! pages to cite; over streamable HTTP it needs a token, and one limited to a folder reaches
//! nothing outside it. Each call is logged with its scope.

use rmcp::model::{object, CallToolRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

use crate::common::{database_env, models_dir};
use crate::serve::{answer_extractively, Served};

type Client = RunningService<RoleClient, ()>;

/// Calls `tool` with `arguments`: whether it failed, and its text (read as JSON when it is).
async fn call(client: &Client, tool: &'static str, arguments: Value) -> (bool, Value) {
    let result = client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(object(arguments)))
        .await
        .unwrap();
    let text: String = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect();
    let failed = result.is_error == Some(true);
    (failed, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[test]
fn an_mcp_client_over_standard_input_calls_each_tool_and_reads_what_to_cite() {
    let served = Served::new();
    let t = &served.t;
    answer_extractively(t);
    served.rt.block_on(async {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lectern"));
        command
            .arg("--home")
            .arg(t.home.path())
            .envs(database_env(t.home.path()))
            .arg("mcp")
            .env("LECTERN_MODELS", models_dir())
            .env("LECTERN_KEYRING", "off");
        let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
        let info = client.peer_info().unwrap();
        assert_eq!(info.server_info.as_ref().unwrap().name, "lectern");
        let mut tools: Vec<String> = client
            .list_tools(None)
            .await
            .unwrap()
            .tools
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        tools.sort();
        assert_eq!(
            tools,
            [
                "add_documents",
                "ask",
                "get_context",
                "job_status",
                "list_documents",
                "list_folders",
                "read_page",
                "read_passage",
                "search_documents"
            ]
        );

        let (failed, found) = call(
            &client,
            "search_documents",
            json!({ "query": "lighthouse keeper lamp", "k": 3 }),
        )
        .await;
        assert!(!failed, "{found}");
        let best = &found["passages"][0];
        assert_eq!(best["document"], "memo.pdf", "{found}");
        assert_eq!(best["page"], 1);
        let (document, chunk) = (best["document_id"].clone(), best["chunk_id"].clone());

        let (_, passage) = call(
            &client,
            "read_passage",
            json!({ "document": document, "chunk_id": chunk }),
        )
        .await;
        assert_eq!(passage["text"], best["text"], "{passage}");
        let (_, page) = call(&client, "read_page", json!({ "document": document, "page": 1 })).await;
        let text = page["text"].as_str().unwrap();
        assert!(text.contains("lighthouse keeper lit the lamp"), "{page}");
        let (missing, why) = call(&client, "read_page", json!({ "document": document, "page": 9 })).await;
        assert!(missing);
        assert!(why.as_str().unwrap().contains("no page 9 (it has 1)"), "{why}");

        let (failed, window) = call(
            &client,
            "get_context",
            json!({ "query": "lighthouse keeper lamp", "folder": "Other", "max_tokens": 200 }),
        )
        .await;
        assert!(!failed, "{window}");
        assert_eq!(window["passages"][0]["document"], best["document_id"], "{window}");
        assert!(
            window["text"].as_str().unwrap().starts_with("[1] memo.pdf, page 1"),
            "{window}"
        );
        assert!(window["tokens"].as_u64().unwrap() <= 200, "{window}");

        let (_, answer) = call(
            &client,
            "ask",
            json!({ "question": "Who lit the lamp?", "folder": "Other" }),
        )
        .await;
        assert!(answer["answer"].as_str().unwrap().contains("[^1]"), "{answer}");
        assert_eq!(answer["citations"][0]["document_name"], "memo.pdf");
        assert_eq!(answer["citations"][0]["page"], 1);
        assert_eq!(answer["retrieval"]["strategy"], "always");
        let (_, confident) = call(
            &client,
            "ask",
            json!({ "question": "Who lit the lamp?", "folder": "Other", "strategy": "confidence" }),
        )
        .await;
        assert_eq!(confident["retrieval"]["strategy"], "confidence", "{confident}");
        let (failed, refused) = call(
            &client,
            "ask",
            json!({ "question": "Who lit the lamp?", "strategy": "sometimes" }),
        )
        .await;
        assert!(
            failed && refused.to_string().contains("always, confidence, function or smart"),
            "{refused}"
        );

        let (_, folders) = call(&client, "list_folders", json!({})).await;
        let paths: Vec<&str> = folders["folders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert!(paths.contains(&"Corpus") && paths.contains(&"Other"), "{folders}");
        let (_, documents) = call(&client, "list_documents", json!({ "folder": "Other" })).await;
        assert_eq!(documents["documents"].as_array().unwrap().len(), 1, "{documents}");
        assert_eq!(documents["documents"][0]["name"], "memo.pdf");

        // A PDF added as a job, indexed by the MCP server's process, followed by its id.
        let dir = tempfile::tempdir().unwrap();
        let note = dir.path().join("note.pdf");
        crate::common::write_text_pdf(&note, &["The harbour master rang the bell at noon"]);
        let (failed, job) = call(&client, "add_documents", json!({ "paths": [note], "folder": "Other" })).await;
        assert!(!failed, "{job}");
        assert_eq!(job["documents"], 1, "{job}");
        let id = job["id"].clone();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let status = loop {
            let (_, status) = call(&client, "job_status", json!({ "job": id, "log_after": 0 })).await;
            if status["state"] == "done" {
                break status;
            }
            assert!(std::time::Instant::now() < deadline, "{status}");
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        };
        assert_eq!(status["done"], 1, "{status}");
        let log = status["log"].as_array().unwrap();
        assert!(
            log.last().unwrap()["message"].as_str().unwrap().starts_with("Done"),
            "{status}"
        );
        let (missing, why) = call(&client, "job_status", json!({ "job": "job-nothing" })).await;
        assert!(missing && why.as_str().unwrap().contains("no job"), "{why}");
        client.cancel().await.unwrap();
    });
    let log = t.api_requests(50).unwrap();
    assert!(log
        .iter()
        .any(|r| r.path == "tools/ask" && r.scope == "folder Other" && r.holder.starts_with("mcp")));
}

#[test]
fn over_http_a_token_limited_to_a_folder_reaches_nothing_else() {
    let served = Served::new();
    let t = &served.t;
    let (_, limited) = t.create_api_token("agent", &["Other".to_string()]).unwrap();
    let endpoint = format!("{}/mcp", served.base.trim_end_matches("/v1"));
    let corpus = served.documents_in("Corpus");
    served.rt.block_on(async {
        let refused = ().serve(StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(endpoint.clone()).auth_header("lectern-wrong"),
        ));
        assert!(refused.await.is_err(), "a wrong token was let in");

        let client = ()
            .serve(StreamableHttpClientTransport::from_config(
                StreamableHttpClientTransportConfig::with_uri(endpoint).auth_header(limited),
            ))
            .await
            .unwrap();
        for words in [
            "lorem ipsum dolor",
            "multicolumn text columns",
            "LibreOffice Writer document",
        ] {
            let (_, found) = call(&client, "search_documents", json!({ "query": words, "k": 50 })).await;
            let passages = found["passages"].as_array().unwrap();
            assert!(passages.iter().all(|p| p["document"] == "memo.pdf"), "{found}");
        }
        let (_, folders) = call(&client, "list_folders", json!({})).await;
        assert_eq!(folders["folders"].as_array().unwrap().len(), 1, "{folders}");
        assert_eq!(folders["folders"][0]["path"], "Other");
        let (_, documents) = call(&client, "list_documents", json!({})).await;
        assert_eq!(documents["documents"].as_array().unwrap().len(), 1, "{documents}");
        let (failed, why) = call(
            &client,
            "search_documents",
            json!({ "query": "lorem", "folder": "Corpus" }),
        )
        .await;
        assert!(
            failed && why.as_str().unwrap().contains("no folder \"Corpus\""),
            "{why}"
        );
        for doc in &corpus {
            let id = doc.id.to_string();
            let (failed, why) = call(&client, "read_page", json!({ "document": id, "page": 1 })).await;
            assert!(failed && why.as_str().unwrap().contains("no document"), "{why}");
        }
        // Files on the server's machine are not its to add, even into its own folder.
        let (failed, why) = call(
            &client,
            "add_documents",
            json!({ "paths": [crate::common::corpus_dir()], "folder": "Other" }),
        )
        .await;
        assert!(failed && why.as_str().unwrap().contains("library's own token"), "{why}");
        client.cancel().await.unwrap();
    });
    let log = t.api_requests(100).unwrap();
    assert!(log
        .iter()
        .any(|r| r.holder == "agent" && r.path == "tools/search_documents" && r.scope == "folder Other"));
    // Refused requests are not kept: a stranger cannot flood the log.
    assert!(log.iter().all(|r| r.status != 401), "{log:?}");
}

#[test]
fn over_http_a_web_page_or_a_rebound_host_is_refused() {
    let served = Served::new();
    let token = served.t.api_token().unwrap();
    let endpoint = format!("{}/mcp", served.base.trim_end_matches("/v1"));
    let http = reqwest::blocking::Client::new();
    let list = |origin: Option<&str>, host: Option<&str>| {
        let mut request = http
            .post(&endpoint)
            .bearer_auth(&token)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-06-18")
            .json(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }));
        if let Some(origin) = origin {
            request = request.header("Origin", origin);
        }
        if let Some(host) = host {
            request = request.header("Host", host);
        }
        request.send().unwrap().status()
    };
    assert!(list(None, None).is_success());
    assert_eq!(list(Some("https://evil.example"), None), reqwest::StatusCode::FORBIDDEN);
    assert_eq!(list(None, Some("evil.example")), reqwest::StatusCode::FORBIDDEN);
}
