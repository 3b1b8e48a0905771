// Instant search (Ctrl+K): a dialog that searches the whole library by keyword as the user types
// and lists each passage with its document, page and a snippet with the words found marked;
// arrows choose, Enter (or a click) opens the page in the viewer with the passage highlighted.
// Needs no model: it is the fast trail a user can check an answer against.

import type { Citation, Hit } from "./bindings";
import type { Api } from "./ipc";
import { words } from "./store";
import { dialog } from "./dom";

/** How many passages a search lists. */
const RESULTS = 20;
/** How many characters of a passage its snippet shows, around the first word found. */
const SNIPPET = 180;

/** A piece of a snippet: text, marked when it is one of the words searched for. */
export interface Segment {
  text: string;
  marked: boolean;
}

/** Up to `SNIPPET` characters of `text` around the first of `query`'s words it has, cut at
 *  spaces, with every word of the query marked. */
export function snippet(text: string, query: string): Segment[] {
  const wanted = new Set(words(query));
  const flat = text.replace(/\s+/g, " ").trim();
  const pieces = flat.split(/([\p{L}\p{N}]+)/u);
  const isWanted = (piece: string) => wanted.has(piece.normalize("NFKC").toLowerCase());
  const firstHit = pieces.findIndex(isWanted);
  let offset = 0;
  if (firstHit > 0) {
    const before = pieces.slice(0, firstHit).join("").length;
    offset = Math.max(0, before - SNIPPET / 3);
  }
  let start = offset;
  if (start > 0) {
    const space = flat.indexOf(" ", start);
    start = space < 0 ? start : space + 1;
  }
  let end = Math.min(flat.length, start + SNIPPET);
  if (end < flat.length) {
    const space = flat.lastIndexOf(" ", end);
    end = space > start ? space : end;
  }
  const shown = flat.slice(start, end);
  const segments: Segment[] = [];
  if (start > 0) segments.push({ text: "… ", marked: false });
  for (const piece of shown.split(/([\p{L}\p{N}]+)/u)) {
    if (!piece) continue;
    const marked = isWanted(piece);
    const last = segments.at(-1);
    if (last && !last.marked && !marked) last.text += piece;
    else segments.push({ text: piece, marked });
  }
  if (end < flat.length) segments.push({ text: " …", marked: false });
  return segments;
}

/** A hit as the viewer opens it: a citation of the passage without a footnote number (of its
 *  remote library's document, if it comes from one). */
export function hitCitation(hit: Hit): Citation {
  const { document, document_name, chunk_id, page, char_start, char_end, text, score, remote } = hit;
  const citation = { number: 0, document, document_name, chunk_id, page, char_start, char_end, quote: text, score };
  return remote === undefined ? citation : { ...citation, remote };
}

export interface QuickSearchHooks {
  api: Api;
  open: (citation: Citation) => void;
  report: (message: string) => void;
}

export class QuickSearch {
  readonly element = dialog("quick-search");
  private readonly input = document.createElement("input");
  private readonly list = document.createElement("ul");
  private readonly status = document.createElement("p");
  private hits: Hit[] = [];
  private chosen = 0;
  /** The number of the latest search: replies to older ones are dropped. */
  private latest = 0;
  /** Whether a search is under way: keys typed meanwhile wait for it, and then the box is
   *  searched once, as it is by then (searches side by side would only slow each other). */
  private searching = false;
  /** When the latest key waiting for the search under way came, if one is. */
  private waiting: number | null = null;
  /** The opening of the library's indexes under way, if any. */
  private warming: Promise<unknown> | null = null;

  constructor(private readonly hooks: QuickSearchHooks) {
    this.element.setAttribute("aria-label", "Search the library");
    this.input.type = "search";
    this.input.placeholder = "Search every document…";
    this.input.setAttribute("aria-label", "Words to find");
    this.input.setAttribute("role", "combobox");
    this.input.setAttribute("aria-controls", "quick-search-results");
    this.input.setAttribute("aria-expanded", "false");
    this.list.id = "quick-search-results";
    this.list.setAttribute("role", "listbox");
    this.list.setAttribute("aria-label", "Passages found");
    this.status.className = "quick-search-status";
    this.status.setAttribute("aria-live", "polite");
    this.element.append(this.input, this.status, this.list);
    this.input.addEventListener("input", () => void this.search(performance.now()));
    this.input.addEventListener("keydown", (event) => this.key(event));
  }

