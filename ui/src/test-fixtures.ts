// What the UI's tests share: a document as the library lists it, and dialogs that open and close
// in jsdom (which has no modal dialogs).

import type { LibraryDocument } from "./bindings";

/** A ready document of three pages, with `extra` fields over it. */
export const doc = (id: string, folder: number, file_name: string, extra: Partial<LibraryDocument> = {}): LibraryDocument => ({
  id,
  folder,
  file_name,
  title: null,
  author: null,
  pdf_created: null,
  pdf_modified: null,
  source_path: null,
  mime_type: null,
  file_modified: null,
  page_count: 3,
  byte_size: 1000,
  char_count: null,
  chunk_count: null,
  content_hash: "",
  added_at: 0,
  status: "ready",
  reason: null,
  progress_done: 0,
  progress_total: 0,
  progress_ocr_page: null,
  embedded_with: "all-MiniLM-L6-v2/f32/0123456789abcdef",
  embed_done: 0,
  embed_total: 0,
  ...extra,
});

/** Makes `showModal` and `close` open and close a dialog. */
export function fakeModalDialogs() {
  HTMLDialogElement.prototype.showModal = function (this: HTMLDialogElement) {
    this.open = true;
  };
  HTMLDialogElement.prototype.close = function (this: HTMLDialogElement) {
    this.open = false;
  };
}
