// The indexing panel at the foot of the sidebar: whether everything is indexed, or how many
// documents are left and when they will be done at the measured rate, pause and resume of the whole queue, why indexing
// waits when the library's disk is full, read-only or gone (and what to do), and, opened, every
// document being read, embedded or waiting with its progress and a cancel button, and those that
// need attention with their action (retry, enter the password).

import { cancelIndexing, reindex, run, unlock, type ActionHooks } from "./actions";
import { button, keepingFocus } from "./dom";
import { ChevronRight, Pause, Play, X, icon } from "./icons";
import { queueView, RateMeter, secondsLeft, timeLeftText, workDone, type QueueEntry } from "./queue";
import type { LibraryDocument, LibraryView } from "./bindings";

/** `n` things, in words: "1 document", "3 documents". */
const count = (n: number, thing: string) => `${n} ${thing}${n === 1 ? "" : "s"}`;

/** What an entry is doing, in words. */
export function entryText(entry: QueueEntry): string {
  switch (entry.state) {
    case "reading":
      if (entry.doc.progress_ocr_page !== null) return `OCR page ${entry.doc.progress_ocr_page} of ${entry.total}`;
      return entry.total > 0 ? `Reading page ${entry.done} of ${entry.total}` : "Opening";
    case "embedding":
      return entry.done > 0 ? `Embedding passage ${entry.done} of ${entry.total}` : "Waiting to be embedded (searchable by keyword)";
    case "waiting":
      return "Waiting";
  }
}

export class IndexingPanel {
  readonly element = document.createElement("section");
  private readonly meter = new RateMeter();
  private expanded = false;
  private view: LibraryView | null = null;

  constructor(private readonly hooks: ActionHooks & { showInfo: (doc: LibraryDocument) => void }) {
    this.element.className = "indexing-panel";
    this.element.setAttribute("aria-label", "Indexing");
    this.element.hidden = true;
  }

  /** Shows the queue as the library now stands; `now` is when that state was read. The focus
   *  stays on the control it was on. */
  update(view: LibraryView, now = Date.now()) {
    keepingFocus(this.element, "document-id", () => this.redraw(view, now));
  }

  private redraw(view: LibraryView, now: number) {
    this.view = view;
    const waiting = view.paused || view.held !== null;
    if (waiting) this.meter.reset();
    else this.meter.add(now, workDone(view));
    const queue = queueView(view);
    this.element.hidden = view.documents.length === 0 && !waiting;
    if (this.element.hidden) return;
    const seconds = waiting ? null : secondsLeft(queue, this.meter.rate());
    this.element.dataset.secondsLeft = seconds === null ? "" : String(Math.round(seconds));

    const summary = document.createElement("span");
    summary.className = "summary";
    const left = queue.entries.length;
    const parts: string[] = [];
    if (view.paused) parts.push(left > 0 ? `Paused · ${count(left, "document")} left` : "Paused");
    else if (view.held !== null) parts.push(`Waiting for the library's disk · ${count(left, "document")} left`);
    else if (left > 0) {
      parts.push(`Indexing · ${count(left, "document")} left`);
      parts.push(seconds === null ? "measuring the rate…" : timeLeftText(seconds));
    }
    else parts.push(`All ${count(view.documents.length - queue.attention.length, "document")} indexed`);
    if (queue.attention.length > 0) parts.push(`${queue.attention.length} need${queue.attention.length === 1 ? "s" : ""} attention`);
    summary.textContent = parts.join(" · ");
    const toggle = button("", "toggle-queue", () => {
      this.expanded = !this.expanded;
      if (this.view) this.update(this.view, now);
    });
    toggle.setAttribute("aria-expanded", String(this.expanded));
    toggle.append(icon(ChevronRight, "disclosure"), summary);
    const pause = button(
      "",
      "pause-indexing",
      () => void run(this.hooks, () => this.hooks.api.pauseIndexing(!view.paused)),
      view.paused ? "Resume indexing" : "Pause indexing",
    );
    pause.append(icon(view.paused ? Play : Pause));
    const header = document.createElement("div");
    header.className = "queue-header";
    header.append(toggle, pause);
    this.element.replaceChildren(header);
    if (view.held !== null) {
      const held = document.createElement("p");
      held.className = "queue-held";
      held.setAttribute("role", "status");
      held.textContent = view.held.charAt(0).toUpperCase() + view.held.slice(1) + ".";
      this.element.append(held);
    }
    if (!this.expanded) return;
    const list = document.createElement("ul");
    list.className = "queue";
    list.append(...queue.entries.map((entry) => this.entryItem(entry)), ...queue.attention.map((doc) => this.attentionItem(doc)));
    this.element.append(list);
  }

  private entryItem(entry: QueueEntry): HTMLLIElement {
    const { doc } = entry;
    const name = doc.display_name;
    const item = document.createElement("li");
    item.className = `queue-entry ${entry.state}`;
    item.dataset.documentId = doc.id;
    const title = document.createElement("span");
    title.className = "queue-name";
    title.textContent = name;
    const detail = document.createElement("span");
    detail.className = "queue-detail";
    detail.textContent = entryText(entry);
    const bar = document.createElement("progress");
    bar.max = Math.max(entry.total, 1);
    bar.value = entry.done;
    bar.setAttribute("aria-label", `${name}: ${detail.textContent}`);
    item.append(title, detail, bar);
    if (entry.state !== "embedding") {
      const cancel = button("", "cancel-indexing", () => void cancelIndexing(this.hooks, doc.id), `Cancel indexing ${name}`);
      cancel.append(icon(X));
      item.append(cancel);
    }
    return item;
  }

  private attentionItem(doc: LibraryDocument): HTMLLIElement {
    const item = document.createElement("li");
    item.className = "queue-entry attention";
    item.dataset.documentId = doc.id;
    const title = document.createElement("span");
    title.className = "queue-name";
    title.textContent = doc.display_name;
    const detail = document.createElement("span");
    detail.className = "queue-detail";
    detail.textContent = doc.status === "needs_password" ? "Needs a password" : `Failed: ${doc.reason ?? "unknown reason"}`;
    const action =
      doc.status === "needs_password"
        ? button("Enter password", "unlock", () => void unlock(this.hooks, doc))
        : button("Retry", "retry", () => void reindex(this.hooks, [doc.id]));
    const why = button("Details", "details", () => this.hooks.showInfo(doc), `What happened to ${title.textContent}`);
    item.append(title, detail, action, why);
    return item;
  }
}
