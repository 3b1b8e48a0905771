// A document in full: every field the catalog keeps (title, file, where it came from, size,
// pages, dates, status, which pages need OCR, the embedding model) and its log, what happened
// to it and when; with the actions a document has (open, rename, index again, cancel, delete).

import { cancelIndexing, reindex, run, type ActionHooks } from "./actions";
import { button, buttonRow, dialog, namingHeading } from "./dom";
import { statusText } from "./store";
import type { LibraryDocument, LibraryView, LogEntry } from "./bindings";

export interface InfoHooks extends ActionHooks {
  openDocument: (doc: LibraryDocument) => void;
}

/** A size in bytes as a person reads it. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

const when = (ms: number | null) => (ms === null ? null : new Date(ms).toLocaleString());
const number = (n: number | null) => (n === null ? null : n.toLocaleString("en"));

/** The fields shown, label and value; a field the document lacks says so. */
export function infoFields(doc: LibraryDocument, view: LibraryView): [string, string][] {
  const folder = view.folders.find((f) => f.id === doc.folder)?.path ?? null;
  const fields: [string, string | null][] = [
    ["Title", doc.title],
    ["File name", doc.file_name],
    ["Folder", folder],
    ["Imported from", doc.source_path],
    ["Status", statusText(doc)],
    ["Pages", number(doc.page_count)],
    ["Characters", number(doc.char_count)],
    ["Passages", number(doc.chunk_count)],
    ["Size", sizeText(doc.byte_size)],
    ["Type", doc.mime_type],
    ["Author", doc.author],
    ["Written (PDF)", doc.pdf_created],
    ["Modified (PDF)", doc.pdf_modified],
    ["File modified", when(doc.file_modified)],
    ["Added", when(doc.added_at)],
    ["Searchable by meaning with", doc.embedded_with],
    ["SHA-256", doc.content_hash],
  ];
  return fields.map(([label, value]) => [label, value ?? "—"]);
}

export class InfoDialog {
  readonly element = dialog("document-info");

  constructor(private readonly hooks: InfoHooks) {}

  /** Shows `doc` with its log, as the library now stands. */
  async show(doc: LibraryDocument, view: LibraryView) {
    const title = namingHeading(this.element, "document-info-title", doc.display_name);
    const fields = document.createElement("dl");
    for (const [label, value] of infoFields(doc, view)) {
      const term = document.createElement("dt");
      term.textContent = label;
      const detail = document.createElement("dd");
      detail.textContent = value;
      fields.append(term, detail);
    }
    const logTitle = document.createElement("h3");
    logTitle.textContent = "What happened";
    const log = document.createElement("ol");
    log.className = "document-log";
    const close = () => this.element.close();
    const actions = buttonRow();
    const act = (label: string, className: string, action: () => Promise<unknown> | void) =>
      button(label, className, () => {
        close();
        void action();
      });
    actions.append(act("Open", "open-document", () => this.hooks.openDocument(doc)));
    if (doc.status === "queued" || doc.status === "indexing") {
      actions.append(act("Cancel indexing", "cancel-indexing", () => cancelIndexing(this.hooks, doc.id)));
    } else {
      actions.append(act(doc.status === "failed" ? "Retry" : "Index again", "reindex", () => reindex(this.hooks, [doc.id])));
    }
    actions.append(
      act("Rename…", "rename", () => {
        const name = window.prompt("New name", doc.file_name);
        if (name && name !== doc.file_name) return run(this.hooks, () => this.hooks.api.renameDocument(doc.id, name));
      }),
      act("Delete…", "delete", () => {
        if (window.confirm(`Delete "${doc.file_name}" with its index? The original file is not touched.`)) {
          return run(this.hooks, () => this.hooks.api.deleteDocument(doc.id));
        }
      }),
      button("Close", "close", close),
    );
    this.element.replaceChildren(title, fields, logTitle, log, actions);
    if (!this.element.open) this.element.showModal();
    try {
      log.append(...(await this.hooks.api.documentLog(doc.id)).map(logItem));
    } catch (e) {
      log.append(logItem({ at: Date.now(), level: "error", message: `The log could not be read: ${String((e as Error).message ?? e)}` }));
    }
  }
}

function logItem(entry: LogEntry): HTMLLIElement {
  const item = document.createElement("li");
  item.className = `log-${entry.level}`;
  const at = document.createElement("time");
  at.dateTime = new Date(entry.at).toISOString();
  at.textContent = new Date(entry.at).toLocaleString();
  const message = document.createElement("span");
  message.textContent = entry.message;
  item.append(at, message);
  return item;
}
