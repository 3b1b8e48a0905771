//! Embedders: the in-process model agrees with sentence-transformers, and the HTTP clients speak the
//! Ollama and OpenAI wire formats (against a local server), with errors a person can act on.

use std::io::Write;
use std::net::TcpListener;
use std::thread::JoinHandle;

use lectern::embed::{EmbedError, Embedder, HttpEmbedder, MiniLm, Parallelism, Precision, MINILM_DIR};
use lectern::model_server::ServerApi;

use crate::common::{models_dir, read_request};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Texts and their vectors as sentence-transformers computes them with the f32 model
/// (`minilm-reference.json`, written by `scripts/bench_sentence_transformers.py --reference`).
#[derive(serde::Deserialize)]
struct Reference {
    runtime: String,
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

fn minilm(precision: Precision) -> MiniLm {
    let one = Parallelism {
        sessions: 1,
        threads: 1,
    };
    MiniLm::load(&models_dir().join(MINILM_DIR), one, precision).unwrap()
}

/// The lowest cosine of `precision`'s vectors with sentence-transformers' f32 ones, and the
/// runtime that made those.
fn agreement_with_sentence_transformers(precision: Precision) -> (f32, String) {
    let reference: Reference =
        serde_json::from_str(include_str!("minilm-reference.json")).expect("the reference vectors are JSON");
    let model = minilm(precision);
    assert_eq!(model.dimension(), 384);
    assert!(
        model.id().starts_with(&format!("all-MiniLM-L6-v2/{precision}/")),
        "{}",
        model.id()
    );
    let texts: Vec<&str> = reference.texts.iter().map(String::as_str).collect();
    let vectors = model.embed(&texts).unwrap();
    let mut lowest = f32::INFINITY;
    for (vector, expected) in vectors.iter().zip(&reference.vectors) {
        assert_eq!(vector.len(), 384);
        assert!((cosine(vector, vector) - 1.0).abs() < 1e-4, "not normalised");
        lowest = lowest.min(cosine(vector, expected));
    }
    (lowest, reference.runtime)
}

#[test]
fn minilm_at_f32_agrees_with_sentence_transformers() {
    let (lowest, runtime) = agreement_with_sentence_transformers(Precision::F32);
    assert!(lowest >= 0.9999, "lowest cosine {lowest} against {runtime}");
}

#[test]
fn minilm_at_int8_stays_near_the_f32_model() {
    // What decides int8 is retrieval (docs/figures.md); this holds the rewrite to a model that
    // still computes the same thing.
    let (lowest, runtime) = agreement_with_sentence_transformers(Precision::Int8);
    assert!(lowest >= 0.97, "lowest cosine {lowest} against {runtime}");
}

#[test]
fn minilm_batches_keep_order_and_ignore_padding() {
    // At int8 each text runs alone, so its batch cannot change it.
    for precision in [Precision::F32, Precision::Int8] {
        let model = minilm(precision);
        let long = "a much longer sentence about tax returns and the documents they require ".repeat(5);
        let texts = ["short text", long.as_str(), "kittens are young cats"];
        let together = model.embed(&texts).unwrap();
        for (i, text) in texts.iter().enumerate() {
            let alone = model.embed(&[text]).unwrap();
            let agreement = cosine(&together[i], &alone[0]);
            assert!(
                agreement > 0.9999,
                "{precision}: text {i} changed with its batch ({agreement})"
            );
        }
        let cat = model.embed(&["a cat"]).unwrap();
        assert!(
            cosine(&cat[0], &together[2]) > cosine(&cat[0], &together[1]),
            "{precision}"
        );
    }
}

#[test]
fn a_missing_model_says_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    let one = Parallelism {
        sessions: 1,
        threads: 1,
    };
    let err = MiniLm::load(dir.path(), one, Precision::Int8).err().unwrap();
    assert!(matches!(err, EmbedError::ModelMissing { .. }));
    assert!(
        err.to_string().contains("lectern model install all-minilm-l6-v2"),
        "{err}"
    );
}

