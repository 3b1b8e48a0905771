//! The `lectern` command as scripts use it: a failure's message and hint, its JSON under
//! `--json`, and an exit status by the failure's kind.

use std::process::{Command, Output};

use crate::common::models_dir;

fn lectern(home: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("--home")
        .arg(home)
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
