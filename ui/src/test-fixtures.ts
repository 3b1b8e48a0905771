// What the UI's tests share: a document, a folder and a chat as the library lists them, and
// dialogs that open and close in jsdom (which has no modal dialogs).

import { WHOLE_LIBRARY } from "./scope";
import type { Chat, Folder, FolderStats, LibraryDocument, LibraryView } from "./bindings";

/** A ready document of three pages, with `extra` fields over it; it is shown by its title when
 *  `extra` gives one, else by its file name without `.pdf` (the core's rule for a title that
 *  reads as one). */
export const doc = (id: string, folder: number, file_name: string, extra: Partial<LibraryDocument> = {}): LibraryDocument => ({
  id,
  folder,
  file_name,
  title: null,
  display_name: extra.title ?? file_name.replace(/\.pdf$/i, ""),
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

/** A folder at `path` under `parent`, named by the path's last part, with no strategy of its own
 *  nor one to inherit unless `extra` gives them (the catalog fills in the inherited one). */
export const folder = (id: number, parent: number | null, path: string, extra: Partial<Folder> = {}): Folder => ({
  id,
  parent,
  name: path.slice(path.lastIndexOf("/") + 1),
  path,
  strategy: null,
  inherited_strategy: null,
  created_at: 0,
  ...extra,
});

/** A library of these folders, documents and `extra` fields, with each folder's totals
 *  (subfolders included) as the catalog counts them. */
export function libraryView(folders: Folder[], documents: LibraryDocument[], extra: Partial<LibraryView> = {}): LibraryView {
  const totals = folders.map((f): FolderStats => {
    const inside = documents.filter((d) => {
      const at = folders.find((g) => g.id === d.folder);
      return at !== undefined && (at.path === f.path || at.path.startsWith(`${f.path}/`));
    });
    const count = (statuses: string[]) => inside.filter((d) => statuses.includes(d.status)).length;
    return {
      folder: f,
      documents: inside.length,
      pages: inside.reduce((n, d) => n + (d.page_count ?? 0), 0),
      chunks: inside.reduce((n, d) => n + (d.chunk_count ?? 0), 0),
      ready: count(["ready"]),
      pending: count(["queued", "indexing"]),
      needing_attention: count(["needs_ocr", "needs_password", "failed"]),
      latest_added: inside.length === 0 ? null : Math.max(...inside.map((d) => d.added_at)),
    };
  });
  return { folders, totals, documents, links: [], paused: false, held: null, stamp: null, ...extra };
}

/** A saved chat of one question and its answer over the whole library, with no strategy of its
 *  own, with `extra` fields over it. */
export const savedChat = (id: string, title: string, extra: Partial<Chat> = {}): Chat => ({
  id,
  title,
  scope: WHOLE_LIBRARY,
  strategy: null,
  created_at: 0,
  updated_at: 0,
  message_count: 2,
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
