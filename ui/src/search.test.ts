import { makeApi } from "./ipc";
import { QuickSearch, snippet } from "./search";
import type { Citation, Hit } from "./bindings";
import { fakeModalDialogs } from "./test-fixtures";

beforeAll(fakeModalDialogs);

afterEach(() => document.body.replaceChildren());

function hit(document: string, page: number, text: string): Hit {
  return {
    document,
    document_name: `${document}.pdf`,
    folder: 1,
    folder_path: "Papers",
    chunk_id: `${document}-${page}`,
    page,
    char_start: 10,
    char_end: 10 + text.length,
    text,
    score: 1,
    components: { vector: null, keyword: 1, keyword_share: 1, vector_rank: null, keyword_rank: 1, second_stage: null, named_page: false },
  };
}

/** The dialog over a fake shell whose `quick_search` is `reply`. */
function dialog(reply: (query: string) => Promise<Hit[]> | Hit[]) {
  const calls: string[] = [];
  const opened: Citation[] = [];
  const reports: string[] = [];
  const api = makeApi(
    async (command, args) => {
      if (command === "warm_search") {
        calls.push("(warm)");
        return 0;
      }
      expect(command).toBe("quick_search");
      const query = String(args?.query);
      calls.push(query);
      return { query, mode: "keyword", hits: await reply(query), sources: [], skipped: [] };
    },
    () => ({ onmessage: () => {} }),
  );
  const search = new QuickSearch({ api, open: (c) => opened.push(c), report: (m) => reports.push(m) });
  document.body.append(search.element);
  search.show();
  const input = search.element.querySelector("input") as HTMLInputElement;
  const type = (text: string) => {
    input.value = text;
    input.dispatchEvent(new Event("input"));
  };
  const key = (key: string) => input.dispatchEvent(new KeyboardEvent("keydown", { key, cancelable: true }));
  const hits = () => [...search.element.querySelectorAll("li.hit")];
  return { search, calls, opened, reports, type, key, hits };
}

describe("snippets", () => {
  it("marks each word searched for, whatever its case", () => {
    expect(snippet("The  Eiffel tower\nis tall; the TOWER is iron.", "tower iron")).toEqual([
      { text: "The Eiffel ", marked: false },
      { text: "tower", marked: true },
      { text: " is tall; the ", marked: false },
      { text: "TOWER", marked: true },
      { text: " is ", marked: false },
      { text: "iron", marked: true },
      { text: ".", marked: false },
    ]);
  });

  it("shows a long passage around the first word found, cut at spaces", () => {
    const text = `${"lorem ".repeat(100)}needle ${"ipsum ".repeat(100)}`;
    const segments = snippet(text, "needle");
    const shown = segments.map((s) => s.text).join("");
    expect(shown.startsWith("… lorem")).toBe(true);
    expect(shown.endsWith("ipsum …")).toBe(true);
    expect(shown.length).toBeLessThan(200);
    expect(segments.filter((s) => s.marked)).toEqual([{ text: "needle", marked: true }]);
  });
});

describe("instant search", () => {
  it("lists the passages found with document, page and marked words; Enter opens the chosen one", async () => {
    const { calls, opened, type, key, hits } = dialog(() => [
      hit("a", 3, "Revenue grew by nine percent."),
      hit("b", 7, "Operating revenue fell."),
    ]);
    type("revenue");
    await vi.waitFor(() => expect(hits()).toHaveLength(2));
    expect(calls).toEqual(["(warm)", "revenue"]);
    expect(hits()[0].querySelector(".hit-document")?.textContent).toBe("a.pdf");
    expect(hits()[0].querySelector(".hit-page")?.textContent).toBe("p. 3");
    expect([...hits()[1].querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["revenue"]);
    expect(hits()[0].getAttribute("aria-selected")).toBe("true");
    key("ArrowDown");
    expect(hits()[1].getAttribute("aria-selected")).toBe("true");
    key("Enter");
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ document: "b", page: 7, char_start: 10, quote: "Operating revenue fell." });
  });

  it("searches one at a time: keys typed meanwhile are searched once, as the box then reads", async () => {
    let slow: (hits: Hit[]) => void = () => {};
    const { calls, type, hits, search } = dialog((query) =>
      query === "rev" ? new Promise((resolve) => (slow = resolve)) : [hit("b", 2, "revenue")],
    );
    type("rev");
    await vi.waitFor(() => expect(calls).toContain("rev"));
    type("reve");
    type("revenue");
    expect(calls).toEqual(["(warm)", "rev"]);
    slow([hit("a", 1, "rev"), hit("a", 2, "rev")]);
    await vi.waitFor(() => expect(search.element.dataset.searched).toBe("revenue"));
    expect(calls).toEqual(["(warm)", "rev", "revenue"]);
    expect(hits().map((h) => (h as HTMLElement).dataset.page)).toEqual(["2"]);
    expect(Number(search.element.dataset.latency)).toBeGreaterThanOrEqual(0);
  });

  it("says when nothing has the words, and asks nothing for blank input", async () => {
    const { calls, type, hits, search } = dialog(() => []);
    type("   ");
    expect(calls).toEqual(["(warm)"]);
    type("zebra");
    await vi.waitFor(() => expect(search.element.textContent).toContain("No passage has these words."));
    expect(hits()).toHaveLength(0);
  });
});
