// Generated from the Rust types by src-tauri/src/bindings.rs; do not edit.
// `LECTERN_WRITE_BINDINGS=1 cargo test -p lectern-app bindings` writes it anew.

/**
 * A folder's row id in the catalog.
 */
export type FolderId = number;

/**
 * A document's id: a UUID that also names its index directory.
 */
export type DocumentId = string;

/**
 * A folder with its slash-separated path from the top level.
 */
export type Folder = { id: FolderId, parent: FolderId | null, name: string, path: string, 
/**
 * The retrieval strategy of chats over this folder, unless a chat has its own; without
 * one, the parent folder's.
 */
strategy: Strategy | null, 
/**
 * The strategy of its nearest ancestor that has one: what its chats take while it has none.
 */
inherited_strategy: Strategy | null, created_at: number, };

/**
 * Per-folder totals (`lectern status`, the app's tree).
 */
export type FolderStats = { folder: Folder, documents: number, pages: number, chunks: number, ready: number, pending: number, needing_attention: number, latest_added: number | null, };

/**
 * Where a document stands in its life: waiting, being indexed, or one of the end states.
 */
export type DocumentStatus = "queued" | "indexing" | "ready" | "needs_ocr" | "needs_password" | "failed";

/**
 * How far a sync has come: the directory's files read (hashed where they are new or changed),
 * then the new ones added, each of the listing's total.
 */
export type SyncProgress = { 
/**
 * True once every file has been read and the new ones are being added.
 */
adding: boolean, done: number, total: number, };

/**
 * A document as the catalog records it.
 */
export type LibraryDocument = { id: DocumentId, folder: FolderId, file_name: string, 
/**
 * The PDF's metadata title, as it reads.
 */
title: string | null, 
/**
 * What the document is shown by wherever it is named: its title when that reads as a title,
 * else its file name without `.pdf` (computed from those two, never stored).
 */
display_name: string, author: string | null, 
/**
 * The creation date from the PDF's info dictionary, as ISO 8601 where it could be read.
 */
pdf_created: string | null, 
/**
 * The modification date from the PDF's info dictionary, likewise.
 */
pdf_modified: string | null, 
/**
 * The file it was imported from, absolute; `None` for documents added before this was kept.
 */
source_path: string | null, 
/**
 * The file's type by its content (`application/pdf`).
 */
mime_type: string | null, 
/**
 * When the file was last modified before its import (milliseconds since the Unix epoch).
 */
file_modified: number | null, page_count: number | null, byte_size: number, char_count: number | null, chunk_count: number | null, 
/**
 * SHA-256 of the file's bytes, hex; also its name under `files/`.
 */
content_hash: string, 
/**
 * Milliseconds since the Unix epoch.
 */
added_at: number, status: DocumentStatus, 
/**
 * Why the document is not ready, in words a person understands.
 */
reason: string | null, 
/**
 * Pages indexed so far, of `progress_total`.
 */
progress_done: number, progress_total: number, 
/**
 * The page being read by OCR while the document is read, if one is.
 */
progress_ocr_page: number | null, 
/**
 * The model whose vectors the document's index holds (see [`crate::Embedder::id`]); `None`
 * while a ready document is searchable by keyword only.
 */
embedded_with: string | null, 
/**
 * Chunks embedded so far, of `embed_total`, while a ready document waits for or gets the
 * vectors of the library's model; both 0 otherwise.
 */
embed_done: number, embed_total: number, };

/**
 * A directory linked to a folder, with what its last sync found.
 */
export type Link = { id: number, folder: FolderId, 
/**
 * The directory, absolute.
 */
path: string, 
/**
 * Keep the documents of files deleted from the directory.
 */
keep_deleted: boolean, created_at: number, 
/**
 * When the last sync finished (milliseconds since the epoch).
 */
last_sync: number | null, 
/**
 * False while the directory is missing (an unplugged drive): its documents are kept.
 */
available: boolean, 
/**
 * Files seen but not yet indexed: still being written.
 */
pending: number, 
/**
 * Files the last sync could not import, each with its reason.
 */
failed: Array<[string, string]>, };

/**
 * Everything the sidebar shows.
 */
