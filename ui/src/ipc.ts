// The IPC layer: one typed function per Tauri command, over the types and command names generated
// from the Rust side (`bindings.ts`). `invoke` and `Channel` are injected so that tests run the
// layer against a fake shell; errors come back as `{code, message, hint}`.

import type { OpenDialogOptions, SaveDialogOptions } from "@tauri-apps/plugin-dialog";
import type {
  AddedRemote,
  AnswerEvent,
  AskOutcome,
  AskPayload,
  Chat,
  ChatView,
  Command,
  ConnectionCheck,
  ErrorPayload,
  Folder,
  FoundInFolder,
  FolderDeletion,
  ImportReport,
  InstallProgress,
  LibraryDocument,
  LibraryUpdate,
  Link,
  LogEntry,
  ModelEntry,
  Remote,
  Scope,
  SearchResults,
  ServerView,
  Settings,
  SettingsView,
  Strategy,
  SyncProgress,
  SyncReport,
  WordBox,
} from "./bindings";

export type Invoke = (command: string, args?: Record<string, unknown>) => Promise<unknown>;

/** The dialog plugin's file picker (injected too): the path or paths picked, or null if cancelled. */
export type OpenDialog = (options: OpenDialogOptions) => Promise<string | string[] | null>;

/** The dialog plugin's save dialog (injected too): the path chosen, or null if cancelled. */
export type SaveDialog = (options: SaveDialogOptions) => Promise<string | null>;

export interface ChannelLike<T> {
  onmessage: (message: T) => void;
}

/** The error a command failed with, whatever shape it arrived in. */
export function commandError(e: unknown): ErrorPayload {
  if (e && typeof e === "object" && "code" in e && "message" in e) {
    return e as ErrorPayload;
  }
  return { code: "internal", message: String(e), hint: null };
}

/** The text to show for an error, whatever shape it arrived in. */
export function errorMessage(e: unknown): string {
  return (e as { message?: string } | null)?.message ?? String(e);
}

