// The PDF viewer panel: pdf.js renders the cited page and its text layer, and the cited passage
// is highlighted from its stored character offsets, by the boxes the core gives each word of the
// page (by matching its words in the text layer only where the core has no boxes, as for a
// remote library's page, whose boxes stay with its server).
// The other pages are a click, a page number or Page Up/Down away; zoom goes in steps from the
// page's width fitted to the panel, or fits the whole page; Ctrl+F finds words in the document,
// page by page; "Back to the answer" returns to the footnote that opened the page.
// The PDF's bytes come from the `document_pdf` command (`remote_pdf` for a remote library's
// document); the webview reads no file.

import * as pdfjs from "pdfjs-dist";
import type { PDFDocumentProxy } from "pdfjs-dist";
import { button } from "./dom";
import { Thumbnails } from "./thumbnails";
import type { Api } from "./ipc";
import type { Citation, WordBox } from "./bindings";
import { sourceName, words } from "./store";

pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url).toString();

/** Which text items of a page belong to the passage: those whose words all appear, in order, in
 *  the passage, with at least two words or a long one (short items like "a" match anywhere). */
export function highlightedItems(items: string[], passage: string): boolean[] {
  const joined = ` ${words(passage).join(" ")} `;
  return items.map((item) => {
    const w = words(item);
    if (w.length === 0) return false;
    if (w.length === 1 && w[0].length < 5) return false;
    return joined.includes(` ${w.join(" ")} `);
  });
}

/** The pages (1-based) whose text holds every word of `query`, in order. */
export function pagesWith(pageTexts: string[], query: string): number[] {
  const wanted = words(query);
  if (wanted.length === 0) return [];
  return pageTexts.flatMap((text, i) => {
    const have = new Set(words(text));
    return wanted.every((w) => have.has(w)) ? [i + 1] : [];
  });
}

/** Which text items hold one of the words of `query`. */
export function itemsWith(items: string[], query: string): boolean[] {
  const wanted = new Set(words(query));
  return items.map((item) => words(item).some((w) => wanted.has(w)));
}

/** A rectangle on the page, as fractions of its width and height. */
export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The rectangles that cover characters `start..end` of a page's text: the boxes of the words
 *  in that range, those on one line joined into one. */
export function highlightedBoxes(words: WordBox[], start: number, end: number): Rect[] {
  const rects: Rect[] = [];
  for (const word of words) {
    if (word.end <= start || word.start >= end) continue;
    const [left, top, right, bottom] = word.bounds;
    const last = rects.at(-1);
    // The same line: the word overlaps the last rectangle vertically by half its height or more.
    const overlap = last ? Math.min(last.bottom, bottom) - Math.max(last.top, top) : 0;
    if (last && overlap >= (bottom - top) / 2) {
      last.left = Math.min(last.left, left);
      last.right = Math.max(last.right, right);
      last.top = Math.min(last.top, top);
      last.bottom = Math.max(last.bottom, bottom);
    } else {
      rects.push({ left, top, right, bottom });
    }
  }
  return rects;
}

/** A document the viewer shows: its id, in its remote library if `remote` names one. */
interface Shown {
  id: string;
  name: string;
  remote?: string;
}

/** What tells documents apart: their id, and their remote library's name (which has no "/"). */
const shownKey = (doc: Shown) => `${doc.remote ?? ""}/${doc.id}`;

/** The zoom steps, as multiples of the page's width fitted to the panel. */
export const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];

/** The zoom one step in `direction` (+1 or -1) from `zoom`, within [`ZOOMS`]. */
export function zoomStep(zoom: number, direction: 1 | -1): number {
  const index = ZOOMS.findIndex((z) => z >= zoom - 1e-9);
  const at = index < 0 ? ZOOMS.length - 1 : index;
  const exact = Math.abs(ZOOMS[at] - zoom) < 1e-9;
  const next = direction > 0 ? (exact ? at + 1 : at) : at - 1;
  return ZOOMS[Math.min(Math.max(next, 0), ZOOMS.length - 1)];
}

/** Page `page` kept within 1..`pages`; a number that is not one stays on `current`. */
export function pageWithin(page: number, pages: number, current: number): number {
  if (!Number.isFinite(page)) return current;
  return Math.min(Math.max(Math.round(page), 1), Math.max(pages, 1));
}