/// A one-connection-at-a-time HTTP server answering `replies` requests with `handler`.
fn serve(
    replies: usize,
    handler: impl Fn(&str, &str, &serde_json::Value) -> (u16, String) + Send + 'static,
) -> (String, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        for stream in listener.incoming().take(replies) {
            let mut stream = stream.unwrap();
            let (path, auth, json) = read_request(&stream);
            let (status, reply) = handler(&path, &auth, &json);
            write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                reply.len()
            )
            .unwrap();
        }
    });
    (url, handle)
}

fn fake_vectors(input: &serde_json::Value, dimension: usize) -> Vec<Vec<f32>> {
    input["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| vec![t.as_str().unwrap().len() as f32; dimension])
        .collect()
}

#[test]
fn ollama_embed_wire_format() {
    let (url, server) = serve(2, |path, _, body| {
        assert_eq!(path, "/api/embed");
        assert_eq!(body["model"], "nomic-embed-text");
        let reply = serde_json::json!({ "model": "nomic-embed-text", "embeddings": fake_vectors(body, 768) });
        (200, reply.to_string())
    });
    let embedder = HttpEmbedder::connect(ServerApi::Ollama, &url, "nomic-embed-text", None, None).unwrap();
    assert_eq!(embedder.dimension(), 768);
    assert_eq!(embedder.id(), "ollama:nomic-embed-text");
    let vectors = embedder.embed(&["ab", "abcd"]).unwrap();
    assert_eq!(vectors[1][0], 4.0);
    server.join().unwrap();
}

#[test]
fn openai_embeddings_wire_format_reorders_by_index_and_sends_the_key() {
    let (url, server) = serve(2, |path, auth, body| {
        assert_eq!(path, "/v1/embeddings");
        assert_eq!(auth, "Bearer sk-test");
        let data: Vec<serde_json::Value> = fake_vectors(body, 3)
            .into_iter()
            .enumerate()
            .rev()
            .map(|(i, v)| serde_json::json!({ "object": "embedding", "index": i, "embedding": v }))
            .collect();
        (200, serde_json::json!({ "object": "list", "data": data }).to_string())
    });
    let embedder = HttpEmbedder::connect(
        ServerApi::OpenAi,
        &url,
        "text-embedding-3-small",
        Some("sk-test".into()),
        Some(3),
    )
    .unwrap();
    let vectors = embedder.embed(&["a", "abc"]).unwrap();
    assert_eq!(vectors, vec![vec![1.0; 3], vec![3.0; 3]]);
    server.join().unwrap();
}

#[test]
fn http_errors_say_what_to_do() {
    let (url, server) = serve(1, |_, _, _| {
        (
            404,
            r#"{"error":"model \"nope\" not found, try pulling it first"}"#.into(),
        )
    });
    let err = HttpEmbedder::connect(ServerApi::Ollama, &url, "nope", None, None)
        .err()
        .unwrap();
    assert!(err.to_string().contains("does not know the model \"nope\""), "{err}");
    server.join().unwrap();

    let (url, server) = serve(1, |_, _, _| (401, r#"{"error":"invalid key"}"#.into()));
    let err = HttpEmbedder::connect(ServerApi::OpenAi, &url, "m", Some("bad".into()), None)
        .err()
        .unwrap();
    assert!(err.to_string().contains("refused the API key"), "{err}");
    server.join().unwrap();

    let (url, server) = serve(1, |_, _, body| {
        (
            200,
            serde_json::json!({ "embeddings": fake_vectors(body, 5) }).to_string(),
        )
    });
    let err = HttpEmbedder::connect(ServerApi::Ollama, &url, "m", None, Some(384))
        .err()
        .unwrap();
    assert!(matches!(err, EmbedError::Dimension { expected: 384, got: 5 }), "{err}");
    server.join().unwrap();

    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let err = HttpEmbedder::connect(ServerApi::Ollama, &url, "m", None, None)
        .err()
        .unwrap();
    assert!(err.to_string().contains("is the server running?"), "{err}");
}