export type LibraryView = { folders: Array<Folder>, 
/**
 * Each folder's totals, subfolders included, counted by the catalog.
 */
totals: Array<FolderStats>, documents: Array<LibraryDocument>, 
/**
 * Directories linked to folders, with their sync state.
 */
links: Array<Link>, 
/**
 * Whether indexing is paused (the queue waits until it is resumed).
 */
paused: boolean, 
/**
 * Why indexing waits until it goes on by itself (the library's disk is full, read-only or
 * gone, and what to do), if it does.
 */
held: string | null, 
/**
 * What to give `library_state` next: it answers with what changed since, or `null` if
 * nothing has (`null` itself when that cannot be told, for a library in a database).
 */
stamp: string | null, };

/**
 * The library as it changed since the view the window holds.
 */
export type LibraryUpdate = { 
/**
 * Whether `documents` holds only the documents added or changed since the view stamped
 * `known` (else every document).
 */
partial: boolean, 
/**
 * With `partial`, the documents gone since.
 */
removed: Array<DocumentId>, folders: Array<Folder>, 
/**
 * Each folder's totals, subfolders included, counted by the catalog.
 */
totals: Array<FolderStats>, documents: Array<LibraryDocument>, 
/**
 * Directories linked to folders, with their sync state.
 */
links: Array<Link>, 
/**
 * Whether indexing is paused (the queue waits until it is resumed).
 */
paused: boolean, 
/**
 * Why indexing waits until it goes on by itself (the library's disk is full, read-only or
 * gone, and what to do), if it does.
 */
held: string | null, 
/**
 * What to give `library_state` next: it answers with what changed since, or `null` if
 * nothing has (`null` itself when that cannot be told, for a library in a database).
 */
stamp: string | null, };

/**
 * What an import did, file by file: one bad file never stops the others.
 */
export type ImportReport = { added: Array<LibraryDocument>, 
/**
 * Files already in the target folder with the same content.
 */
already_present: Array<LibraryDocument>, failed: Array<ImportFailure>, 
/**
 * Files inside added directories that are not PDFs, passed over silently.
 */
ignored: number, };

/**
 * A file that could not be imported, and why.
 */
export type ImportFailure = { path: string, reason: string, };

/**
 * What one sync of a link did.
 */
export type SyncReport = { 
/**
 * False when the directory was missing: nothing was changed.
 */
available: boolean, added: number, renamed: number, 
/**
 * Files whose content changed, re-indexed.
 */
changed: number, 
/**
 * Documents removed with their file.
 */
removed: number, 
/**
 * Files deleted from the directory whose documents were kept (the link's setting).
 */
kept: number, 
/**
 * Files still being written, to be indexed once they settle.
 */
pending: number, failed: Array<[string, string]>, };

/**
 * What happens to a deleted folder's documents.
 */
export type FolderDeletion = "only_if_empty" | "delete_documents" | "move_to_parent";

/**
 * The documents a search covers. Empty folders and documents mean the whole library, unless
 * the scope names remote libraries: then it covers those alone.
 */
export type Scope = { 
/**
 * Folders, each with all its subfolders.
 */
folders: Array<FolderId>, 
/**
 * Documents chosen one by one, wherever they are.
 */
documents: Array<DocumentId>, filters: ScopeFilters, 
/**
 * Remote libraries (or folders of them) asked beside the local part.
 */
remotes?: Array<RemoteScope>, };

/**
 * Metadata filters; every one given must hold.
 */
export type ScopeFilters = { 
/**
 * A substring of the PDF's author (case-insensitive).
 */
author: string | null, 
/**
 * A substring of the PDF's title or of the file name (case-insensitive).
 */
name: string | null, 
/**
 * The PDF's creation date is on or after this ISO date (`2020` or `2020-05-01`).
 */
created_from: string | null, 
/**
 * The PDF's creation date is before the end of this ISO date (`2021` covers all of 2021).
 */
created_to: string | null, 
/**
 * Added to the library at or after this instant (milliseconds since the Unix epoch).
 */
added_after: number | null, 
/**
 * Added to the library before this instant (milliseconds since the Unix epoch).
 */
added_before: number | null, };

/**
 * A remote library in a scope: the whole of what its token sees, or one folder of it.
 */