export class Viewer {
  private readonly documents = new Map<string, Promise<PDFDocumentProxy>>();
  private readonly title = document.createElement("h2");
  private readonly page = document.createElement("div");
  /** What scrolls the page shown. */
  private readonly scroller = document.createElement("div");
  private readonly thumbnails = new Thumbnails((page) => void this.goTo(page));
  private readonly pageBox = document.createElement("input");
  private readonly pageCount = document.createElement("span");
  private readonly zoomLabel = document.createElement("span");
  private readonly findBox = document.createElement("input");
  private readonly findStatus = document.createElement("span");
  private readonly back: HTMLButtonElement;
  /** The element that opened the viewer (a footnote), where "Back to the answer" goes. */
  private returnTo: HTMLElement | null = null;
  /** Whether the zoom fits the whole page rather than its width. */
  private fitPage = false;
  /** The words found, and the pages that hold them. */
  private found: { query: string; pages: number[] } | null = null;
  /** Each page's text, read once per document (by [`shownKey`]) for finding. */
  private texts: { key: string; pages: Promise<string[]> } | null = null;
  /** The boxes of the cited page's words, kept while it is shown again (zoomed, left and back). */
  private citedWords: { citation: Citation; words: Promise<WordBox[]> } | null = null;
  /** The document shown; the citation whose page is highlighted, if any; the page shown; the zoom. */
  private doc: Shown | null = null;
  private citation: Citation | null = null;
  private shown = 1;
  private pages = 1;
  private zoom = 1;

