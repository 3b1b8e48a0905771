//! The commands the UI calls: each a thin call into the core library, its error turned into the
//! `{code, message}` payload the UI shows.

use std::path::PathBuf;

use lectern::answer::AnswerEvent;
use lectern::catalog::{Chat, ChatId, ChatMessage, Link, Scope};
use lectern::llm::ConnectionCheck;
use lectern::{
    AskChoices, AskOutcome, DeleteMode, Document, DocumentId, Error, ErrorPayload, Folder, FolderId, ImportReport,
    Settings, SyncReport,
};
use serde::{Deserialize, Serialize};
use tauri::ipc::{Channel, Response};
use tauri::State;

use crate::app_config;
use crate::state::AppState;

type Reply<T> = Result<T, ErrorPayload>;

fn fail(e: impl Into<Error>) -> ErrorPayload {
    e.into().payload()
}

fn document_id(state: &AppState, id: &str) -> Reply<DocumentId> {
    state.library.document(id).map(|d| d.id).map_err(fail)
}

fn chat_id(state: &AppState, id: &str) -> Reply<ChatId> {
    state.library.find_chat(id).map_err(fail)
}

/// Everything the sidebar shows.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LibraryView {
    folders: Vec<Folder>,
    documents: Vec<Document>,
    /// Directories linked to folders, with their sync state.
    links: Vec<Link>,
}

#[tauri::command]
pub fn library_state(state: State<'_, AppState>) -> Reply<LibraryView> {
    Ok(LibraryView {
        folders: state.library.folders().map_err(fail)?,
        documents: state.library.documents(None, true).map_err(fail)?,
        links: state.library.links().map_err(fail)?,
    })
}

/// Links a directory to a folder; the app's watcher keeps them in sync from now on.
#[tauri::command]
pub async fn link_directory(
    state: State<'_, AppState>,
    path: String,
    folder: String,
    keep_deleted: bool,
) -> Reply<SyncReport> {
    let library = state.library.clone();
    tauri::async_runtime::spawn_blocking(move || library.link_directory(&PathBuf::from(path), &folder, keep_deleted))
        .await
        .map_err(|e| fail(Error::stopped("linking the directory")(e)))?
        .map(|(_, report)| report)
        .map_err(fail)
}

/// Unlinks a directory; its folder keeps the documents.
#[tauri::command]
pub fn unlink_directory(state: State<'_, AppState>, id: i64) -> Reply<Link> {
    state.library.unlink(id).map_err(fail)
}

#[tauri::command]
pub fn create_folder(state: State<'_, AppState>, path: String) -> Reply<Folder> {
    state.library.create_folder(&path).map_err(fail)
}

#[tauri::command]
pub fn rename_folder(state: State<'_, AppState>, path: String, name: String) -> Reply<Folder> {
    state.library.rename_folder(&path, &name).map_err(fail)
}