export type RemoteScope = { 
/**
 * The remote's name here.
 */
remote: string, 
/**
 * A folder's path in the remote library (with its subfolders).
 */
folder: string | null, };

/**
 * A remote library.
 */
export type Remote = { 
/**
 * The name it goes by here, unique (case-insensitively).
 */
name: string, 
/**
 * The server's API base, as `lectern serve` prints it (`http://host:8765/v1`).
 */
url: string, created_at: number, };

/**
 * A remote library just added, and what its token lets this library see.
 */
export type AddedRemote = { remote: Remote, 
/**
 * The remote folders the token sees.
 */
folders: Array<string>, };

/**
 * A remote library a search could not ask.
 */
export type Unreachable = { remote: string, reason: string, };

/**
 * A footnote of an answer: the passage it cites.
 */
export type Citation = { 
/**
 * The footnote number, from 1.
 */
number: number, document: DocumentId, document_name: string, chunk_id: string, 
/**
 * 1-based page.
 */
page: number, 
/**
 * The passage's character range in the page's text.
 */
char_start: number, char_end: number, 
/**
 * The passage's text.
 */
quote: string, score: number, 
/**
 * The remote library the passage comes from (its name here); `None` for this library's.
 */
remote?: string, };

/**
 * How an answer was made.
 */
export type AnswerKind = "generated" | "extractive" | "not_found" | "computed";

/**
 * A finished answer.
 */
export type Answer = { kind: AnswerKind, 
/**
 * The answer's text with footnote references `[^n]`, without the footnote list.
 */
body: string, citations: Array<Citation>, finish: Finish, 
/**
 * Which backend answered (empty when no model was asked).
 */
backend: string, 
/**
 * How many passages the model was given.
 */
passages_supplied: number, 
/**
 * How the answer's numbers were checked (all zero for answers no model wrote).
 */
numbers: NumberCounts, 
/**
 * The model's answer, when the passages it cites did not bear it out and Lectern gave a
 * decline in its stead (`support.rs`).
 */
unconfirmed?: string, };

/**
 * How the numbers of an answer fared.
 */
export type NumberCounts = { 
/**
 * Numbers found in the question or a passage.
 */
quoted: number, 
/**
 * Results Lectern computed from a written-out computation.
 */
computed: number, 
/**
 * Numbers neither quoted nor computed, whose sentences were left out.
 */
withheld: number, };

/**
 * Why generation ended.
 */
export type Finish = "stop" | "length" | "cancelled";

/**
 * What an answer streams as it is made.
 */
export type AnswerEvent = { "type": "text", text: string, } | { "type": "citation", citation: Citation, } | { "type": "stage", stage: Stage, text: string, };

/**
 * A step of the question's path, said as it begins.
 */
export type Stage = { "step": "searching" } | { "step": "computing" } | { "step": "reading", passages: number, documents: Array<string>, likeliest: Likeliest | null, } | { "step": "checking" };

/**
 * The line of the best passage most likely to answer, shown while the model reads: something
 * to read, and a page to open, in the seconds before the answer's first words.
 */
export type Likeliest = { 
/**
 * The line (a table row, or a sentence of a longer line), as the passage has it.
 */
line: string, 
/**
 * The passage, to open at its page (footnote 1: the first excerpt the model reads).
 */
passage: Citation, };

/**
 * Who says a message of a chat.
 */
export type Role = "system" | "user" | "assistant";

/**
 * A chat, without its messages.
 */
export type Chat = { id: string, title: string, scope: Scope, 
/**
 * The chat's own retrieval strategy; without one, its folders' default.
 */
strategy: Strategy | null, created_at: number, updated_at: number, message_count: number, };

/**
 * One message of a chat.
 */
export type ChatMessage = { id: number, role: Role, 
/**
 * The question, or the answer's markdown body with footnote references.
 */
content: string, 
/**
 * The answer's footnotes (empty for questions).
 */
citations: Array<Citation>, 
/**
 * How the answer was made (none for questions).
 */
kind: AnswerKind | null, 
/**
 * Which backend answered.
 */
backend: string | null, created_at: number, };

/**
 * A chat with its messages.
 */
export type ChatView = { chat: Chat, messages: Array<ChatMessage>, };

