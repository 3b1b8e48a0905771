// The UI's state, kept apart from the DOM so that it can be tested: the folder tree built from
// the library's flat lists, and the chat as it streams, its sources named (a remote library's
// with the remote's name).

import type {
  AnswerEvent,
  Citation,
  ErrorPayload,
  Folder,
  FolderStats,
  LibraryDocument,
  LibraryUpdate,
  LibraryView,
  Likeliest,
  Link,
} from "./bindings";

/** A tiny observable value. */
export class Store<T> {
  private listeners = new Set<(value: T) => void>();
  constructor(private current: T) {}
  get value(): T {
    return this.current;
  }
  set(value: T) {
    this.current = value;
    for (const listener of this.listeners) listener(value);
  }
  update(change: (value: T) => T) {
    this.set(change(this.current));
  }
  subscribe(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    listener(this.current);
    return () => this.listeners.delete(listener);
  }
}

/** A library with nothing in it, before the first state arrives. */
export const EMPTY_LIBRARY: LibraryView = { folders: [], totals: [], documents: [], links: [], paused: false, held: null, stamp: null };

/** The library as `update` says it now is, after `view`: its documents all, or (`partial`) those
 *  added or changed, the rest kept as they were but those `removed`. */
export function applyUpdate(view: LibraryView, update: LibraryUpdate): LibraryView {
  const { partial, removed, ...next } = update;
  if (!partial) return next;
  const documents = new Map(view.documents.map((d) => [d.id, d]));
  for (const id of removed) documents.delete(id);
  for (const doc of next.documents) documents.set(doc.id, doc);
  return { ...next, documents: [...documents.values()] };
}

export interface FolderNode {
  folder: Folder;
  children: FolderNode[];
  documents: LibraryDocument[];
  /** The directory the folder mirrors, if it is linked to one. */
  link: Link | null;
  /** What it holds, subfolders included, as the catalog counted it. */
  totals: FolderStats | null;
}

/** Names in a person's order: case-insensitive, then exact (collators made once: 10,000 names
 *  sort in milliseconds, where `localeCompare` with options makes one per comparison). */
const loose = new Intl.Collator(undefined, { sensitivity: "base" });
const exact = new Intl.Collator();
const byName = (a: string, b: string) => loose.compare(a, b) || exact.compare(a, b);

/** The folder tree, children and documents sorted by name (case-insensitive, then exact; a
 *  document by the name it is shown by, then its file name). */
export function buildTree(view: LibraryView): FolderNode[] {
  const nodes = new Map<number, FolderNode>();
  const totals = new Map(view.totals.map((t) => [t.folder.id, t]));
  for (const folder of view.folders) {
    nodes.set(folder.id, { folder, children: [], documents: [], link: null, totals: totals.get(folder.id) ?? null });
  }
  for (const link of view.links) {
    const node = nodes.get(link.folder);
    if (node) node.link = link;
  }
  const roots: FolderNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.folder.parent === null ? undefined : nodes.get(node.folder.parent);
    (parent ? parent.children : roots).push(node);
  }
  for (const doc of view.documents) nodes.get(doc.folder)?.documents.push(doc);
  const sort = (list: FolderNode[]) => {
    list.sort((a, b) => byName(a.folder.name, b.folder.name));
    for (const node of list) {
      node.documents.sort((a, b) => byName(a.display_name, b.display_name) || byName(a.file_name, b.file_name));
      sort(node.children);
    }
  };
  sort(roots);
  return roots;
}

/** What a linked folder's sync state says to a person. */
export function linkText(link: Link): string {
  if (!link.available) return `${link.path} is not there (an unplugged drive?); its documents are kept`;
  const parts = [`Linked to ${link.path}`];
  if (link.last_sync === null) parts.push("not synced yet");
  else parts.push(`synced ${new Date(link.last_sync).toLocaleTimeString()}`);
  if (link.pending > 0) parts.push(`${link.pending} being written`);
  if (link.failed.length > 0) parts.push(`${link.failed.length} failed: ${link.failed.map(([f, why]) => `${f} (${why})`).join("; ")}`);
  return parts.join(" · ");
}

