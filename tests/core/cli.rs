//! The `lectern` command as scripts use it: a failure's message and hint, its JSON under
//! `--json`, and an exit status by the failure's kind.

use std::process::{Command, Output};

use crate::common::{database_env, models_dir};

fn lectern(home: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("--home")
        .arg(home)
        .envs(database_env(home))
        .args(args)
        .env("LECTERN_MODELS", models_dir())
        .output()
        .unwrap()
}

#[test]
fn a_failure_says_what_failed_and_the_remedy_apart_in_text_and_in_json() {
    let home = tempfile::tempdir().unwrap();

    let text = lectern(home.path(), &["ls", "Nowhere"]);
    assert_eq!(text.status.code(), Some(3), "not found");
    assert!(text.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&text.stderr),
        "error: no folder named \"Nowhere\"\nhint: `lectern folder ls` lists the folders\n"
    );

    let json = lectern(home.path(), &["ls", "Nowhere", "--json"]);
    assert_eq!(json.status.code(), Some(3));
    let printed: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        printed,
        serde_json::json!({"error": {
            "code": "not_found",
            "message": "no folder named \"Nowhere\"",
            "hint": {"kind": "list_folders"}
        }})
    );

    let taken = lectern(home.path(), &["folder", "create", "Personal Knowledge"]);
    assert_eq!(taken.status.code(), Some(4), "conflict");
    let said = String::from_utf8_lossy(&taken.stderr);
    assert!(
        said.starts_with("error: \"Personal Knowledge\" already exists"),
        "{said}"
    );
    assert!(!said.contains("hint:"), "nothing to hint: {said}");
}

#[test]
fn doc_log_prints_what_happened_to_a_document() {
    let home = tempfile::tempdir().unwrap();
    let pdf = crate::common::corpus_pdf("text-xelatex-4p.pdf");
    let added = lectern(home.path(), &["add", pdf.to_str().unwrap(), "--json"]);
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    let listed = lectern(home.path(), &["ls", "--json"]);
    let docs: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = docs[0]["id"].as_str().unwrap().to_string();
    let renamed = lectern(home.path(), &["doc", "rename", &id, "paper.pdf"]);
    assert!(renamed.status.success());

    let text = lectern(home.path(), &["doc", "log", &id[..8]]);
    assert!(text.status.success(), "{}", String::from_utf8_lossy(&text.stderr));
    let lines: Vec<String> = String::from_utf8_lossy(&text.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let source = std::fs::canonicalize(&pdf).unwrap();
    assert!(
        lines[0].ends_with(&format!("info     Added from {}", source.display())),
        "{lines:?}"
    );
    assert!(lines[2].contains("info     Ready: 4 pages, "), "{lines:?}");
    assert!(
        lines.last().unwrap().ends_with("info     Renamed to paper.pdf"),
        "{lines:?}"
    );

    let json = lectern(home.path(), &["doc", "log", &id, "--json"]);
    let entries: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let last = &entries[entries.as_array().unwrap().len() - 1];
    assert_eq!(
        (&last["level"], &last["message"]),
        (&"info".into(), &"Renamed to paper.pdf".into())
    );
}

/// `lectern index pause|resume|cancel` steer the indexer of another process: a pause holds in a
/// process started after it, and a document that process is reading stops when another process
/// cancels it.
#[test]
fn indexing_is_paused_resumed_and_cancelled_from_another_process() {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = lectern(home.path(), args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let docs = || -> Vec<(String, String, String, String)> {
        let listed: serde_json::Value = serde_json::from_str(&run(&["ls", "--json"])).unwrap();
        listed
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let field = |k: &str| d[k].as_str().unwrap_or_default().to_string();
                (field("file_name"), field("id"), field("status"), field("reason"))
            })
            .collect()
    };
    let doc = |name: &str| docs().into_iter().find(|d| d.0.contains(name)).unwrap();
    let until = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while !done() {
            assert!(std::time::Instant::now() < deadline, "{what}: {:?}", docs());
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };

    assert!(run(&["index", "pause"]).contains("indexing paused"));
    // Long enough to be read for several seconds, so that it is caught while being read.
    let long = home.path().join("long-20000p.pdf");
    let pages: Vec<Vec<String>> = (0..20_000)
        .map(|i| vec![format!("Page {i} of the long report on river {i}.")])
        .collect();
    std::fs::write(&long, lectern::pdf::pages_pdf(&pages)).unwrap();
    let pdfs = ["text-xelatex-4p.pdf", "multicol-irs-i1040nr-50p.pdf"]
        .map(|name| crate::common::corpus_pdf(name).to_string_lossy().into_owned());
    let added = run(&["add", &pdfs[0], &long.to_string_lossy(), &pdfs[1]]);
    assert!(added.contains("indexing is paused"), "{added}");
    assert!(docs().iter().all(|d| d.2 == "queued"), "{:?}", docs());

    let spare = doc("i1040nr");
    assert!(run(&["index", "cancel", &spare.1[..8]]).contains("cancelled"));
    assert_eq!(doc("i1040nr").2, "failed");

    let mut indexer = Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("--home")
        .arg(home.path())
        .envs(database_env(home.path()))
        .args(["index", "--watch"])
        .env("LECTERN_MODELS", models_dir())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(
        docs().iter().filter(|d| d.2 == "queued").count() == 2,
        "the pause holds in a process started after it: {:?}",
        docs()
    );

    run(&["index", "resume"]);
    until("the long document was not read after resuming", &|| {
        doc("20000p").2 == "indexing"
    });
    let long = doc("20000p");
    assert!(run(&["index", "cancel", &long.1]).contains("cancelled"));
    until("the other process did not stop reading", &|| {
        doc("20000p").2 == "failed"
    });
    assert!(doc("20000p").3.contains("cancelled"), "{:?}", doc("20000p"));
    until("the short paper was not read", &|| doc("xelatex").2 == "ready");
    assert_eq!(doc("i1040nr").2, "failed", "a cancelled document stays cancelled");
    indexer.kill().unwrap();
    indexer.wait().unwrap();
}