/**
 * When a question of a chat searches the documents (the design's retrieval strategies).
 * Whatever it decides, an answer's citations are checked the same way.
 */
export type Strategy = "always" | "confidence" | "function" | "smart";

/**
 * What a strategy decided for one message.
 */
export type Retrieval = { strategy: Strategy, 
/**
 * What was searched for: the message itself, its chat's questions before it, the query the
 * model chose, or the last question (for a request about the last answer); `None` when
 * nothing was.
 */
query: string | null, };

/**
 * How passages are retrieved.
 */
export type SearchMode = "hybrid" | "vector" | "keyword";

/**
 * One retrieved passage.
 */
export type Hit = { document: DocumentId, document_name: string, folder: FolderId, folder_path: string, chunk_id: string, 
/**
 * 1-based page number.
 */
page: number, 
/**
 * Character range of the passage in the page's text.
 */
char_start: number, char_end: number, text: string, 
/**
 * The score the ranking used (cosine, BM25 or fused, by mode).
 */
score: number, components: ScoreComponents, 
/**
 * The remote library it comes from (its name here); `None` for this library's own. A remote
 * hit's document, folder and chunk are the remote library's.
 */
remote?: string, };

/**
 * The parts of a hit's score.
 */
export type ScoreComponents = { 
/**
 * Cosine similarity to the question, when computed.
 */
vector: number | null, 
/**
 * BM25 with the scope's statistics, when the passage was among the keyword hits.
 */
keyword: number | null, 
/**
 * `keyword` as a share (0 to 1) of the most the question's words could score in the scope:
 * how much of the question's rarer words the passage has.
 */
keyword_share: number | null, 
/**
 * 1-based rank in the vector list, if it made the list.
 */
vector_rank: number | null, 
/**
 * 1-based rank in the keyword list, if it made the list.
 */
keyword_rank: number | null, 
/**
 * Cosine similarity to the question by the second stage's model, when it scored the page.
 */
second_stage: number | null, 
/**
 * Whether the question named the passage's page ("page 14", "the cover page"): it bears
 * on the question by where it is, whatever its words (`named_pages.rs`).
 */
named_page: boolean, };

/**
 * The hits of one document, for a "sources" view.
 */
export type Source = { document: DocumentId, document_name: string, folder: FolderId, folder_path: string, 
/**
 * The remote library the document is in (its name here); `None` for this library's.
 */
remote?: string, best_score: number, 
/**
 * Indexes into [`SearchResults::hits`], best first.
 */
hits: Array<number>, 
/**
 * The pages of those hits, ascending, without repeats.
 */
pages: Array<number>, };

/**
 * A document in scope that could not be searched.
 */
export type Skipped = { document: DocumentId, document_name: string, reason: string, 
/**
 * Whether its index looked damaged and was queued to be verified (and rebuilt if it is).
 */
requeued: boolean, };

/**
 * What a search found.
 */
export type SearchResults = { query: string, mode: SearchMode, 
/**
 * Best first: score descending, then chunk id ascending; one hit per page, its best passage.
 */
hits: Array<Hit>, 
/**
 * The same hits grouped by document, documents ordered by their best hit.
 */
sources: Array<Source>, skipped: Array<Skipped>, 
/**
 * How many documents were in scope.
 */
documents_searched: number, 
/**
 * How many of them were searched by keyword only: their vectors of the question's model
 * are still being made (just added, or the embedding model changed).
 */
keyword_only: number, 
/**
 * Remote libraries of the scope that could not be searched, and why.
 */
unreachable?: Array<Unreachable>, };

/**
 * A question from the chat pane.
 */
export type AskPayload = { question: string, 
/**
 * The chat to continue.
 */
chat: string | null, 
/**
 * The scope to ask over (folders, documents and filters); none keeps the chat's.
 */
scope: Scope | null, 
/**
 * When to search, kept as the chat's strategy; none keeps the chat's (else its folders'
 * default).
 */
strategy: Strategy | null, 
/**
 * The document open beside the chat, which a question naming none is asked of.
 */
document?: string, };

/**
 * An answered question.
 */
