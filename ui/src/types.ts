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

/** An error as every command reports it. */
export interface CommandError {
  code: "not_found" | "invalid_input" | "conflict" | "needs_password" | "unavailable" | "internal";
  message: string;
}
