//! The UI's side of the IPC contract, generated from this side: the TypeScript declaration of
//! every type a command takes or returns, and the command names. `ui/src/bindings.ts` is checked
//! in; the test fails when it differs from what the Rust types say, so the two cannot drift.
//! `LECTERN_WRITE_BINDINGS=1 cargo test -p lectern-app bindings` writes it anew.

use std::path::Path;

use lectern::answer::{Answer, AnswerEvent, Likeliest, NumberCounts, Stage};
use lectern::catalog::{
    AnswerKind, ApiRequest, ApiToken, Chat, ChatMessage, Citation, Link, LogEntry, LogLevel, Remote, RemoteScope,
    Scope, ScopeFilters, Strategy,
};
use lectern::jobs::IndexEvent;
use lectern::llm::{ConnectionCheck, Finish, Role};
use lectern::models::{FoundInFolder, InstallProgress, ModelRole};
use lectern::pdf::WordBox;
use lectern::search::{Hit, ScoreComponents, SearchMode, SearchResults, Skipped, Source, Unreachable};
use lectern::{
    AddedRemote, AskOutcome, AskedOf, BackendKind, Because, Document, DocumentChoice, DocumentId, DocumentStatus,
    ErrorCode, ErrorPayload, Folder, FolderId, FolderStats, Hint, ImportFailure, ImportReport, ModelEntry, Retrieval,
    SecretPlace, Settings, SyncProgress, SyncReport,
};
use ts_rs::{Config, TS};

use crate::commands::{AskPayload, ChatView, FolderDeletion, ServerView, SettingsView};
use crate::library_view::{LibraryUpdate, LibraryView};
use crate::COMMANDS;

const BINDINGS: &str = "../ui/src/bindings.ts";

/// The declarations, one per type, each with its doc comment.
macro_rules! declarations {
    ($cfg:expr; $($ty:ty),* $(,)?) => {
        [$(format!("{}export {}", <$ty as TS>::docs().unwrap_or_default(), <$ty as TS>::decl($cfg))),*]
    };
}

/// The whole of `bindings.ts`.
fn typescript() -> String {
    // JSON numbers: the ids, counts and times the app sends fit in a double.
    let cfg = Config::new().with_large_int("number");
    let declarations = declarations![&cfg;
        FolderId, DocumentId, Folder, FolderStats, DocumentStatus, SyncProgress, Document, Link, LibraryView, LibraryUpdate, ImportReport, ImportFailure,
        SyncReport, FolderDeletion, Scope, ScopeFilters, RemoteScope, Remote, AddedRemote, Unreachable, Citation, AnswerKind, Answer, NumberCounts, Finish, AnswerEvent, Stage, Likeliest, Role, Chat,
        ChatMessage, ChatView, Strategy, Retrieval, SearchMode, Hit, ScoreComponents, Source, Skipped, SearchResults, AskPayload,
        AskOutcome, AskedOf, Because, IndexEvent, BackendKind, Settings, SecretPlace, SettingsView, ConnectionCheck, ErrorCode, Hint, DocumentChoice,
        ErrorPayload, WordBox, LogEntry, LogLevel, ModelEntry, ModelRole, InstallProgress, FoundInFolder, ServerView,
        ApiToken, ApiRequest,
    ];
    let commands: Vec<String> = COMMANDS.iter().map(|c| format!("  {c:?},")).collect();
    format!(
        "// Generated from the Rust types by src-tauri/src/bindings.rs; do not edit.\n\
         // `LECTERN_WRITE_BINDINGS=1 cargo test -p lectern-app bindings` writes it anew.\n\n\
         {}\n\n\
         /** The app's commands, as `src-tauri/src/commands.rs` defines them. */\n\
         export const COMMANDS = [\n{}\n] as const;\n\n\
         export type Command = (typeof COMMANDS)[number];\n",
        declarations.join("\n\n"),
        commands.join("\n")
    )
}

#[test]
fn the_uis_bindings_are_what_the_rust_types_say() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(BINDINGS);
    let generated = typescript();
    if std::env::var_os("LECTERN_WRITE_BINDINGS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{} is not what the Rust types say; `LECTERN_WRITE_BINDINGS=1 cargo test -p lectern-app bindings` writes it anew",
        path.display()
    );
}
