// The indexing queue apart from the DOM: which documents wait, run or need attention, how much
// work is left (pages to read, passages to embed), the rate measured from the library's own
// progress, and the time left at that rate.

import type { LibraryDocument, LibraryView } from "./bindings";

/** A document of the queue, with what it is doing in words and how far it is. */
export interface QueueEntry {
  doc: LibraryDocument;
  state: "reading" | "embedding" | "waiting";
  done: number;
  total: number;
}

export interface QueueView {
  entries: QueueEntry[];
  /** Failed documents and those that need a password: each has an action. */
  attention: LibraryDocument[];
  pagesLeft: number;
  passagesLeft: number;
}

/** Whether a ready document is being embedded, or waits to be (searchable by keyword meanwhile). */
const embedding = (d: LibraryDocument) => d.status === "ready" && (d.embed_total > 0 || d.embedded_with === null);

/** The library's own ratios, for work not yet known: pages per byte of the PDFs read, passages per page. */
function ratios(view: LibraryView): { pagesPerByte: number; passagesPerPage: number } {
  let bytes = 0;
  let pages = 0;
  let passages = 0;
  for (const d of view.documents) {
    if (d.status !== "ready" || d.page_count === null) continue;
    bytes += d.byte_size;
    pages += d.page_count;
    passages += d.chunk_count ?? 0;
  }
  // With nothing read yet: a text PDF of about 30 KB a page and 3 passages a page.
  return {
    pagesPerByte: bytes > 0 && pages > 0 ? pages / bytes : 1 / 30_000,
    passagesPerPage: pages > 0 && passages > 0 ? passages / pages : 3,
  };
}

export function queueView(view: LibraryView): QueueView {
  const { pagesPerByte, passagesPerPage } = ratios(view);
  const entries: QueueEntry[] = [];
  let pagesLeft = 0;
  let passagesLeft = 0;
  for (const doc of view.documents) {
    if (doc.status === "indexing") {
      entries.push({ doc, state: "reading", done: doc.progress_done, total: doc.progress_total });
      const left = Math.max(0, doc.progress_total - doc.progress_done);
      pagesLeft += left;
      passagesLeft += doc.progress_total * passagesPerPage;
    } else if (doc.status === "queued") {
      entries.push({ doc, state: "waiting", done: 0, total: 0 });
      const pages = doc.page_count ?? Math.max(1, Math.round(doc.byte_size * pagesPerByte));
      pagesLeft += pages;
      passagesLeft += pages * passagesPerPage;
    } else if (embedding(doc)) {
      const total = doc.embed_total > 0 ? doc.embed_total : (doc.chunk_count ?? 0);
      entries.push({ doc, state: "embedding", done: doc.embed_done, total });
      passagesLeft += Math.max(0, total - doc.embed_done);
    }
  }
  const order = { reading: 0, embedding: 1, waiting: 2 };
  entries.sort((a, b) => order[a.state] - order[b.state] || a.doc.added_at - b.doc.added_at);
  const attention = view.documents.filter((d) => d.status === "failed" || d.status === "needs_password");
  return { entries, attention, pagesLeft: Math.round(pagesLeft), passagesLeft: Math.round(passagesLeft) };
}

/** Work done so far, summed over the library: pages read and passages embedded. */
export function workDone(view: LibraryView): { pages: number; passages: number } {
  let pages = 0;
  let passages = 0;
  for (const d of view.documents) {
    if (d.status === "indexing") pages += d.progress_done;
    else if (d.status === "ready") pages += d.page_count ?? 0;
    if (d.status === "ready") passages += d.embedded_with !== null && d.embed_total === 0 ? (d.chunk_count ?? 0) : d.embed_done;
  }
  return { pages, passages };
}

/** How long the measured rate is taken over. */
const WINDOW_MS = 60_000;

/** Measures pages read and passages embedded per second over the last minute. */
export class RateMeter {
  private samples: { at: number; pages: number; passages: number }[] = [];

  add(at: number, done: { pages: number; passages: number }) {
    const last = this.samples[this.samples.length - 1];
    // Work that went backwards (a document deleted or indexed again) starts the measure anew.
    if (last && (done.pages < last.pages || done.passages < last.passages)) this.samples = [];
    this.samples.push({ at, ...done });
    while (this.samples.length > 2 && at - this.samples[0].at > WINDOW_MS) this.samples.shift();
  }

  /** Pages and passages a second, once there are two samples a second apart. */
  rate(): { pages: number; passages: number } | null {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || !last || last.at - first.at < 1000) return null;
    const seconds = (last.at - first.at) / 1000;
    return { pages: (last.pages - first.pages) / seconds, passages: (last.passages - first.passages) / seconds };
  }

  reset() {
    this.samples = [];
  }
}

/** Seconds left at the measured rate: reading and embedding run side by side, so the slower
 *  of the two decides; null while a rate is not known. */
export function secondsLeft(queue: QueueView, rate: { pages: number; passages: number } | null): number | null {
  if (!rate) return null;
  const reading = queue.pagesLeft === 0 ? 0 : rate.pages > 0 ? queue.pagesLeft / rate.pages : null;
  const embedding = queue.passagesLeft === 0 ? 0 : rate.passages > 0 ? queue.passagesLeft / rate.passages : null;
  if (reading === null && embedding === null) return null;
  return Math.max(reading ?? 0, embedding ?? 0);
}

/** A time left in words: "less than a minute", "about 4 min", "about 2 h 10 min". */
export function timeLeftText(seconds: number): string {
  if (seconds < 60) return "less than a minute left";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${minutes} min left`;
  return `about ${Math.floor(minutes / 60)} h ${minutes % 60} min left`;
}
