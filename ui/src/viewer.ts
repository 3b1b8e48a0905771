// The PDF viewer panel: pdf.js renders the cited page and its text layer, and the cited passage
// is highlighted: through the text layer, or on a page read by OCR, from the boxes of its words.
// The PDF's bytes come from the `document_pdf` command; the webview reads no file.

import * as pdfjs from "pdfjs-dist";
import type { PDFDocumentProxy } from "pdfjs-dist";
import type { Api } from "./ipc";
import type { Citation, WordBox } from "./bindings";

pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url).toString();

/** Words of a text, lower-cased, for matching the passage against the page's text items. */
export function words(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

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

/** A rectangle on the page, as fractions of its width and height. */
export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The rectangles that cover characters `start..end` of a page read by OCR: the boxes of the
 *  words in that range, those on one line joined into one. */
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

export class Viewer {
  private readonly documents = new Map<string, Promise<PDFDocumentProxy>>();
  private readonly title = document.createElement("h2");
  private readonly page = document.createElement("div");

  constructor(
    private readonly root: HTMLElement,
    private readonly api: Api,
  ) {
    const header = document.createElement("header");
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Close";
    close.addEventListener("click", () => (this.root.hidden = true));
    header.append(this.title, close);
    this.page.className = "page";
    root.tabIndex = -1;
    root.setAttribute("aria-label", "PDF viewer");
    root.replaceChildren(header, this.page);
  }

  private load(id: string): Promise<PDFDocumentProxy> {
    let doc = this.documents.get(id);
    if (!doc) {
      doc = this.api.documentPdf(id).then((bytes) => pdfjs.getDocument({ data: new Uint8Array(bytes) }).promise);
      this.documents.set(id, doc);
    }
    return doc;
  }

  /** Opens the cited page with the passage highlighted, and moves the focus to it. */
  async open(citation: Citation) {
    this.root.hidden = false;
    this.root.focus({ preventScroll: true });
    this.title.textContent = `${citation.document_name}, page ${citation.page}`;
    this.page.dataset.page = String(citation.page);
    const pdf = await this.load(citation.document);
    const page = await pdf.getPage(Math.min(citation.page, pdf.numPages));
    const width = Math.max(this.root.clientWidth - 24, 300);
    const viewport = page.getViewport({ scale: width / page.getViewport({ scale: 1 }).width });
    const canvas = document.createElement("canvas");
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    const context = canvas.getContext("2d");
    const textLayer = document.createElement("div");
    textLayer.className = "textLayer";
    this.page.replaceChildren(canvas, textLayer);
    this.page.style.setProperty("--scale-factor", String(viewport.scale));
    if (context) await page.render({ canvasContext: context, viewport }).promise;
    const content = await page.getTextContent();
    const layer = new pdfjs.TextLayer({ textContentSource: content, container: textLayer, viewport });
    await layer.render();
    const spans = layer.textDivs;
    const marks = highlightedItems(
      spans.map((s) => s.textContent ?? ""),
      citation.quote,
    );
    spans.forEach((span, i) => span.classList.toggle("highlight", marks[i]));
    const words = await this.api.pageWords(citation.document, citation.page);
    const boxes = highlightedBoxes(words, citation.char_start, citation.char_end).map((rect) => {
      const box = document.createElement("div");
      box.className = "ocr-highlight";
      box.style.left = `${rect.left * 100}%`;
      box.style.top = `${rect.top * 100}%`;
      box.style.width = `${(rect.right - rect.left) * 100}%`;
      box.style.height = `${(rect.bottom - rect.top) * 100}%`;
      return box;
    });
    this.page.append(...boxes);
    (boxes[0] ?? spans.find((_, i) => marks[i]))?.scrollIntoView({ block: "center" });
  }
}