export type AskOutcome = { chat: Chat, 
/**
 * The answer as saved in the chat (the id [`Library::export_answer`] takes).
 */
message: number, answer: Answer, 
/**
 * What retrieval found (the answer's citations point into it).
 */
results: SearchResults, 
/**
 * How it was decided whether to search.
 */
retrieval: Retrieval, 
/**
 * The one document a question naming none was asked of, and why that one.
 */
asked_of: AskedOf | null, };

/**
 * The document a question naming none was asked of, instead of the whole scope.
 */
export type AskedOf = { document: DocumentId, 
/**
 * The name it is shown by.
 */
name: string, because: Because, };

/**
 * How Lectern knows which document a chat is about.
 */
export type Because = "open" | "cited";

/**
 * One thing that happened to a document in the indexing queue.
 */
export type IndexEvent = { "kind": "queued", document: DocumentId, } | { "kind": "started", document: DocumentId, } | { "kind": "progress", document: DocumentId, pages_done: number, pages_total: number, ocr_page: number | null, } | { "kind": "finished", document: DocumentId, status: DocumentStatus, reason: string | null, reused_from: DocumentId | null, } | { "kind": "embedding", document: DocumentId, chunks_done: number, chunks_total: number, resumed_from: number, } | { "kind": "embedded", document: DocumentId, } | { "kind": "embedding_failed", document: DocumentId, reason: string, };

/**
 * Which kind of backend answers.
 */
export type BackendKind = "builtin" | "ollama" | "openai" | "extractive";

/**
 * The user's answer and retrieval settings. Empty fields fall back to the environment, then to
 * the defaults of [`Backend::from_settings`].
 */
export type Settings = { backend: BackendKind, 
/**
 * The built-in backend's model (an id of `lectern model ls`, or a GGUF path; none: the
 * default), or a server's model name.
 */
model: string | null, 
/**
 * A server's base URL.
 */
url: string | null, 
/**
 * The OpenAI-compatible server's API key.
 */
api_key: string | null, mode: SearchMode, 
/**
 * How many passages a question retrieves.
 */
k: number, 
/**
 * Pages without text are read by OCR (switched off, they are left out of the index).
 */
ocr: boolean, };

/**
 * Where a library keeps its secrets.
 */
export type SecretPlace = "keyring" | "library";

/**
 * The settings, with the data directory in use and the one chosen for the next start. The API
 * key is never sent to the window: only whether one is set.
 */
export type SettingsView = { settings: Settings, api_key_set: boolean, 
/**
 * Where the key (and PDF passwords) are kept.
 */
secrets_kept: SecretPlace, data_dir: string, next_data_dir: string | null, 
/**
 * The database the library lives in (host, port and database; never a password), if any.
 */
database: string | null, 
/**
 * The database chosen for the next start, when it is another (`""`: none, the data
 * directory).
 */
next_database: string | null, };

/**
 * What a connection check found: the model answered `reply` after `millis`.
 */
export type ConnectionCheck = { description: string, reply: string, millis: number, };

/**
 * What kind of failure an error is, for a client to branch on; it says whose fault it is.
 */
export type ErrorCode = "not_found" | "invalid_input" | "conflict" | "needs_password" | "unavailable" | "offline" | "internal" | "ambiguous";

/**
 * What the user can do about an error. Messages say what failed and whose fault it is; each
 * client says the remedy in its own terms (a command for the CLI, a button or a place in the
 * window for the app).
 */
export type Hint = { "kind": "list_folders" } | { "kind": "list_documents" } | { "kind": "list_chats" } | { "kind": "list_links" } | { "kind": "unlink" } | { "kind": "list_models" } | { "kind": "install_model", model: string | null, } | { "kind": "check_settings" } | { "kind": "enter_password" } | { "kind": "choose_document", choices: Array<DocumentChoice>, };

/**
 * A document offered to choose from.
 */
export type DocumentChoice = { id: DocumentId, 
/**
 * The name it is shown by.
 */
name: string, 
/**
 * Its folder's path.
 */
folder: string, };

/**
 * The error as the desktop shell sends it to the UI and `--json` prints it.
 */
export type ErrorPayload = { code: ErrorCode, message: string, hint: Hint | null, };

/**
 * A word of a page read by OCR: its characters in the page's text and where it is on the page.
 */