export function makeApi(invoke: Invoke, newChannel: <T>() => ChannelLike<T>) {
  const call = async <T>(command: Command, args?: Record<string, unknown>): Promise<T> => {
    try {
      return (await invoke(command, args)) as T;
    } catch (e) {
      throw commandError(e);
    }
  };
  return {
    /** The library as the sidebar shows it: all of it without `known`, else what changed since
     *  the view stamped `known` (null if nothing has; `applyUpdate` makes it a view). */
    libraryState: (known: string | null = null) => call<LibraryUpdate | null>("library_state", { known }),
    createFolder: (path: string) => call<Folder>("create_folder", { path }),
    renameFolder: (path: string, name: string) => call<Folder>("rename_folder", { path, name }),
    moveFolder: (path: string, parent: string | null) => call<Folder>("move_folder", { path, parent }),
    /** Sets when chats over the folder search, unless they have a strategy of their own (null:
     *  the parent folder's). */
    setFolderStrategy: (path: string, strategy: Strategy | null) =>
      call<Folder>("set_folder_strategy", { path, strategy }),
    /** The strategy of a chat over `scope` that has none of its own. */
    defaultStrategy: (scope: Scope) => call<Strategy>("default_strategy", { scope }),
    /** A few questions to start a chat over `scope` with, drawn from its documents' headings. */
    starterQuestions: (scope: Scope) => call<string[]>("starter_questions", { scope }),
    deleteFolder: (path: string, mode: FolderDeletion) =>
      call<number>("delete_folder", { path, mode }),
    importFiles: (paths: string[], folder: string) => call<ImportReport>("import_files", { paths, folder }),
    /** The files the app was started with ("Open with Lectern"), added to the library once. */
    openedFiles: () => call<ImportReport>("opened_files"),
    moveDocuments: (ids: string[], folder: string) => call<LibraryDocument[]>("move_documents", { ids, folder }),
    deleteDocument: (id: string) => call<LibraryDocument>("delete_document", { id }),
    renameDocument: (id: string, name: string) => call<LibraryDocument>("rename_document", { id, name }),
    documentPassword: (id: string) => call<string | null>("document_password", { id }),
    documentLog: (id: string) => call<LogEntry[]>("document_log", { id }),
    reindexDocument: (id: string) => call<LibraryDocument>("reindex_document", { id }),
    cancelIndexing: (id: string) => call<boolean>("cancel_indexing", { id }),
    pauseIndexing: (paused: boolean) => call<boolean>("pause_indexing", { paused }),
    unlockDocument: (id: string, password: string) => call<LibraryDocument>("unlock_document", { id, password }),
    /** Links a directory to a folder, telling `onProgress` how far its first sync has come. */
    linkDirectory: (path: string, folder: string, keepDeleted: boolean, onProgress: (p: SyncProgress) => void = () => {}) => {
      const channel = newChannel<SyncProgress>();
      channel.onmessage = onProgress;
      return call<SyncReport>("link_directory", { path, folder, keepDeleted, onProgress: channel });
    },
    unlinkDirectory: (id: number) => call<Link>("unlink_directory", { id }),
    listChats: () => call<Chat[]>("list_chats"),
    openChat: (id: string) => call<ChatView>("open_chat", { id }),
    renameChat: (id: string, title: string) => call<Chat>("rename_chat", { id, title }),
    deleteChat: (id: string) => call<void>("delete_chat", { id }),
    /** Sets the chat's own strategy (null: its folders' default from now on). */
    setChatStrategy: (id: string, strategy: Strategy | null) => call<Chat>("set_chat_strategy", { id, strategy }),
    /** Sets the size of the whole interface (the window's zoom). */
    setZoom: (zoom: number) => call<void>("set_zoom", { zoom }),
    /** Writes a chat, or one answer of it, as markdown to `path`; where it went. */
    exportChat: (id: string, message: number | null, path: string) =>
      call<string>("export_chat", { id, message, path }),
    documentPdf: (id: string) => call<ArrayBuffer>("document_pdf", { id }),
    /** The PDF of document `id` of the remote library `remote`, fetched from its server. */
    remotePdf: (remote: string, id: string) => call<ArrayBuffer>("remote_pdf", { remote, id }),
    /** The remote libraries, without asking them. */
    listRemotes: () => call<Remote[]>("list_remotes"),
    /** The folders of the remote `name` its token sees, asked of its server now. */
    remoteFolders: (name: string) => call<string[]>("remote_folders", { name }),
    /** Adds the library served at `url` under `name`, once its server answers with `token`. */
    addRemote: (name: string, url: string, token: string) => call<AddedRemote>("add_remote", { name, url, token }),
    /** Forgets a remote library and its token. */
    removeRemote: (name: string) => call<null>("remove_remote", { name }),
    /** The words OCR read on a page, with their boxes; none for a page with text of its own. */
    pageWords: (id: string, page: number) => call<WordBox[]>("page_words", { id, page }),
    /** Why the indexer stopped, if it did. */
    indexerProblem: () => call<ErrorPayload | null>("indexer_problem"),
    /** Opens the library's indexes ahead of instant search's first words. */
    warmSearch: () => call<number>("warm_search"),
    /** The library's passages with the words of `query`, by keyword: no model, as fast as typing. */
    quickSearch: (query: string, k: number) => call<SearchResults>("quick_search", { query, k }),
    cancelAnswer: (answerId: string) => call<void>("cancel_answer", { answerId }),
    getSettings: () => call<SettingsView>("get_settings"),
    saveSettings: (settings: Settings) => call<Settings>("save_settings", { settings }),
    /** Loads or contacts the model of `settings` and has it say a few words; may take seconds. */
    testConnection: (settings: Settings) => call<ConnectionCheck>("test_connection", { settings }),
    /** Chooses the data directory used from the next start on. */
    setDataDir: (path: string) => call<SettingsView>("set_data_dir", { path }),
    setDatabase: (url: string) => call<SettingsView>("set_database", { url }),
    /** The server for other programs: whether it runs, where, its token and the latest requests. */
    serverState: () => call<ServerView>("server_state"),
    /** Serves the library to other programs, or stops, from now on and at each start. */
    setServing: (on: boolean) => call<ServerView>("set_serving", { on }),
    /** Replaces the library's token; the old one stops working at once. */
    rotateToken: () => call<ServerView>("rotate_token"),
    listModels: () => call<ModelEntry[]>("list_models"),
    /** The models the first-run setup installs, in the order it installs them. */
    firstRunModels: () => call<ModelEntry[]>("first_run_models"),
    /** Installs a known model, or the GGUF file at a path; `onProgress` gets how far it is.
     *  Minutes for a chat model. The id it is installed under. */
    installModel: (id: string, onProgress: (progress: InstallProgress) => void) => {
      const channel = newChannel<InstallProgress>();
      channel.onmessage = onProgress;
      return call<string>("install_model", { id, onProgress: channel });
    },
    /** Installs the known models' files found in a folder on this machine; which it found. */
    installModelsFrom: (path: string) => call<FoundInFolder>("install_models_from", { path }),
    cancelInstall: (id: string) => call<void>("cancel_install", { id }),
    /** Makes an installed chat model the one that answers; the settings as they now are. */
    useModel: (id: string) => call<Settings>("use_model", { id }),
    /** Removes a model; the settings as they now are (a chosen chat model removed is forgotten). */
    removeModel: (id: string) => call<Settings>("remove_model", { id }),
    /** Asks a question; `onEvent` gets the answer's text and footnotes as they are made. */
    ask: (request: AskPayload, answerId: string, onEvent: (event: AnswerEvent) => void) => {
      const channel = newChannel<AnswerEvent>();
      channel.onmessage = onEvent;
      return call<AskOutcome>("ask", { request, answerId, onEvent: channel });
    },
  };
}

export type Api = ReturnType<typeof makeApi>;
