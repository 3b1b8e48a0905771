// The shapes the Tauri commands send, as the core library serialises them.

export type DocumentStatus = "queued" | "indexing" | "ready" | "needs_ocr" | "needs_password" | "failed";

export interface Folder {
  id: number;
  parent: number | null;
  name: string;
  path: string;
  created_at: number;
}

export interface LibraryDocument {
  id: string;
  folder: number;
  file_name: string;
  title: string | null;
  page_count: number | null;
  status: DocumentStatus;
  reason: string | null;
  progress_done: number;
  progress_total: number;
}

export interface LibraryView {
  folders: Folder[];
  documents: LibraryDocument[];
  links: Link[];
}

/** A directory on disk kept in sync with a folder, and what its last sync found. */
export interface Link {
  id: number;
  folder: number;
  path: string;
  keep_deleted: boolean;
  created_at: number;
  last_sync: number | null;
  available: boolean;
  pending: number;
  /** Files that could not be imported, each with why. */
  failed: [string, string][];
}

/** What importing files into a folder did. */
export interface ImportReport {
  added: LibraryDocument[];
  already_present: LibraryDocument[];
  failed: { path: string; reason: string }[];
  ignored: number;
}

export interface Citation {
  number: number;
  document: string;
  document_name: string;
  chunk_id: string;
  page: number;
  char_start: number;
  char_end: number;
  quote: string;
  score: number;
}

export type AnswerKind = "generated" | "extractive" | "not_found";

export type AnswerEvent = { type: "text"; text: string } | { type: "citation"; citation: Citation };

export interface Answer {
  kind: AnswerKind;
  body: string;
  citations: Citation[];
  finish: "stop" | "length" | "cancelled";
  backend: string;
}

export interface Scope {
  folders: number[];
  documents: string[];
}

export interface Chat {
  id: string;
  title: string;
  scope: Scope;
  created_at: number;
  updated_at: number;
  message_count: number;
}

export interface ChatMessage {
  id: number;
  role: "user" | "assistant" | "system";
  content: string;
  citations: Citation[];
  kind: AnswerKind | null;
}

export interface Hit {
  document: string;
  document_name: string;
  page: number;
  score: number;
}

export interface Source {
  document: string;
  document_name: string;
  best_score: number;
  pages: number[];
}

export interface AskOutcome {
  chat: Chat;
  answer: Answer;
  results: { hits: Hit[]; sources: Source[]; skipped: { document_name: string; reason: string }[] };
}

export interface IndexEvent {
  [kind: string]: { document: string } & Record<string, unknown>;
}

export type Backend = "builtin" | "ollama" | "openai" | "extractive";

export type SearchMode = "hybrid" | "vector" | "keyword";

/** The saved settings every question is answered with. */
export interface Settings {
  backend: Backend;
  model: string | null;
  url: string | null;
  api_key: string | null;
  mode: SearchMode;
  k: number;
}

export interface SettingsView {
  settings: Settings;
  data_dir: string;
  /** The data directory chosen to be used after a restart, if any. */
  next_data_dir: string | null;
}

/** What a connection test got from the model. */
export interface ConnectionTest {
  description: string;
  reply: string;
  millis: number;
}

/** An error as every command reports it. */
export interface CommandError {
  code: "not_found" | "invalid_input" | "conflict" | "needs_password" | "unavailable" | "internal";
  message: string;
}