/** What a document's status says to a person. */
export function statusText(doc: LibraryDocument): string {
  switch (doc.status) {
    case "ready": {
      // Searchable by keyword as soon as it is read; by meaning too once it is embedded.
      const ready =
        doc.embed_total > 0
          ? `Searchable by keyword · embedding ${Math.floor((doc.embed_done * 100) / doc.embed_total)} %`
          : doc.page_count === null
            ? "Ready"
            : `Ready · ${doc.page_count} pages`;
      // A ready document's reason names pages that need OCR.
      return doc.reason === null ? ready : `${ready} · ${doc.reason}`;
    }
    case "queued":
      return "Waiting to be indexed";
    case "indexing":
      if (doc.progress_total === 0) return "Indexing";
      if (doc.progress_ocr_page !== null) return `OCR page ${doc.progress_ocr_page} of ${doc.progress_total}`;
      return `Indexing page ${doc.progress_done} of ${doc.progress_total}`;
    case "needs_ocr":
      return `Needs OCR: ${doc.reason ?? "no text layer was found"}`;
    case "needs_password":
      return "Needs a password";
    case "failed":
      return `Failed: ${doc.reason ?? "unknown reason"}`;
  }
}

/** One answer as it streams in: its markdown body and the footnotes resolved so far. */
export interface StreamingAnswer {
  body: string;
  citations: Citation[];
  /** What the question's path is doing, until the next words come ("Reading 6 passages of …"). */
  stage?: string;
  /** While the model reads: the best passage's likeliest line, and the passage to open. */
  likeliest?: Likeliest;
}

/** Applies one streamed event to an answer. */
export function applyAnswerEvent(answer: StreamingAnswer, event: AnswerEvent): StreamingAnswer {
  if (event.type === "stage") {
    const likeliest = event.stage.step === "reading" ? (event.stage.likeliest ?? undefined) : undefined;
    return { ...answer, stage: event.text, likeliest };
  }
  if (event.type === "text") {
    return { ...answer, body: answer.body + event.text, stage: undefined, likeliest: undefined };
  }
  if (answer.citations.some((c) => c.number === event.citation.number)) return answer;
  return { ...answer, citations: [...answer.citations, event.citation] };
}

/** A cited document's name as a person reads it: with its remote library's, if it is one's
 *  ("memo.pdf · bob"). */
export function sourceName(source: { document_name: string; remote?: string }): string {
  return source.remote === undefined ? source.document_name : `${source.document_name} · ${source.remote}`;
}

/** The citations of an answer grouped per document (a remote library's apart from this one's),
 *  in order of first citation. */
export function citationsByDocument(citations: Citation[]): { name: string; citations: Citation[] }[] {
  const groups: { name: string; citations: Citation[] }[] = [];
  for (const c of citations) {
    const group = groups.find(({ citations: [first] }) => first.document === c.document && first.remote === c.remote);
    if (group) group.citations.push(c);
    else groups.push({ name: sourceName(c), citations: [c] });
  }
  return groups;
}

/** What the window offers beside an error, by the error's hint: the way to the fix, when the
 * window has one (a server that does not answer or a model that is missing or unknown is fixed in
 * the settings; a wrong password, by typing it again). */
export function errorRemedy(error: ErrorPayload): "open_settings" | "enter_password" | null {
  switch (error.hint?.kind) {
    case "check_settings":
    case "install_model":
    case "list_models":
      return "open_settings";
    case "enter_password":
      return "enter_password";
    default:
      return null;
  }
}

/** Words of a text, lower-cased: how a passage is matched against a page's text items, and how
 *  instant search marks the words searched for. */
export function words(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}
