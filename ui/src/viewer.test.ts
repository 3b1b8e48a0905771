import { makeApi } from "./ipc";
import { highlightedBoxes, highlightedItems, itemsWith, pagesWith, pageWithin, Viewer, zoomStep } from "./viewer";
import type { Citation } from "./bindings";

// pdf.js stands in for itself: every document has three pages whose text is two items, laid out
// as one span each.
vi.mock("pdfjs-dist", () => {
  const items = [{ str: "Summary" }, { str: "The memo says the budget grew." }];
  const page = {
    getViewport: ({ scale }: { scale: number }) => ({ width: 600 * scale, height: 800 * scale, scale }),
    render: () => ({ promise: Promise.resolve() }),
    getTextContent: async () => ({ items }),
  };
  class TextLayer {
    textDivs: HTMLElement[] = [];
    constructor(private readonly options: { container: HTMLElement }) {}
    async render() {
      this.textDivs = items.map(({ str }) => {
        const span = document.createElement("span");
        span.textContent = str;
        return span;
      });
      this.options.container.append(...this.textDivs);
    }
  }
  const pdf = { numPages: 3, getPage: async () => page };
  return { GlobalWorkerOptions: {}, TextLayer, getDocument: () => ({ promise: Promise.resolve(pdf), destroy: () => {} }) };
});

describe("passage highlighting", () => {
  it("marks the page's text items that are part of the cited passage", () => {
    const items = ["Annual Report", "The Eiffel Tower is 330", "metres tall and was", "a", "finished in 1889.", "Next section"];
    expect(highlightedItems(items, "The Eiffel   Tower is 330 metres tall and was finished in 1889.")).toEqual([
      false,
      true,
      true,
      false,
      true,
      false,
    ]);
  });
});

describe("highlighting on a page read by OCR", () => {
  // "Call me Ishmael. Some years" over two lines: characters 0-4, 5-7, 8-16 / 17-21, 22-27.
  const words = [
    { start: 0, end: 4, bounds: [0.1, 0.1, 0.2, 0.12] },
    { start: 5, end: 7, bounds: [0.21, 0.101, 0.25, 0.12] },
    { start: 8, end: 16, bounds: [0.26, 0.1, 0.4, 0.121] },
    { start: 17, end: 21, bounds: [0.1, 0.13, 0.18, 0.15] },
    { start: 22, end: 27, bounds: [0.19, 0.13, 0.3, 0.15] },
  ] as { start: number; end: number; bounds: [number, number, number, number] }[];

  it("covers the cited characters' words, a rectangle per line", () => {
    expect(highlightedBoxes(words, 5, 21)).toEqual([
      { left: 0.21, top: 0.1, right: 0.4, bottom: 0.121 },
      { left: 0.1, top: 0.13, right: 0.18, bottom: 0.15 },
    ]);
  });

  it("covers nothing outside the page's words", () => {
    expect(highlightedBoxes(words, 30, 40)).toEqual([]);
    expect(highlightedBoxes([], 0, 10)).toEqual([]);
  });
});

describe("viewer navigation", () => {
  it("keeps page numbers within the document and ignores what is not a number", () => {
    expect(pageWithin(0, 12, 5)).toBe(1);
    expect(pageWithin(13, 12, 5)).toBe(12);
    expect(pageWithin(7.4, 12, 5)).toBe(7);
    expect(pageWithin(Number("seven"), 12, 5)).toBe(5);
  });

  it("zooms in steps from fitting the width, and stops at the ends", () => {
    expect(zoomStep(1, 1)).toBe(1.25);
    expect(zoomStep(1, -1)).toBe(0.75);
    expect(zoomStep(3, 1)).toBe(3);
    expect(zoomStep(0.5, -1)).toBe(0.5);
    // Between two steps: the next one up, or the one below.
    expect(zoomStep(1.1, 1)).toBe(1.25);
    expect(zoomStep(1.1, -1)).toBe(1);
  });
});

describe("find in the document", () => {
  it("finds the pages holding every word searched for, and marks the items holding one", () => {
    const pages = ["Annual report 2024", "Revenue grew in Europe.", "Europe: revenue by region", "Outlook"];
    expect(pagesWith(pages, "revenue europe")).toEqual([2, 3]);
    expect(pagesWith(pages, "  ")).toEqual([]);
    expect(itemsWith(["Revenue grew", "in", "Asia"], "revenue europe")).toEqual([true, false, false]);
  });
});

describe("a remote library's citation", () => {
  it("opens its page from the remote's server, named with it, its passage matched by its words", async () => {
    // jsdom draws nothing, and has no scrolling into view.
    vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockReturnValue(null);
    Element.prototype.scrollIntoView = () => {};
    const calls: [string, Record<string, unknown> | undefined][] = [];
    const api = makeApi(
      async (command, args) => {
        calls.push([command, args]);
        return command === "page_words" ? [] : new ArrayBuffer(8);
      },
      () => ({ onmessage: () => {} }),
    );
    const root = document.createElement("aside");
    document.body.append(root);
    const citation: Citation = {
      number: 1,
      document: "rd1",
      document_name: "memo.pdf",
      chunk_id: "c",
      page: 2,
      char_start: 0,
      char_end: 30,
      quote: "The memo says the budget grew.",
      score: 1,
      remote: "bob",
    };
    const viewer = new Viewer(root, api);
    await viewer.open(citation);
    expect(calls).toEqual([["remote_pdf", { remote: "bob", id: "rd1" }]]);
    expect(root.querySelector("h2")?.textContent).toBe("memo.pdf · bob, page 2");
    expect([...root.querySelectorAll(".textLayer span")].map((s) => s.classList.contains("highlight"))).toEqual([false, true]);
    // This library's document of the same id is another: its own PDF, with its words' boxes.
    const { remote: _, ...local } = citation;
    await viewer.open(local);
    expect(calls.slice(1)).toEqual([
      ["document_pdf", { id: "rd1" }],
      ["page_words", { id: "rd1", page: 2 }],
    ]);
    expect(root.querySelector("h2")?.textContent).toBe("memo.pdf, page 2");
    vi.restoreAllMocks();
  });
});
