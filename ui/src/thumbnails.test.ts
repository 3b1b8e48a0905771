import type { PDFDocumentProxy } from "pdfjs-dist";
import { Thumbnails } from "./thumbnails";

// jsdom lays nothing out, and has no scrolling into view.
Element.prototype.scrollIntoView = () => {};

const pdf = (pages: number) => ({ numPages: pages }) as PDFDocumentProxy;

describe("page thumbnails", () => {
  it("list every page once per document, mark the one shown, and show a page when clicked", () => {
    const shown: number[] = [];
    const strip = new Thumbnails((page) => shown.push(page));
    expect(strip.element.hidden).toBe(true);
    expect(strip.toggle()).toBe(true);
    const doc = pdf(3);
    strip.show(doc, 2);
    const items = () => [...strip.element.querySelectorAll<HTMLButtonElement>("button.thumbnail")];
    expect(items().map((b) => b.getAttribute("aria-label"))).toEqual(["Page 1", "Page 2", "Page 3"]);
    expect(items().map((b) => b.getAttribute("aria-current"))).toEqual([null, "page", null]);
    const first = items()[0];
    strip.show(doc, 3);
    expect(items()[0]).toBe(first);
    expect(items().map((b) => b.getAttribute("aria-current"))).toEqual([null, null, "page"]);
    first.click();
    expect(shown).toEqual([1]);
    strip.show(pdf(1), 1);
    expect(items()).toHaveLength(1);
    expect(strip.toggle()).toBe(false);
  });
});
