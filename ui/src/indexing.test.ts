import { IndexingPanel } from "./indexing";
import { makeApi } from "./ipc";
import { queueView, RateMeter, secondsLeft, timeLeftText, workDone } from "./queue";
import { EMPTY_LIBRARY } from "./store";
import { doc } from "./test-fixtures";
import type { LibraryView } from "./bindings";

/** A library of one ready document of 10 pages (300 KB, 30 passages), one being read (page 4 of
 *  20), one waiting (600 KB, so about 20 pages by the library's own ratio), one being embedded
 *  and one that failed. */
function library(paused = false, read = 4): LibraryView {
  return {
    ...EMPTY_LIBRARY,
    paused,
    documents: [
      doc("r", 1, "ready.pdf", { page_count: 10, byte_size: 300_000, chunk_count: 30 }),
      doc("i", 1, "reading.pdf", { status: "indexing", progress_done: read, progress_total: 20, page_count: null, embedded_with: null }),
      doc("q", 1, "waiting.pdf", { status: "queued", byte_size: 600_000, page_count: null, embedded_with: null }),
      doc("e", 1, "embedding.pdf", { page_count: 5, byte_size: 150_000, chunk_count: 15, embedded_with: null, embed_done: 5, embed_total: 15 }),
      doc("f", 1, "broken.pdf", { status: "failed", reason: "the file is damaged" }),
    ],
  };
}

describe("indexing queue", () => {
  it("counts the work left, estimating what is not read yet from the library's own ratios", () => {
    const queue = queueView(library());
    expect(queue.entries.map((e) => [e.doc.id, e.state, e.done, e.total])).toEqual([
      ["i", "reading", 4, 20],
      ["e", "embedding", 5, 15],
      ["q", "waiting", 0, 0],
    ]);
    expect(queue.attention.map((d) => d.id)).toEqual(["f"]);
    // 16 pages of the one being read, 20 estimated for the one waiting; 3 passages a page.
    expect(queue.pagesLeft).toBe(36);
    expect(queue.passagesLeft).toBe(60 + 60 + 10);
  });

  it("measures the rate over time and gives the time left by the slower of reading and embedding", () => {
    const meter = new RateMeter();
    meter.add(0, workDone(library(false, 4)));
    expect(meter.rate()).toBeNull();
    meter.add(10_000, workDone(library(false, 14)));
    expect(meter.rate()).toEqual({ pages: 1, passages: 0 });
    const queue = queueView(library(false, 14));
    expect(secondsLeft(queue, { pages: 1, passages: 2 })).toBe(Math.max(26, queue.passagesLeft / 2));
    expect(secondsLeft(queue, { pages: 0, passages: 0 })).toBeNull();
    expect([timeLeftText(20), timeLeftText(240), timeLeftText(7800)]).toEqual([
      "less than a minute left",
      "about 4 min left",
      "about 2 h 10 min left",
    ]);
  });
});

describe("indexing panel", () => {
  function panel(view: LibraryView) {
    const calls: [string, Record<string, unknown> | undefined][] = [];
    let refreshes = 0;
    const api = makeApi(
      async (command, args) => {
        calls.push([command, args]);
        return command === "pause_indexing" ? args?.paused : null;
      },
      () => ({ onmessage: () => {} }),
    );
    const p = new IndexingPanel({ api, refresh: async () => void refreshes++, report: () => {}, showInfo: () => {} });
    p.update(view, 0);
    return { p, calls, refreshes: () => refreshes };
  }

  it("says when everything is indexed, and is hidden while the library is empty", () => {
    const { p } = panel({ ...EMPTY_LIBRARY, documents: [doc("r", 1, "ready.pdf"), doc("s", 1, "same.pdf")] });
    expect(p.element.querySelector(".summary")?.textContent).toBe("All 2 documents indexed");
    p.update(EMPTY_LIBRARY);
    expect(p.element.hidden).toBe(true);
  });

  it("says how much is left and when it will be done, and pauses the queue", async () => {
    const { p, calls, refreshes } = panel(library(false, 4));
    const summary = () => p.element.querySelector(".summary")?.textContent;
    expect(summary()).toBe("Indexing · 3 documents left · measuring the rate… · 1 needs attention");
    p.update(library(false, 14), 60_000);
    expect(summary()).toMatch(/^Indexing · 3 documents left · about \d+ min left · 1 needs attention$/);
    expect(Number(p.element.dataset.secondsLeft)).toBeGreaterThan(0);
    (p.element.querySelector("button.pause-indexing") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(refreshes()).toBe(1));
    expect(calls).toEqual([["pause_indexing", { paused: true }]]);
    p.update(library(true, 14), 61_000);
    expect(summary()).toBe("Paused · 3 documents left · 1 needs attention");
    expect(p.element.querySelector("button.pause-indexing")?.getAttribute("aria-label")).toBe("Resume indexing");
  });

  it("says why indexing waits when the library's disk is full, and what to free", () => {
    const held =
      "indexing waits: the disk holding the library (/media/usb/lectern) is full, 10 MB free where indexing needs 138 MB. Free 128 MB there, or move the library to a larger disk; indexing goes on by itself";
    const { p } = panel({ ...library(false, 4), held });
    expect(p.element.querySelector(".summary")?.textContent).toBe("Waiting for the library's disk · 3 documents left · 1 needs attention");
    const notice = p.element.querySelector(".queue-held");
    expect(notice?.getAttribute("role")).toBe("status");
    expect(notice?.textContent).toMatch(/^Indexing waits: the disk holding the library .* Free 128 MB there, .* goes on by itself\.$/);
    expect(p.element.dataset.secondsLeft).toBe("");
    p.update(library(false, 4), 1000);
    expect(p.element.querySelector(".queue-held")).toBeNull();
  });

  it("lists each document with its progress, cancels one and retries a failed one", async () => {
    const { p, calls, refreshes } = panel(library());
    (p.element.querySelector("button.toggle-queue") as HTMLButtonElement).click();
    const rows = [...p.element.querySelectorAll("li.queue-entry")].map((li) => li.querySelector(".queue-detail")?.textContent);
    expect(rows).toEqual([
      "Reading page 4 of 20",
      "Embedding passage 5 of 15",
      "Waiting",
      "Failed: the file is damaged",
    ]);
    (p.element.querySelector('li[data-document-id="q"] button.cancel-indexing') as HTMLButtonElement).click();
    (p.element.querySelector('li[data-document-id="f"] button.retry') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(refreshes()).toBe(2));
    expect(calls).toEqual([
      ["cancel_indexing", { id: "q" }],
      ["reindex_document", { id: "f" }],
    ]);
  });

  it("keeps the focus on the control it was on when the queue is drawn again", () => {
    const { p } = panel(library());
    document.body.append(p.element);
    (p.element.querySelector("button.toggle-queue") as HTMLButtonElement).click();
    (p.element.querySelector('li[data-document-id="q"] button.cancel-indexing') as HTMLButtonElement).focus();
    p.update(library(false, 6), 1000);
    expect(document.activeElement?.closest("li")?.dataset.documentId).toBe("q");
    expect(document.activeElement?.classList.contains("cancel-indexing")).toBe(true);
    (p.element.querySelector("button.pause-indexing") as HTMLButtonElement).focus();
    p.update(library(false, 7), 2000);
    expect(document.activeElement?.classList.contains("pause-indexing")).toBe(true);
    p.element.remove();
  });
});
