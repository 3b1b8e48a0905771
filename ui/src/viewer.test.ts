import { highlightedBoxes, highlightedItems, itemsWith, pagesWith, pageWithin, zoomStep } from "./viewer";

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
