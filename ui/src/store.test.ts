import { applyAnswerEvent, applyUpdate, buildTree, citationsByDocument, errorRemedy, linkText, statusText, Store } from "./store";
import type { StreamingAnswer } from "./store";
import type { Citation, Link, Stage } from "./bindings";
import { doc, folder, libraryView } from "./test-fixtures";


const citation = (number: number, document: string, page: number): Citation => ({
  number,
  document,
  document_name: `${document}.pdf`,
  chunk_id: "c",
  page,
  char_start: 0,
  char_end: 4,
  quote: "text",
  score: 0.5,
});

const link = (extra: Partial<Link> = {}): Link => ({
  id: 7,
  folder: 2,
  path: "/home/me/Papers",
  keep_deleted: false,
  created_at: 0,
  last_sync: 0,
  available: true,
  pending: 0,
  failed: [],
  ...extra,
});

describe("stores", () => {
  it("puts each link on its folder and says what its last sync found", () => {
    const folders = [folder(1, null, "A"), folder(2, null, "B")];
    const tree = buildTree(libraryView(folders, [], { links: [link()] }));
    expect(tree.map((n) => [n.folder.name, n.link?.id ?? null])).toEqual([
      ["A", null],
      ["B", 7],
    ]);
    expect(linkText(link({ pending: 2, failed: [["x.pdf", "not a PDF"]] }))).toMatch(
      /^Linked to \/home\/me\/Papers · synced .* · 2 being written · 1 failed: x.pdf \(not a PDF\)$/,
    );
    expect(linkText(link({ last_sync: null }))).toBe("Linked to /home/me/Papers · not synced yet");
    expect(linkText(link({ available: false }))).toMatch(/not there.*documents are kept/);
  });

  it("builds the folder tree with documents, sorted by name", () => {
    const tree = buildTree(
      libraryView(
        [folder(1, null, "Work"), folder(2, 1, "Work/taxes"), folder(3, 1, "Work/Admin"), folder(4, null, "Home")],
        [doc("b", 2, "b.pdf"), doc("a", 2, "A.pdf"), doc("c", 4, "c.pdf")],
      ),
    );
    expect(tree.map((n) => n.folder.name)).toEqual(["Home", "Work"]);
    expect(tree[1].children.map((n) => n.folder.name)).toEqual(["Admin", "taxes"]);
    expect(tree[1].children[1].documents.map((d) => d.file_name)).toEqual(["A.pdf", "b.pdf"]);
  });

  it("says each status in words", () => {
    expect(statusText(doc("a", 1, "a.pdf"))).toBe("Ready · 3 pages");
    expect(statusText(doc("a", 1, "a.pdf", { reason: "page 2 has no readable text" }))).toBe(
      "Ready · 3 pages · page 2 has no readable text",
    );
    expect(statusText(doc("a", 1, "a.pdf", { embedded_with: null, embed_done: 40, embed_total: 100 }))).toBe(
      "Searchable by keyword · embedding 40 %",
    );
    expect(statusText(doc("a", 1, "a.pdf", { status: "indexing", progress_done: 2, progress_total: 9 }))).toBe(
      "Indexing page 2 of 9",
    );
    expect(
      statusText(doc("a", 1, "a.pdf", { status: "indexing", progress_done: 2, progress_total: 9, progress_ocr_page: 3 })),
    ).toBe("OCR page 3 of 9");
    expect(statusText(doc("a", 1, "a.pdf", { status: "failed", reason: "the file is truncated" }))).toBe(
      "Failed: the file is truncated",
    );
    expect(statusText(doc("a", 1, "a.pdf", { status: "needs_password" }))).toBe("Needs a password");
  });

  it("takes an update of the library: all of it, or what changed and what went", () => {
    const folders = [folder(1, null, "A")];
    const before = libraryView(folders, [doc("a", 1, "a.pdf"), doc("b", 1, "b.pdf"), doc("c", 1, "c.pdf")], { stamp: "1.1" });
    const changed = doc("b", 1, "b.pdf", { status: "failed" });
    const partial = applyUpdate(before, {
      ...libraryView(folders, [changed, doc("d", 1, "d.pdf")], { stamp: "1.2" }),
      partial: true,
      removed: ["c"],
    });
    expect(partial.documents.map((d) => [d.id, d.status])).toEqual([
      ["a", "ready"],
      ["b", "failed"],
      ["d", "ready"],
    ]);
    expect(partial.stamp).toBe("1.2");
    const whole = applyUpdate(before, { ...libraryView(folders, [doc("e", 1, "e.pdf")]), partial: false, removed: [] });
    expect(whole.documents.map((d) => d.id)).toEqual(["e"]);
    expect(Object.keys(whole).sort()).toEqual(["documents", "folders", "held", "links", "paused", "stamp", "totals"]);
  });

  it("accumulates a streamed answer and groups its sources", () => {
    let answer = { body: "", citations: [] as Citation[] };
    answer = applyAnswerEvent(answer, { type: "text", text: "Tall" });
    answer = applyAnswerEvent(answer, { type: "citation", citation: citation(1, "d1", 3) });
    answer = applyAnswerEvent(answer, { type: "text", text: "[^1]." });
    answer = applyAnswerEvent(answer, { type: "citation", citation: citation(1, "d1", 3) });
    answer = applyAnswerEvent(answer, { type: "citation", citation: citation(2, "d2", 1) });
    answer = applyAnswerEvent(answer, { type: "citation", citation: citation(3, "d1", 7) });
    expect(answer.body).toBe("Tall[^1].");
    expect(answer.citations.map((c) => c.number)).toEqual([1, 2, 3]);
    const groups = citationsByDocument(answer.citations);
    expect(groups.map((g) => [g.name, g.citations.map((c) => c.page)])).toEqual([
      ["d1.pdf", [3, 7]],
      ["d2.pdf", [1]],
    ]);
  });

  it("says each step until the answer's next words, and the step after them", () => {
    let answer: StreamingAnswer = { body: "", citations: [] };
    answer = applyAnswerEvent(answer, { type: "stage", stage: { step: "searching" }, text: "Searching the documents…" });
    expect(answer.stage).toBe("Searching the documents…");
    const likeliest = { line: "It is 330 metres tall.", passage: citation(1, "d1", 3) };
    const reading: Stage = { step: "reading", passages: 2, documents: ["a.pdf"], likeliest };
    answer = applyAnswerEvent(answer, { type: "stage", stage: reading, text: "Reading 2 passages of a.pdf before writing…" });
    expect([answer.stage, answer.likeliest]).toEqual(["Reading 2 passages of a.pdf before writing…", likeliest]);
    answer = applyAnswerEvent(answer, { type: "text", text: "It is tall." });
    expect(answer).toEqual({ body: "It is tall.", citations: [], stage: undefined, likeliest: undefined });
    answer = applyAnswerEvent(answer, { type: "stage", stage: { step: "checking" }, text: "Checking…" });
    expect([answer.body, answer.stage]).toEqual(["It is tall.", "Checking…"]);
  });

  it("notifies subscribers of every change", () => {
    const store = new Store(1);
    const seen: number[] = [];
    const stop = store.subscribe((v) => seen.push(v));
    store.update((v) => v + 1);
    stop();
    store.set(5);
    expect(seen).toEqual([1, 2]);
  });
});

describe("errorRemedy", () => {
  it("offers the settings for a server or model that is not there, and the password again", () => {
    const unreachable = { code: "unavailable", message: "could not reach Ollama" } as const;
    expect(errorRemedy({ ...unreachable, hint: { kind: "check_settings" } })).toBe("open_settings");
    expect(
      errorRemedy({ code: "not_found", message: "the model is not installed", hint: { kind: "install_model", model: "m" } }),
    ).toBe("open_settings");
    expect(
      errorRemedy({ code: "needs_password", message: "the password was not accepted", hint: { kind: "enter_password" } }),
    ).toBe("enter_password");
  });

  it("offers nothing the window cannot do", () => {
    // An embedding server that is down is not fixed in the settings: no hint, no button.
    expect(errorRemedy({ code: "unavailable", message: "the embedding server is down", hint: null })).toBeNull();
    expect(errorRemedy({ code: "not_found", message: "no folder named \"Taxes\"", hint: { kind: "list_folders" } })).toBeNull();
    expect(errorRemedy({ code: "internal", message: "disk full", hint: null })).toBeNull();
  });
});