  /** Opens the library's indexes ahead of the first search (those opened since are cheap to
   *  look at again); a search waits for an opening under way rather than open them twice. */
  warm() {
    // A failure here shows again, and is reported, when the search runs.
    this.warming ??= this.hooks.api
      .warmSearch()
      .catch(() => undefined)
      .finally(() => (this.warming = null));
  }

  /** Opens the dialog with the words last searched for selected; the indexes of documents
   *  added since the last opening are opened meanwhile. */
  show() {
    if (!this.element.open) {
      this.element.showModal();
      this.warm();
    }
    this.input.select();
  }

  /** Searches for what the box holds, after the search under way if there is one; `began` is
   *  when the keystroke came, for the latency the dialog records with the words searched
   *  (`data-latency` in milliseconds and `data-searched`, read by the app's benchmark). */
  async search(began: number) {
    if (this.searching) {
      this.waiting = began;
      return;
    }
    this.searching = true;
    try {
      await this.searchNow(began);
    } finally {
      this.searching = false;
    }
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting !== null) await this.search(waiting);
  }

  private async searchNow(began: number) {
    const query = this.input.value.trim();
    const number = ++this.latest;
    if (words(query).length === 0) {
      this.showHits([], query);
      return;
    }
    let hits: Hit[];
    try {
      if (this.warming) await this.warming;
      hits = (await this.hooks.api.quickSearch(query, RESULTS)).hits;
    } catch (e) {
      if (number === this.latest) this.hooks.report((e as { message?: string }).message ?? String(e));
      return;
    }
    if (number !== this.latest) return;
    this.showHits(hits, query);
    this.element.dataset.searched = query;
    this.element.dataset.latency = (performance.now() - began).toFixed(1);
  }

  private showHits(hits: Hit[], query: string) {
    this.hits = hits;
    this.chosen = 0;
    this.input.setAttribute("aria-expanded", String(hits.length > 0));
    this.status.textContent = !query ? "" : hits.length === 0 ? "No passage has these words." : "";
    this.list.replaceChildren(
      ...hits.map((hit, i) => {
        const item = document.createElement("li");
        item.className = "hit";
        item.id = `quick-search-hit-${i}`;
        item.setAttribute("role", "option");
        item.dataset.document = hit.document;
        item.dataset.page = String(hit.page);
        const where = document.createElement("div");
        where.className = "hit-where";
        const name = document.createElement("span");
        name.className = "hit-document";
        name.textContent = hit.document_name;
        const page = document.createElement("span");
        page.className = "hit-page";
        page.textContent = `p. ${hit.page}`;
        where.append(name, page);
        const text = document.createElement("div");
        text.className = "hit-snippet";
        for (const segment of snippet(hit.text, query)) {
          if (segment.marked) {
            const mark = document.createElement("mark");
            mark.textContent = segment.text;
            text.append(mark);
          } else {
            text.append(segment.text);
          }
        }
        item.append(where, text);
        item.addEventListener("mousedown", (event) => event.preventDefault());
        item.addEventListener("click", () => this.openHit(i));
        return item;
      }),
    );
    this.choose(0);
  }

  private key(event: KeyboardEvent) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      this.choose(this.chosen + (event.key === "ArrowDown" ? 1 : -1));
    } else if (event.key === "Enter") {
      event.preventDefault();
      this.openHit(this.chosen);
    }
  }

  private choose(index: number) {
    if (this.hits.length === 0) {
      this.input.removeAttribute("aria-activedescendant");
      return;
    }
    this.chosen = (index + this.hits.length) % this.hits.length;
    [...this.list.children].forEach((item, i) => item.setAttribute("aria-selected", String(i === this.chosen)));
    const item = this.list.children[this.chosen];
    this.input.setAttribute("aria-activedescendant", item.id);
    item.scrollIntoView?.({ block: "nearest" });
  }

  private openHit(index: number) {
    const hit = this.hits[index];
    if (!hit) return;
    this.element.close();
    this.hooks.open(hitCitation(hit));
  }
}
