// The viewer's strip of page thumbnails: a button per page, each drawn by pdf.js only once it
// scrolls into view (a long report costs nothing until its pages are looked at), the page shown
// marked as the current one; a click shows that page.

import type { PDFDocumentProxy } from "pdfjs-dist";

/** How wide a thumbnail is, in CSS pixels. */
const WIDTH = 84;
/** The height a page not drawn yet is given, as a share of its width (a portrait page's). */
const PORTRAIT = 1.3;

export class Thumbnails {
  readonly element = document.createElement("nav");
  private pdf: PDFDocumentProxy | null = null;
  private observer: IntersectionObserver | null = null;

  constructor(private readonly go: (page: number) => void) {
    this.element.className = "thumbnails";
    this.element.setAttribute("aria-label", "Pages");
    this.element.hidden = true;
  }

  /** Shows or hides the strip; whether it is shown now. */
  toggle(): boolean {
    this.element.hidden = !this.element.hidden;
    this.current()?.scrollIntoView({ block: "nearest" });
    return !this.element.hidden;
  }

  /** The pages of `pdf` (built once per document), page `shown` marked as the current one. */
  show(pdf: PDFDocumentProxy, shown: number) {
    if (this.pdf !== pdf) this.build(pdf);
    for (const item of this.items()) {
      if (Number(item.dataset.page) === shown) item.setAttribute("aria-current", "page");
      else item.removeAttribute("aria-current");
    }
    if (!this.element.hidden) this.current()?.scrollIntoView({ block: "nearest" });
  }

  private items(): HTMLButtonElement[] {
    return [...this.element.querySelectorAll<HTMLButtonElement>("button.thumbnail")];
  }

  private current(): HTMLButtonElement | null {
    return this.element.querySelector<HTMLButtonElement>("button.thumbnail[aria-current]");
  }

  private build(pdf: PDFDocumentProxy) {
    this.pdf = pdf;
    this.observer?.disconnect();
    // Without an IntersectionObserver (a test's DOM) the pages stay undrawn.
    this.observer =
      typeof IntersectionObserver === "undefined"
        ? null
        : new IntersectionObserver(
            (entries) => {
              for (const entry of entries.filter((e) => e.isIntersecting)) {
                this.observer?.unobserve(entry.target);
                void this.draw(entry.target as HTMLButtonElement, pdf);
              }
            },
            { root: this.element, rootMargin: "300px 0px" },
          );
    const items = Array.from({ length: pdf.numPages }, (_, i) => {
      const number = i + 1;
      const item = document.createElement("button");
      item.type = "button";
      item.className = "thumbnail";
      item.dataset.page = String(number);
      item.setAttribute("aria-label", `Page ${number}`);
      const canvas = document.createElement("canvas");
      canvas.style.width = `${WIDTH}px`;
      canvas.style.height = `${Math.round(WIDTH * PORTRAIT)}px`;
      const label = document.createElement("span");
      label.textContent = String(number);
      item.append(canvas, label);
      item.addEventListener("click", () => this.go(number));
      return item;
    });
    this.element.replaceChildren(...items);
    for (const item of items) this.observer?.observe(item);
  }

  private async draw(item: HTMLButtonElement, pdf: PDFDocumentProxy) {
    const page = await pdf.getPage(Number(item.dataset.page));
    const canvas = item.querySelector("canvas");
    if (this.pdf !== pdf || !canvas) return;
    const ratio = window.devicePixelRatio || 1;
    const natural = page.getViewport({ scale: 1 });
    const viewport = page.getViewport({ scale: (WIDTH * ratio) / natural.width });
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    canvas.style.height = `${Math.round(viewport.height / ratio)}px`;
    const context = canvas.getContext("2d");
    if (context) await page.render({ canvasContext: context, viewport }).promise;
  }
}