#[tauri::command]
pub fn move_folder(state: State<'_, AppState>, path: String, parent: Option<String>) -> Reply<Folder> {
    state.library.move_folder(&path, parent.as_deref()).map_err(fail)
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
pub fn delete_folder(state: State<'_, AppState>, path: String, mode: FolderDeletion) -> Reply<usize> {
    let mode = match mode {
        FolderDeletion::OnlyIfEmpty => DeleteMode::OnlyIfEmpty,
        FolderDeletion::DeleteDocuments => DeleteMode::DeleteDocuments,
        FolderDeletion::MoveToParent => DeleteMode::MoveToParent,
    };
    state.library.delete_folder(&path, mode).map_err(fail)
}

/// Imports files or directories into a folder; the same command serves drag and drop and the
/// "Add PDFs" dialog. The background indexer picks the new documents up.
#[tauri::command]
pub fn import_files(state: State<'_, AppState>, paths: Vec<String>, folder: String) -> Reply<ImportReport> {
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    state.library.add(&paths, &folder).map_err(fail)
}

#[tauri::command]
pub fn move_documents(state: State<'_, AppState>, ids: Vec<String>, folder: String) -> Reply<Vec<Document>> {
    ids.iter()
        .map(|id| {
            let id = document_id(&state, id)?;
            state.library.move_document(id, &folder).map_err(fail)
        })
        .collect()
}

#[tauri::command]
pub fn delete_document(state: State<'_, AppState>, id: String) -> Reply<Document> {
    let id = document_id(&state, &id)?;
    state.library.delete_document(id).map_err(fail)
}

#[tauri::command]
pub fn unlock_document(state: State<'_, AppState>, id: String, password: String) -> Reply<Document> {
    let id = document_id(&state, &id)?;
    state.library.unlock(id, &password).map_err(fail)
}

/// A question from the chat pane.
#[derive(Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AskPayload {
    question: String,
    /// The chat to continue.
    chat: Option<String>,
    /// A new scope (folders and documents); none keeps the chat's.
    folders: Option<Vec<i64>>,
    documents: Option<Vec<String>>,
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
    let chat = request.chat.as_deref().map(|id| chat_id(&state, id)).transpose()?;
    let scope = if request.folders.is_some() || request.documents.is_some() {
        let documents = request
            .documents
            .unwrap_or_default()
            .iter()
            .map(|id| document_id(&state, id))
            .collect::<Reply<_>>()?;
        Some(Scope {
            folders: request.folders.unwrap_or_default().into_iter().map(FolderId).collect(),
            documents,
            ..Scope::default()
        })
    } else {
        None
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
            chat,
            scope,
            &AskChoices::default(),
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
pub fn list_chats(state: State<'_, AppState>) -> Reply<Vec<Chat>> {
    state.library.chats().map_err(fail)
}

/// A chat with its messages.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ChatView {
    chat: Chat,
    messages: Vec<ChatMessage>,
}

#[tauri::command]
pub fn open_chat(state: State<'_, AppState>, id: String) -> Reply<ChatView> {
    let (chat, messages) = state.library.chat(chat_id(&state, &id)?).map_err(fail)?;
    Ok(ChatView { chat, messages })
}

#[tauri::command]
pub fn rename_chat(state: State<'_, AppState>, id: String, title: String) -> Reply<Chat> {
    state.library.rename_chat(chat_id(&state, &id)?, &title).map_err(fail)
}

#[tauri::command]
pub fn delete_chat(state: State<'_, AppState>, id: String) -> Reply<()> {
    state.library.delete_chat(chat_id(&state, &id)?).map_err(fail)
}

#[tauri::command]
pub fn export_chat(state: State<'_, AppState>, id: String) -> Reply<String> {
    state.library.export_chat(chat_id(&state, &id)?).map_err(fail)
}

/// The bytes of a document's stored PDF, for the viewer: the webview reads no file itself.
#[tauri::command]
pub fn document_pdf(state: State<'_, AppState>, id: String) -> Reply<Response> {
    let id = document_id(&state, &id)?;
    let path = state.library.document_file(id).map_err(fail)?;
    let bytes = std::fs::read(&path).map_err(|e| fail(Error::io(&path)(e)))?;
    Ok(Response::new(bytes))
}

/// The settings, with the data directory in use and the one chosen for the next start. The API
/// key is never sent to the window: only whether one is set.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SettingsView {
    settings: Settings,
    api_key_set: bool,
    data_dir: PathBuf,
    next_data_dir: Option<PathBuf>,
}

fn settings_view(state: &AppState) -> Reply<SettingsView> {
    let data_dir = state.library.config().home.clone();
    let next_data_dir = app_config::data_dir(&state.config_dir).filter(|dir| *dir != data_dir);
    let (settings, api_key_set) = state.library.settings().map_err(fail)?.without_key();
    Ok(SettingsView {
        settings,
        api_key_set,
        data_dir,
        next_data_dir,
    })
}

/// The settings the window sent (without the stored key: none keeps it, an empty one forgets
/// it) with the key they mean.
fn with_stored_key(state: &AppState, settings: Settings) -> Reply<Settings> {
    Ok(settings.with_key_of(&state.library.settings().map_err(fail)?))
}

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> Reply<SettingsView> {
    settings_view(&state)
}

/// Saves the settings; the reply is what was saved, without the key.
#[tauri::command]
pub fn save_settings(state: State<'_, AppState>, settings: Settings) -> Reply<Settings> {
    state
        .library
        .save_settings(&with_stored_key(&state, settings)?)
        .map_err(fail)?;
    Ok(state.library.settings().map_err(fail)?.without_key().0)
}

/// Loads or reaches the model `settings` name and has it write a few words.
#[tauri::command]
pub async fn test_connection(state: State<'_, AppState>, settings: Settings) -> Reply<ConnectionCheck> {
    let settings = with_stored_key(&state, settings)?;
    let library = state.library.clone();
    tauri::async_runtime::spawn_blocking(move || library.check_connection(&settings))
        .await
        .map_err(|e| fail(Error::stopped("the connection check")(e)))?
        .map_err(fail)
}

/// Chooses the data directory the app opens from its next start.
#[tauri::command]
pub fn set_data_dir(state: State<'_, AppState>, path: String) -> Reply<SettingsView> {
    app_config::set_data_dir(&state.config_dir, &PathBuf::from(path)).map_err(fail)?;
    settings_view(&state)
}