export type WordBox = { 
/**
 * The word is characters `start..end` of the page's text.
 */
start: number, end: number, 
/**
 * Its box, left, top, right and bottom, as fractions of the page's width and height as
 * the page is shown (its own rotation applied, as PDF viewers show it).
 */
bounds: [number, number, number, number], };

/**
 * One entry of a document's log.
 */
export type LogEntry = { 
/**
 * Milliseconds since the Unix epoch.
 */
at: number, level: LogLevel, message: string, };

export type LogLevel = "info" | "warning" | "error";

/**
 * One model as `lectern model ls` shows it.
 */
export type ModelEntry = { id: string, name: string, family: string, role: ModelRole, 
/**
 * Bytes of its files.
 */
size: number, 
/**
 * The first file's SHA-256 (known models only).
 */
sha256: string | null, licence: string | null, memory_mb: number | null, context: number | null, installed: boolean, 
/**
 * Whether it answers (chat) or embeds (embedding) in this library now.
 */
active: boolean, note: string, };

/**
 * What a model does in Lectern.
 */
export type ModelRole = "chat" | "embedding" | "rerank" | "pages";

/**
 * How an installation is going.
 */
export type InstallProgress = { 
/**
 * The file being installed.
 */
file: string, 
/**
 * What is being done: "downloading part 3 of 22 from PyPI", "checking", "copying".
 */
step: string, done: number, total: number | null, };

/**
 * What a folder held of the known models' files.
 */
export type FoundInFolder = { 
/**
 * The files found there and copied into place, by name.
 */
files: Array<string>, 
/**
 * The models whose every file is in place now, of those it held files of, by id.
 */
installed: Array<string>, };

/**
 * The server for other programs, as the settings show it.
 */
export type ServerView = { 
/**
 * Whether the app serves the library from its start.
 */
enabled: boolean, 
/**
 * Where the server answers while it runs (`http://127.0.0.1:8765/v1`).
 */
url: string | null, 
/**
 * Why it could not start (another program listens at its address, …).
 */
problem: string | null, 
/**
 * The library's token, which sees everything.
 */
token: string, 
/**
 * Tokens limited to folders (made with `lectern serve token add`).
 */
tokens: Array<ApiToken>, 
/**
 * The latest requests, newest first.
 */
requests: Array<ApiRequest>, };

/**
 * A token limited to folders (the library's own token, in the data directory, sees everything).
 */
export type ApiToken = { name: string, 
/**
 * The folders it sees, each with its subfolders; empty once they are all deleted.
 */
folders: Array<FolderId>, 
/**
 * Milliseconds since the Unix epoch.
 */
created_at: number, };

/**
 * One request the server served.
 */
export type ApiRequest = { 
/**
 * Milliseconds since the Unix epoch.
 */
at: number, 
/**
 * Whose token: "library" or a limited token's name.
 */
holder: string, method: string, path: string, 
/**
 * What it could reach: "library", "folder Work/Taxes", "document …", or "-" when refused.
 */
scope: string, status: number, millis: number, };

/** The app's commands, as `src-tauri/src/commands.rs` defines them. */
export const COMMANDS = [
  "library_state",
  "link_directory",
  "unlink_directory",
  "create_folder",
  "rename_folder",
  "set_folder_strategy",
  "default_strategy",
  "starter_questions",
  "set_chat_strategy",
  "move_folder",
  "delete_folder",
  "import_files",
  "opened_files",
  "move_documents",
  "delete_document",
  "rename_document",
  "document_log",
  "reindex_document",
  "cancel_indexing",
  "pause_indexing",
  "unlock_document",
  "ask",
  "cancel_answer",
  "list_chats",
  "open_chat",
  "rename_chat",
  "delete_chat",
  "set_zoom",
  "export_chat",
  "document_pdf",
  "remote_pdf",
  "list_remotes",
  "remote_folders",
  "add_remote",
  "remove_remote",
  "document_password",
  "list_models",
  "first_run_models",
  "install_model",
  "install_models_from",
  "cancel_install",
  "use_model",
  "remove_model",
  "indexer_problem",
  "quick_search",
  "warm_search",
  "page_words",
  "get_settings",
  "save_settings",
  "test_connection",
  "set_database",
  "set_data_dir",
  "server_state",
  "set_serving",
  "rotate_token",
] as const;

export type Command = (typeof COMMANDS)[number];