#[test]
fn the_smart_judge_skips_small_talk_and_requests_about_answers_and_searches_questions() {
    let home = tempfile::tempdir().unwrap();
    let eval = crate::common::repository().join("eval");
    let file = |name: &str| eval.join(name).to_string_lossy().into_owned();
    let (smart, dev, paraphrase) = (file("smart.jsonl"), file("dev.jsonl"), file("paraphrase.jsonl"));
    let out = lectern(home.path(), &["eval", "strategy", &smart, &dev, &paraphrase, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let share = |skip: bool| {
        let (right, all) = rows
            .iter()
            .filter(|r| r["needs_documents"] == !skip)
            .fold((0.0, 0.0), |(right, all), r| {
                let n = r["messages"].as_f64().unwrap();
                (right + r["right"].as_f64().unwrap() * n, all + n)
            });
        right / all
    };
    // The bar: 90 % of small talk and follow-ups skip search, 98 % of questions search.
    assert!(share(true) >= 0.90, "skipped {:.3}: {rows:#?}", share(true));
    assert!(share(false) >= 0.98, "searched {:.3}: {rows:#?}", share(false));
}

#[test]
fn a_folder_strategy_is_set_shown_and_inherited() {
    let home = tempfile::tempdir().unwrap();
    assert!(lectern(home.path(), &["folder", "create", "Work"]).status.success());
    assert!(lectern(home.path(), &["folder", "create", "Work/Taxes"])
        .status
        .success());
    let out = lectern(home.path(), &["folder", "strategy", "Work", "smart"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Work: smart");
    let out = lectern(home.path(), &["folder", "strategy", "Work/Taxes"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "Work/Taxes: smart (inherited)"
    );
    let out = lectern(home.path(), &["folder", "strategy", "Work", "sometimes"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("always, confidence, function or smart"));
}
