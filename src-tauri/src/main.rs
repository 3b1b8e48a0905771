//! Lectern's desktop app: a thin Tauri shell over the core library. The window's UI (`../ui`)
//! calls the commands in `commands.rs`; errors cross as `{code, message}`; indexing runs in the
//! background for the app's lifetime and its progress is sent to the window as events.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

#[cfg(test)]
mod bindings;
mod commands;
mod library_view;
mod server;
mod state;

// `invoke_handler!` and `COMMANDS`, from the `#[tauri::command]` functions of `commands.rs`.
include!(concat!(env!("OUT_DIR"), "/commands.rs"));

use tauri::{Emitter, Manager};

fn main() -> std::process::ExitCode {
    lectern::allocator::share_arenas();
    lectern::pdf::serve_if_asked();
    // The package's `lectern` command runs this program as the command line.
    if let Some(ended) = lectern_cli::main_if_asked() {
        return ended;
    }
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .setup(|app| {
            let state = match state::AppState::open(app.path().app_config_dir()?, opened_files()) {
                Ok(state) => state,
                Err(e) => {
                    cannot_open(app, &e);
                    return Ok(());
                }
            };
            let library = state.library.clone();
            let serves = lectern::app_config::serves(&state.config_dir);
            // Catches up on linked directories, then follows them for the app's lifetime.
            app.manage(library.watch()?);
            app.manage(state);
            let handle = app.handle().clone();
            let mut events = library.subscribe();
            tauri::async_runtime::spawn(async move {
                while let Some(event) = lectern::jobs::next_event(&mut events).await {
                    let _ = handle.emit("index-event", &event);
                }
            });
            // Other programs are served from the start when the user switched it on; why a
            // server could not start (its port taken) is said in the settings.
            if serves {
                let handle = app.handle().clone();
                tauri::async_runtime::spawn(async move {
                    let state = handle.state::<state::AppState>();
                    if let Err(e) = commands::start_server(&state).await {
                        eprintln!("lectern: {e}");
                    }
                });
            }
            spawn_indexer(app.handle().clone());
            Ok(())
        })
        .invoke_handler(invoke_handler!())
        .build(tauri::generate_context!())
        .map(|app| {
            app.run(|app, event| {
                if let tauri::RunEvent::Exit = event {
                    // Quitting mid-build is no crash: the documents go back in the queue as they were.
                    if let Some(state) = app.try_state::<state::AppState>() {
                        let _ = state.library.requeue_unfinished();
                    }
                }
            })
        });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lectern: the window could not start: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Runs the indexer for the app's lifetime; another process (a `lectern add`) may be the indexer
/// for a while, and this one takes over when it stops. It waits for an embedding model still
/// being installed. An indexer that stops leaves documents waiting: the window is told why
/// (`indexer-stopped`).
fn spawn_indexer(handle: tauri::AppHandle) {
    tauri::async_runtime::spawn(async move {
        let library = handle.state::<state::AppState>().library.clone();
        if let Err(e) = library.run_indexer(lectern::jobs::RunMode::Forever).await {
            let problem = e.payload();
            if let Ok(mut stopped) = handle.state::<state::AppState>().indexer_stopped.lock() {
                *stopped = Some(problem.clone());
            }
            let _ = handle.emit("indexer-stopped", &problem);
        }
    });
}

/// Says why the library cannot be opened (its catalog damaged, its database out of reach, its
/// data directory not writable), and what to do, in a dialog, and quits when it is closed: started
/// from a menu, the app has no terminal to say it on. The window stays hidden: over no library it
/// would look empty, as if the documents were gone.
fn cannot_open(app: &tauri::App, error: &lectern::Error) {
    use tauri_plugin_dialog::{DialogExt, MessageDialogKind};
    eprintln!("lectern: the library cannot be opened: {error}");
    for window in app.webview_windows().values() {
        let _ = window.hide();
    }
    let said = error.to_string();
    let mut letters = said.chars();
    let said = letters
        .next()
        .map(|first| first.to_uppercase().chain(letters).collect::<String>())
        .unwrap_or_default();
    let handle = app.handle().clone();
    app.dialog()
        .message(said)
        .title("Lectern cannot open its library")
        .kind(MessageDialogKind::Error)
        .show(move |_| handle.exit(1));
}

/// The files named on the command line, as a file manager's "Open with Lectern" passes them
/// (the desktop entry's `%F`); anything else there (an option, a directory) is not a file to open.
fn opened_files() -> Vec<std::path::PathBuf> {
    std::env::args_os()
        .skip(1)
        .map(std::path::PathBuf::from)
        .filter(|path| path.is_file())
        .collect()
}
