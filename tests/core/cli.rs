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