  constructor(
    private readonly root: HTMLElement,
    private readonly api: Api,
  ) {
    const header = document.createElement("header");
    const nav = document.createElement("div");
    nav.className = "viewer-nav";
    this.pageBox.type = "number";
    this.pageBox.min = "1";
    this.pageBox.className = "page-number";
    this.pageBox.setAttribute("aria-label", "Page");
    this.pageBox.addEventListener("change", () => void this.goTo(Number(this.pageBox.value)));
    this.zoomLabel.className = "zoom-level";
    const pagesButton = button(
      "Pages",
      "toggle-thumbnails",
      () => {
        pagesButton.setAttribute("aria-pressed", String(this.thumbnails.toggle()));
        // The page is fitted again to the room left beside the strip.
        if (this.doc) void this.render(this.shown);
      },
      "Show or hide the pages",
    );
    pagesButton.setAttribute("aria-pressed", "false");
    nav.append(
      pagesButton,
      button("‹", "previous-page", () => void this.goTo(this.shown - 1), "Previous page (Page Up)"),
      this.pageBox,
      this.pageCount,
      button("›", "next-page", () => void this.goTo(this.shown + 1), "Next page (Page Down)"),
      button("−", "zoom-out", () => void this.setZoom(zoomStep(this.zoom, -1)), "Zoom out (-)"),
      this.zoomLabel,
      button("+", "zoom-in", () => void this.setZoom(zoomStep(this.zoom, 1)), "Zoom in (+)"),
      button("Fit width", "zoom-fit", () => void this.setZoom(1), "Fit the page's width"),
      button("Fit page", "zoom-page", () => void this.setZoom(1, true), "Fit the whole page"),
    );
    const find = document.createElement("form");
    find.className = "viewer-find";
    find.setAttribute("role", "search");
    this.findBox.type = "search";
    this.findBox.placeholder = "Find in document";
    this.findBox.setAttribute("aria-label", "Find in the document (Ctrl+F)");
    this.findStatus.className = "find-status";
    this.findStatus.setAttribute("aria-live", "polite");
    find.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.findNext(1);
    });
    this.findBox.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && e.shiftKey) {
        e.preventDefault();
        void this.findNext(-1);
      }
    });
    find.append(this.findBox, this.findStatus);
    this.back = button("Back to the answer", "back-to-answer", () => this.backToAnswer());
    this.back.hidden = true;
    const close = button("Close", "close-viewer", () => (this.root.hidden = true), "Close the viewer");
    header.append(this.title, nav, find, this.back, close);
    this.page.className = "page";
    this.scroller.className = "viewer-page";
    // Scrolled by the keyboard too.
    this.scroller.tabIndex = 0;
    this.scroller.setAttribute("aria-label", "Page");
    this.scroller.append(this.page);
    const body = document.createElement("div");
    body.className = "viewer-body";
    body.append(this.thumbnails.element, this.scroller);
    root.tabIndex = -1;
    root.setAttribute("aria-label", "PDF viewer");
    root.addEventListener("keydown", (event) => this.key(event));
    root.replaceChildren(header, body);
    // A resized window (or interface size) fits the page again, once the resizing pauses.
    let resized = 0;
    window.addEventListener("resize", () => {
      window.clearTimeout(resized);
      resized = window.setTimeout(() => {
        if (this.doc && !this.root.hidden) void this.render(this.shown);
      }, 200);
    });
  }


  private key(event: KeyboardEvent) {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "f") {
      event.preventDefault();
      this.findBox.focus();
      this.findBox.select();
      return;
    }
    if (event.target instanceof HTMLInputElement) return;
    const actions: Record<string, () => Promise<void>> = {
      PageDown: () => this.goTo(this.shown + 1),
      PageUp: () => this.goTo(this.shown - 1),
      "+": () => this.setZoom(zoomStep(this.zoom, 1)),
      "=": () => this.setZoom(zoomStep(this.zoom, 1)),
      "-": () => this.setZoom(zoomStep(this.zoom, -1)),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      void action();
    }
  }

  private load(shown: Shown): Promise<PDFDocumentProxy> {
    const key = shownKey(shown);
    let doc = this.documents.get(key);
    if (!doc) {
      const { id, remote } = shown;
      const fetched = remote === undefined ? this.api.documentPdf(id) : this.api.remotePdf(remote, id);
      doc = fetched.then((bytes) => {
        const task = pdfjs.getDocument({ data: new Uint8Array(bytes) });
        // A protected PDF opens with the password it was unlocked with, asked for once; a remote
        // library's, whose password stays with its server, does not open.
        let asked = false;
        task.onPassword = (give: (password: string) => void) => {
          if (asked || remote !== undefined) return void task.destroy();
          asked = true;
          this.api.documentPassword(id).then(
            (password) => (password === null ? void task.destroy() : give(password)),
            () => void task.destroy(),
          );
        };
        return task.promise;
      });
      doc.catch(() => this.documents.delete(key));
      this.documents.set(key, doc);
    }
    return doc;
  }

  /** Opens the cited page (of a remote library's document, if the citation names one) with the
   *  passage highlighted, and moves the focus to it. */
  async open(citation: Citation, from: HTMLElement | null = null) {
    this.returnTo = from;
    this.back.hidden = from === null;
    const { document: id, remote } = citation;
    await this.show({ id, name: sourceName(citation), remote }, citation, citation.page);
  }

  /** The boxes of the cited page's words; none for a remote library's page (its server keeps
   *  them), whose passage is matched by its words. */
  private citedPageWords(citation: Citation): Promise<WordBox[]> {
    if (citation.remote !== undefined) return Promise.resolve([]);
    return this.api.pageWords(citation.document, citation.page);
  }

  /** Moves the focus back to the footnote that opened the page. */
  private backToAnswer() {
    this.returnTo?.scrollIntoView({ block: "center" });
    this.returnTo?.focus();
  }

  /** Goes to the next (or previous) page holding the words in the find box, and marks them. */
  async findNext(direction: 1 | -1) {
    const doc = this.doc;
    const query = this.findBox.value.trim();
    if (!doc || !query) return;
    if (this.found?.query !== query) {
      const key = shownKey(doc);
      if (this.texts?.key !== key) this.texts = { key, pages: this.pageTexts(doc) };
      const pages = pagesWith(await this.texts.pages, query);
      // Another document was opened meanwhile: this search is not its.
      if (this.doc !== doc) return;
      this.found = { query, pages };
    }
    const pages = this.found.pages;
    if (pages.length === 0) {
      this.findStatus.textContent = "Not found";
      return;
    }
    const next =
      direction > 0
        ? (pages.find((p) => p > this.shown) ?? pages[0])
        : ([...pages].reverse().find((p) => p < this.shown) ?? pages[pages.length - 1]);
    this.findStatus.textContent = `Page ${next}: ${pages.indexOf(next) + 1} of ${pages.length} pages`;
    await this.render(next);
  }

  private async pageTexts(doc: Shown): Promise<string[]> {
    const pdf = await this.load(doc);
    const texts: string[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const content = await (await pdf.getPage(n)).getTextContent();
      texts.push(content.items.map((item) => ("str" in item ? item.str : "")).join(" "));
    }
    return texts;
  }

  /** The id of this library's document the viewer shows, if it is open (a remote library's
   *  documents are not this library's to ask). */
  viewing(): string | null {
    return this.doc && !this.root.hidden && !this.doc.remote ? this.doc.id : null;
  }

  /** Opens a document at `page`, with nothing highlighted. */
  async openDocument(id: string, name: string, page = 1) {
    this.returnTo = null;
    this.back.hidden = true;
    await this.show({ id, name }, null, page);
  }

  private async show(doc: Shown, citation: Citation | null, page: number) {
    this.root.hidden = false;
    this.root.focus({ preventScroll: true });
    if (!this.doc || shownKey(this.doc) !== shownKey(doc)) this.found = null;
    this.doc = doc;
    this.citation = citation;
    await this.render(page);
  }

  /** Shows page `page` of the document open (highlighted if it is the cited one). */
  async goTo(page: number) {
    if (!this.doc) return;
    const next = pageWithin(page, this.pages, this.shown);
    if (next === this.shown) {
      this.pageBox.value = String(this.shown);
      return;
    }
    await this.render(next);
  }

  private async setZoom(zoom: number, fitPage = false) {
    this.zoom = zoom;
    this.fitPage = fitPage;
    if (this.doc) await this.render(this.shown);
  }

  private async render(number: number) {
    const { doc, citation } = this;
    if (!doc) return;
    const pdf = await this.load(doc);
    this.pages = pdf.numPages;
    this.shown = pageWithin(number, this.pages, 1);
    this.title.textContent = `${doc.name}, page ${this.shown}`;
    this.pageBox.value = String(this.shown);
    this.pageBox.max = String(this.pages);
    this.pageCount.textContent = `of ${this.pages}`;
    this.page.dataset.page = String(this.shown);
    this.thumbnails.show(pdf, this.shown);
    const page = await pdf.getPage(this.shown);
    const natural = page.getViewport({ scale: 1 });
    const fitted = Math.max(this.scroller.clientWidth - 24, 300) / natural.width;
    // Fit page: the page's height within the panel under its header, never wider than its width.
    if (this.fitPage) this.zoom = Math.min(1, (this.scroller.clientHeight - 16) / (natural.height * fitted));
    this.zoomLabel.textContent = this.fitPage ? "Page" : `${Math.round(this.zoom * 100)} %`;
    const viewport = page.getViewport({ scale: fitted * this.zoom });
    // Drawn at the screen's own pixels (125 % or 150 % scaling stays sharp), shown at its size.
    const ratio = window.devicePixelRatio || 1;
    const canvas = document.createElement("canvas");
    canvas.width = Math.floor(viewport.width * ratio);
    canvas.height = Math.floor(viewport.height * ratio);
    canvas.style.width = `${Math.floor(viewport.width)}px`;
    canvas.style.height = `${Math.floor(viewport.height)}px`;
    const context = canvas.getContext("2d");
    const textLayer = document.createElement("div");
    textLayer.className = "textLayer";
    this.page.replaceChildren(canvas, textLayer);
    this.page.style.setProperty("--scale-factor", String(viewport.scale));
    const transform = ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0];
    if (context) await page.render({ canvasContext: context, viewport, transform }).promise;
    const content = await page.getTextContent();
    const layer = new pdfjs.TextLayer({ textContentSource: content, container: textLayer, viewport });
    await layer.render();
    const spans = layer.textDivs;
    if (this.found?.pages.includes(this.shown)) {
      const marks = itemsWith(
        spans.map((s) => s.textContent ?? ""),
        this.found.query,
      );
      spans.forEach((span, i) => span.classList.toggle("found", marks[i]));
    }
    if (!citation || this.shown !== citation.page) {
      this.scroller.scrollTop = 0;
      return;
    }
    if (this.citedWords?.citation !== citation) {
      this.citedWords = { citation, words: this.citedPageWords(citation) };
    }
    // Without them (the file could not be read again), the passage's words are matched.
    const words = await this.citedWords.words.catch((): WordBox[] => []);
    if (this.shown !== citation.page) return;
    const boxes = highlightedBoxes(words, citation.char_start, citation.char_end).map((rect) => {
      const box = document.createElement("div");
      box.className = "passage-highlight";
      box.style.left = `${rect.left * 100}%`;
      box.style.top = `${rect.top * 100}%`;
      box.style.width = `${(rect.right - rect.left) * 100}%`;
      box.style.height = `${(rect.bottom - rect.top) * 100}%`;
      return box;
    });
    this.page.append(...boxes);
    // Without boxes (a page only the second reader could read), so are they.
    const marks = boxes.length
      ? []
      : highlightedItems(
          spans.map((s) => s.textContent ?? ""),
          citation.quote,
        );
    spans.forEach((span, i) => span.classList.toggle("highlight", marks[i] ?? false));
    (boxes[0] ?? spans.find((_, i) => marks[i]))?.scrollIntoView({ block: "center" });
  }
}
