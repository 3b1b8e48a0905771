import { ChatPane, fileName, previewQuote, starterChips } from "./chat";
import { type ChannelLike, makeApi } from "./ipc";
import { WHOLE_LIBRARY } from "./scope";
import { Store } from "./store";
import { doc, folder, libraryView, savedChat } from "./test-fixtures";
import type { Chat, Citation, Retrieval, Scope, Settings, Strategy } from "./bindings";

const saved: Settings = { backend: "builtin", model: null, url: null, api_key: null, mode: "keyword", k: 6, ocr: true };

/** How an answer that searched the documents was made. */
const searched: Retrieval = { strategy: "always", query: "What is it?" };

/** Footnote 1 of an answer: page 4 of report.pdf, quoting `quote`. */
const cited = (quote: string): Citation => ({
  number: 1,
  document: "d1",
  document_name: "report.pdf",
  chunk_id: "c",
  page: 4,
  char_start: 0,
  char_end: 20,
  quote,
  score: 1,
});

/** A chat pane over a fake shell; `replies` answers the commands by name (the folders' default
 *  strategy is "always", and there are no starter questions, unless it says otherwise). */
function pane(
  replies: Record<string, (args?: Record<string, unknown>) => unknown>,
  savePath: string | null = null,
  viewing: string | null = null,
) {
  const answers: typeof replies = { default_strategy: () => "always", starter_questions: () => [], ...replies };
  const calls: [string, Record<string, unknown> | undefined][] = [];
  const saveAsked: unknown[] = [];
  const reports: string[] = [];
  const settingsOpened: number[] = [];
  const opened: Citation[] = [];
  const documentsOpened: [string, string][] = [];
  const channels: ChannelLike<unknown>[] = [];
  const api = makeApi(
    async (command, args) => {
      calls.push([command, args]);
      return answers[command](args);
    },
    <T>() => {
      const channel: ChannelLike<T> = { onmessage: () => {} };
      channels.push(channel as ChannelLike<unknown>);
      return channel;
    },
  );
  const root = document.createElement("div");
  const scope = new Store(WHOLE_LIBRARY);
  const chat = new ChatPane(root, {
    api,
    scope,
    openCitation: (c: Citation) => opened.push(c),
    viewing: () => viewing,
    openDocument: async (id, name) => {
      documentsOpened.push([id, name]);
    },
    openSettings: () => settingsOpened.push(1),
    report: (m) => reports.push(m),
    save: async (options) => {
      saveAsked.push(options);
      return savePath;
    },
  });
  const backend = root.querySelector("select.backend") as HTMLSelectElement;
  const strategy = root.querySelector("select.strategy") as HTMLSelectElement;
  return { chat, root, scope, backend, strategy, calls, reports, settingsOpened, opened, documentsOpened, saveAsked, channels };
}

/** The reply to `ask`: an extractive answer `body` in `chat`, with `more` over it. */
function answered(chat: Chat, body: string, more: Record<string, unknown> = {}) {
  return {
    chat,
    message: 2,
    answer: { kind: "extractive", body, citations: [], finish: "stop", backend: "extractive" },
    results: { hits: [], sources: [], skipped: [] },
    retrieval: searched,
    ...more,
  };
}

describe("chat pane", () => {
  it("shows the saved backend and saves the settings when it is switched", async () => {
    const { chat, backend, calls } = pane({ save_settings: (args) => args?.settings });
    expect(backend.disabled).toBe(true);
    chat.useSettings(saved);
    expect([backend.value, backend.disabled]).toEqual(["builtin", false]);
    backend.value = "extractive";
    backend.dispatchEvent(new Event("change"));
    await vi.waitFor(() =>
      expect(calls.filter((c) => c[0] === "save_settings")).toEqual([
        ["save_settings", { settings: { ...saved, backend: "extractive" } }],
      ]),
    );
  });

  it("goes back to the saved backend when saving fails", async () => {
    const { chat, backend, reports } = pane({
      save_settings: () => Promise.reject({ code: "invalid_input", message: "Ollama needs a model name" }),
    });
    chat.useSettings(saved);
    backend.value = "ollama";
    backend.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(reports).toEqual(["Ollama needs a model name"]));
    expect(backend.value).toBe("builtin");
  });

  it("asks with the question and scope only: the backend, search and strategy come from what is saved", async () => {
    const chatInfo = savedChat("c1", "Q");
    const { chat, root, calls } = pane({
      ask: () => answered(chatInfo, "Answer"),
      list_chats: () => [chatInfo],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "What is it?";
    await chat.ask();
    expect(calls.find((c) => c[0] === "ask")?.[1]?.request).toEqual({
      question: "What is it?",
      chat: null,
      scope: WHOLE_LIBRARY,
      strategy: null,
    });
    expect(root.querySelector(".answer .body")?.textContent).toBe("Answer");
  });

  it("saves one answer, or the whole chat, as markdown where the user chooses", async () => {
    const chatInfo = savedChat("c1", "Tax: 2024?");
    const { chat, root, calls, saveAsked } = pane(
      {
        ask: () => ({
          chat: chatInfo,
          message: 7,
          answer: { kind: "extractive", body: "Answer", citations: [], finish: "stop", backend: "extractive" },
          results: { hits: [], sources: [], skipped: [] },
          retrieval: searched,
        }),
        list_chats: () => [chatInfo],
        export_chat: (args) => args?.path,
      },
      "/home/me/answer.md",
    );
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "What is the 2024 tax rate?";
    await chat.ask();
    const exportAnswer = root.querySelector(".answer button.export-answer") as HTMLButtonElement;
    exportAnswer.click();
    await vi.waitFor(() => expect(exportAnswer.textContent).toBe("Saved"));
    expect(saveAsked[0]).toMatchObject({ defaultPath: "What is the 2024 tax rate.md" });
    expect(calls.at(-1)).toEqual(["export_chat", { id: "c1", message: 7, path: "/home/me/answer.md" }]);
    expect(exportAnswer.title).toBe("Saved to /home/me/answer.md");
    const exportChat = [...root.querySelectorAll("button")].find((b) => b.textContent === "Export" && !b.classList.contains("export-answer"));
    exportChat?.click();
    await vi.waitFor(() => expect(calls.at(-1)).toEqual(["export_chat", { id: "c1", message: null, path: "/home/me/answer.md" }]));
    expect(saveAsked[1]).toMatchObject({ defaultPath: "Tax 2024.md" });
    expect(fileName(" / ")).toBe("Lectern chat");
  });

  it("offers the settings when the answer fails because a server or model is not there", async () => {
    const { chat, root, settingsOpened } = pane({
      ask: () =>
        Promise.reject({
          code: "unavailable",
          message: "could not reach Ollama at http://127.0.0.1:11434",
          hint: { kind: "check_settings" },
        }),
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "What is it?";
    await chat.ask();
    const answer = root.querySelector(".answer.failed") as HTMLElement;
    expect(answer.textContent).toContain("could not reach Ollama");
    (answer.querySelector("button.open-settings") as HTMLButtonElement).click();
    expect(settingsOpened).toEqual([1]);
  });

  it("asks a question of the document open in the viewer, and says it was asked of that one", async () => {
    const chatInfo = savedChat("c1", "Q");
    const { chat, root, calls } = pane(
      {
        ask: () => answered(chatInfo, "Answer", { asked_of: { document: "d1", name: "Headset manual", because: "open" } }),
        list_chats: () => [chatInfo],
      },
      null,
      "d1",
    );
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "What is on page 14?";
    await chat.ask();
    expect(calls.find((c) => c[0] === "ask")?.[1]?.request).toMatchObject({ question: "What is on page 14?", document: "d1" });
    expect(root.querySelector(".answer .retrieval-note")?.textContent).toBe(
      "Asked of Headset manual, the document open in the viewer",
    );
  });

  it("offers the likeliest documents when a question names none, and asks it of the one chosen", async () => {
    const chatInfo = savedChat("c1", "Q");
    let asks = 0;
    const { chat, root, calls, documentsOpened } = pane({
      ask: () =>
        asks++ === 0
          ? Promise.reject({
              code: "ambiguous",
              message: "the question points at one document without naming it",
              hint: {
                kind: "choose_document",
                choices: [
                  { id: "d1", name: "Annual report", folder: "Reports" },
                  { id: "d2", name: "Headset manual", folder: "Manuals" },
                ],
              },
            })
          : answered(chatInfo, "Pair it first", { asked_of: { document: "d2", name: "Headset manual", because: "open" } }),
      list_chats: () => [chatInfo],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "What does page 14 say?";
    await chat.ask();
    const chips = [...root.querySelectorAll(".answer .document-choices button")] as HTMLButtonElement[];
    expect(chips.map((b) => b.textContent)).toEqual(["Annual report", "Headset manual"]);
    expect(root.querySelector(".answer.failed")).toBeNull();
    chips[1].click();
    await vi.waitFor(() => expect(root.querySelector(".answer .body")?.textContent).toBe("Pair it first"));
    expect(documentsOpened).toEqual([["d2", "Headset manual"]]);
    const asked = calls.filter((c) => c[0] === "ask").map((c) => c[1]?.request);
    expect(asked.map((r) => (r as { document?: string }).document)).toEqual([undefined, "d2"]);
    expect([...root.querySelectorAll(".question")].map((q) => q.textContent)).toEqual(["What does page 14 say?"]);
    expect(root.querySelectorAll(".answer")).toHaveLength(1);
  });

  it("offers nothing to fix for an error the user cannot fix", async () => {
    const { chat, root } = pane({ ask: () => Promise.reject({ code: "internal", message: "disk full" }) });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "What is it?";
    await chat.ask();
    expect(root.querySelector(".answer.failed button")).toBeNull();
  });
});

describe("starter questions", () => {
  it("are drawn as chips of text, never HTML, each asking its question", () => {
    const asked: string[] = [];
    const box = starterChips(["Summarize <img src=x onerror=alert(1)>", "Summarize notes"], (q) => asked.push(q));
    expect(box.getAttribute("role")).toBe("group");
    expect(box.getAttribute("aria-label")).toBe("Questions to start with");
    expect(box.querySelector("img")).toBeNull();
    const chips = [...box.querySelectorAll<HTMLButtonElement>("button.starter")];
    expect(chips.map((c) => c.textContent)).toEqual(["Summarize <img src=x onerror=alert(1)>", "Summarize notes"]);
    chips[1].click();
    expect(asked).toEqual(["Summarize notes"]);
  });

  it("fill an empty chat for its scope, and a click asks one; they go once a question is asked", async () => {
    const chatInfo = savedChat("c1", "Summarize memo");
    const { chat, root, scope, calls } = pane({
      starter_questions: (args) =>
        (args?.scope as Scope).folders.includes(2)
          ? ["Summarize memo"]
          : ["What does Annual Report 2022 say about risk factors?", "Summarize notes"],
      ask: () => answered(chatInfo, "Answer"),
      list_chats: () => [chatInfo],
    });
    const chips = () => [...root.querySelectorAll<HTMLButtonElement>(".messages button.starter")];
    chat.updateLibrary(libraryView([folder(1, null, "Work"), folder(2, 1, "Work/Memos")], [doc("d1", 1, "report.pdf")]));
    await vi.waitFor(() =>
      expect(chips().map((c) => c.textContent)).toEqual(["What does Annual Report 2022 say about risk factors?", "Summarize notes"]),
    );
    scope.set({ ...WHOLE_LIBRARY, folders: [2] });
    await vi.waitFor(() => expect(chips().map((c) => c.textContent)).toEqual(["Summarize memo"]));
    chips()[0].click();
    await vi.waitFor(() => expect(root.querySelector(".answer .body")?.textContent).toBe("Answer"));
    expect(calls.find((c) => c[0] === "ask")?.[1]?.request).toMatchObject({ question: "Summarize memo", scope: { folders: [2] } });
    expect(root.querySelector(".starters")).toBeNull();
    expect(root.querySelector(".message.question")?.textContent).toBe("Summarize memo");
    await chat.newChat();
    await vi.waitFor(() => expect(chips()).toHaveLength(1));
  });
});

describe("footnote previews", () => {
  it("cut a long passage at a word", () => {
    const quote = previewQuote(`${"word ".repeat(200)}`);
    expect(quote.endsWith("word …")).toBe(true);
    expect(quote.length).toBeLessThanOrEqual(362);
    expect(previewQuote("  short\n passage ")).toBe("short passage");
  });

  it("show the quoted passage with its document and page when a footnote is hovered", async () => {
    const citation = cited("Revenue grew <b>nine</b> percent.");
    const { chat, root } = pane({
      ask: () => ({
        chat: savedChat("c1", "Q"),
        message: 2,
        answer: { kind: "extractive", body: "It grew.[^1]", citations: [citation], finish: "stop", backend: "extractive" },
        results: { hits: [], sources: [], skipped: [] },
        retrieval: searched,
      }),
      list_chats: () => [],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "How did revenue do?";
    await chat.ask();
    const footnote = root.querySelector(".answer button.footnote") as HTMLButtonElement;
    const preview = root.querySelector(".footnote-preview") as HTMLElement;
    expect(preview.hidden).toBe(true);
    footnote.dispatchEvent(new MouseEvent("mouseenter"));
    expect(preview.hidden).toBe(false);
    expect(preview.querySelector(".preview-where")?.textContent).toBe("report.pdf, page 4");
    expect(preview.querySelector("blockquote")?.textContent).toBe("Revenue grew <b>nine</b> percent.");
    expect(preview.querySelector("b")).toBeNull();
    expect(footnote.getAttribute("aria-describedby")).toBe(preview.id);
    footnote.dispatchEvent(new MouseEvent("mouseleave"));
    expect(preview.hidden).toBe(true);
  });
});

describe("a remote library's sources", () => {
  it("are named with their remote, apart from this library's, and open as its", async () => {
    const remote: Citation = { ...cited("The memo says the budget grew."), number: 2, document_name: "memo.pdf", remote: "bob" };
    const hit = {
      document: "d1",
      document_name: "memo.pdf",
      folder: 3,
      folder_path: "bob: Other",
      chunk_id: "rc",
      page: 4,
      char_start: 0,
      char_end: 20,
      text: "The memo says the budget grew.",
      score: 0.5,
      components: { vector: null, keyword: 1, keyword_share: 1, vector_rank: null, keyword_rank: 1, second_stage: null, named_page: false },
      remote: "bob",
    };
    const source = { document: "d1", document_name: "memo.pdf", folder: 3, folder_path: "bob: Other", best_score: 0.5, hits: [0], pages: [4] };
    const { chat, root, opened } = pane({
      ask: () => ({
        chat: savedChat("c1", "Q"),
        message: 2,
        answer: {
          kind: "extractive",
          body: "It grew.[^1][^2]",
          citations: [cited("Revenue grew."), remote],
          finish: "stop",
          backend: "extractive",
        },
        results: { query: "q", mode: "keyword", hits: [hit], sources: [source], skipped: [] },
        retrieval: searched,
      }),
      list_chats: () => [],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "How did the budget do?";
    await chat.ask();
    expect([...root.querySelectorAll(".source > span")].map((s) => s.textContent)).toEqual(["report.pdf", "memo.pdf · bob"]);
    const footnote = root.querySelectorAll<HTMLButtonElement>(".answer button.footnote")[1];
    footnote.dispatchEvent(new MouseEvent("mouseenter"));
    expect(root.querySelector(".footnote-preview .preview-where")?.textContent).toBe("memo.pdf · bob, page 4");
    footnote.click();
    (root.querySelectorAll(".source")[1].querySelector("button.source-page") as HTMLButtonElement).click();
    (root.querySelector("button.open-passage") as HTMLButtonElement).click();
    expect(opened.map((c) => [c.remote, c.document, c.page])).toEqual([
      ["bob", "d1", 4],
      ["bob", "d1", 4],
      ["bob", "d1", 4],
    ]);
  });
});

describe("retrieved passages", () => {
  it("lists every passage retrieval found per document with its score, and opens one", async () => {
    const hit = (document: string, page: number, score: number, text: string) => ({
      document,
      document_name: `${document}.pdf`,
      folder: 1,
      folder_path: "Work",
      chunk_id: `${document}-${page}`,
      page,
      char_start: 10,
      char_end: 40,
      text,
      score,
      components: { vector: null, keyword: score, keyword_share: 1, vector_rank: null, keyword_rank: 1, second_stage: null, named_page: false },
    });
    const hits = [hit("a", 3, 0.9, "Revenue grew."), hit("b", 1, 0.8, "Costs fell."), hit("a", 7, 0.5, "Outlook <b>good</b>.")];
    const source = (document: string, indexes: number[]) => ({
      document,
      document_name: `${document}.pdf`,
      folder: 1,
      folder_path: "Work",
      best_score: hits[indexes[0]].score,
      hits: indexes,
      pages: indexes.map((i) => hits[i].page),
    });
    const { chat, root, opened } = pane({
      ask: () => ({
        chat: savedChat("c1", "Q"),
        message: 2,
        answer: { kind: "extractive", body: "It grew.[^1]", citations: [cited("Revenue grew.")], finish: "stop", backend: "extractive" },
        results: { query: "q", mode: "keyword", hits, sources: [source("a", [0, 2]), source("b", [1])], skipped: [] },
        retrieval: searched,
      }),
      list_chats: () => [],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "How did revenue do?";
    await chat.ask();
    const show = root.querySelector("button.show-passages") as HTMLButtonElement;
    expect(show.textContent).toBe("All passages (3)");
    const retrieved = root.querySelector(".retrieved") as HTMLElement;
    expect(retrieved.hidden).toBe(true);
    show.click();
    expect(retrieved.hidden).toBe(false);
    const groups = [...retrieved.querySelectorAll("section")].map((g) => [
      g.querySelector("h4")?.textContent,
      [...g.querySelectorAll(".passage-where")].map((w) => w.textContent),
    ]);
    expect(groups).toEqual([
      ["a.pdf · Work", ["p. 3 · score 0.900", "p. 7 · score 0.500"]],
      ["b.pdf · Work", ["p. 1 · score 0.800"]],
    ]);
    expect(retrieved.querySelector("b")).toBeNull();
    (retrieved.querySelectorAll("button.open-passage")[1] as HTMLButtonElement).click();
    expect(opened.map((c) => [c.document, c.page, c.quote])).toEqual([["a", 7, "Outlook <b>good</b>."]]);
  });

  it("keeps the finished answer when a streamed part arrives after the reply", async () => {
    const hit = {
      document: "a",
      document_name: "a.pdf",
      folder: 1,
      folder_path: "Work",
      chunk_id: "a-3",
      page: 3,
      char_start: 0,
      char_end: 13,
      text: "Revenue grew.",
      score: 0.9,
      components: { vector: null, keyword: 0.9, keyword_share: 1, vector_rank: null, keyword_rank: 1, second_stage: null, named_page: false },
    };
    const source = { document: "a", document_name: "a.pdf", folder: 1, folder_path: "Work", best_score: 0.9, hits: [0], pages: [3] };
    const { chat, root, channels } = pane({
      ask: () => ({
        chat: savedChat("c1", "Q"),
        message: 2,
        answer: { kind: "extractive", body: "It grew.[^1]", citations: [cited("Revenue grew.")], finish: "stop", backend: "extractive" },
        results: { query: "q", mode: "keyword", hits: [hit], sources: [source], skipped: [] },
        retrieval: searched,
      }),
      list_chats: () => [],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "How did revenue do?";
    await chat.ask();
    channels[0].onmessage({ type: "text", text: "It grew." });
    expect(root.querySelector(".message.answer .body")?.textContent).toContain("It grew.");
    expect(root.querySelector("button.show-passages")?.textContent).toBe("All passages (1)");
  });
});

describe("an answer being made", () => {
  it("says what is happening until its first words, and nothing once it is done", async () => {
    let reply: (outcome: unknown) => void = () => {};
    const { chat, root, channels, opened } = pane({
      ask: () => new Promise((resolve) => (reply = resolve)),
      list_chats: () => [],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "How did revenue do?";
    const asked = chat.ask();
    await vi.waitFor(() => expect(channels.length).toBe(1));
    const stage = () => root.querySelector(".message.answer .stage")?.textContent ?? null;
    channels[0].onmessage({ type: "stage", stage: { step: "searching" }, text: "Searching the documents…" });
    expect(stage()).toBe("Searching the documents…");
    const passage = cited("Revenue grew 12% to $4.1 billion.");
    const likeliest = { line: "Revenue grew 12% to $4.1 billion.", passage };
    const reading = { step: "reading", passages: 4, documents: ["a.pdf", "b.pdf"], likeliest };
    channels[0].onmessage({ type: "stage", stage: reading, text: "Reading 4 passages of a.pdf and 1 other document before writing…" });
    expect(stage()).toBe("Reading 4 passages of a.pdf and 1 other document before writing…");
    expect(root.querySelector(".message.answer .stage")?.getAttribute("role")).toBe("status");
    // While the model reads, the best passage's likeliest line, and its page a click away.
    const shown = () => root.querySelector(".message.answer .likeliest");
    expect(shown()?.querySelector("blockquote")?.textContent).toBe("Revenue grew 12% to $4.1 billion.");
    const open = shown()?.querySelector("button.likeliest-page") as HTMLButtonElement;
    expect(open.textContent).toBe(`${passage.document_name}, page ${passage.page}`);
    open.click();
    expect(opened).toEqual([passage]);
    channels[0].onmessage({ type: "text", text: "It grew." });
    expect(stage()).toBeNull();
    expect(shown()).toBeNull();
    channels[0].onmessage({ type: "stage", stage: { step: "checking" }, text: "Checking the answer against the passages it cites…" });
    expect(stage()).toBe("Checking the answer against the passages it cites…");
    reply({
      chat: savedChat("c1", "Q"),
      message: 2,
      answer: { kind: "generated", body: "It grew.", citations: [], finish: "stop", backend: "builtin" },
      results: { query: "q", mode: "hybrid", hits: [], sources: [], skipped: [] },
      retrieval: searched,
    });
    await asked;
    expect(stage()).toBeNull();
    expect(root.querySelector(".message.answer .body")?.textContent).toBe("It grew.");
  });
});

describe("chat keys and actions", () => {
  const chatInfo = savedChat("c1", "Q");
  const citation = cited("Revenue grew.");

  it("Esc stops the answer being written, and does nothing once it is done", async () => {
    let finish: (value: unknown) => void = () => {};
    const { chat, root, calls } = pane({
      ask: () => new Promise((resolve) => (finish = resolve)),
      cancel_answer: () => null,
      list_chats: () => [chatInfo],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "How did revenue do?";
    const asked = chat.ask();
    await vi.waitFor(() => expect(calls.map((c) => c[0])).toContain("ask"));
    expect(chat.handleKey(new KeyboardEvent("keydown", { key: "Escape" }))).toBe(true);
    const answerId = calls.find((c) => c[0] === "ask")?.[1]?.answerId;
    expect(calls.find((c) => c[0] === "cancel_answer")?.[1]).toEqual({ answerId });
    finish({
      chat: chatInfo,
      answer: { kind: "generated", body: "It grew", citations: [], finish: "cancelled", backend: "builtin" },
      results: { hits: [], sources: [], skipped: [] },
      retrieval: searched,
    });
    await asked;
    expect(root.querySelector(".answer.stopped")).not.toBeNull();
    expect(chat.handleKey(new KeyboardEvent("keydown", { key: "Escape" }))).toBe(false);
  });

  it("Ctrl+N starts a new chat with the question box focused", async () => {
    const { chat, root, calls } = pane({
      open_chat: () => ({ chat: chatInfo, messages: [{ role: "user", content: "Old question", citations: [] }] }),
      list_chats: () => [chatInfo],
    });
    document.body.append(root);
    await chat.open("c1");
    expect(root.querySelector(".question")?.textContent).toBe("Old question");
    expect(chat.handleKey(new KeyboardEvent("keydown", { key: "n", ctrlKey: true }))).toBe(true);
    await vi.waitFor(() => expect(document.activeElement).toBe(root.querySelector("textarea")));
    expect(root.querySelector(".question")).toBeNull();
    expect(calls.filter((c) => c[0] === "list_chats").length).toBe(2);
    expect(chat.handleKey(new KeyboardEvent("keydown", { key: "n" }))).toBe(false);
    root.remove();
  });

  it("copies an answer as markdown with its footnotes' documents and pages", async () => {
    const copied: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: async (text: string) => void copied.push(text) },
      configurable: true,
    });
    const { chat, root } = pane({
      ask: () => ({
        chat: chatInfo,
        answer: { kind: "extractive", body: "It grew.[^1]", citations: [citation], finish: "stop", backend: "extractive" },
        results: { hits: [], sources: [], skipped: [] },
        retrieval: searched,
      }),
      list_chats: () => [chatInfo],
    });
    chat.useSettings(saved);
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "How did revenue do?";
    await chat.ask();
    const copy = root.querySelector(".answer button.copy-answer") as HTMLButtonElement;
    copy.click();
    await vi.waitFor(() => expect(copied).toEqual(["It grew.[^1]\n\n[^1]: report.pdf, page 4\n"]));
    expect(copy.textContent).toBe("Copied");
  });
});

describe("when the chat searches", () => {
  /** An answer over the whole library as a chat with `strategy` makes it, searching or not. */
  const answered = (strategy: Strategy | null, retrieval: Retrieval) => ({
    chat: savedChat("c9", "Hi", { strategy }),
    message: 2,
    answer: { kind: "generated", body: "Hello!", citations: [], finish: "stop", backend: "builtin" },
    results: { hits: [], sources: [], skipped: [] },
    retrieval,
  });
  const choose = (select: HTMLSelectElement, value: string) => {
    select.value = value;
    select.dispatchEvent(new Event("change"));
  };
  const options = (select: HTMLSelectElement) => [...select.options].map((o) => [o.value, o.text]);

  it("shows a chat's own strategy, or the folders' default named, and saves a change at once", async () => {
    const chats: Record<string, Chat> = {
      c1: savedChat("c1", "Revenue", { strategy: "smart" }),
      c2: savedChat("c2", "Costs", { scope: { ...WHOLE_LIBRARY, folders: [2] } }),
    };
    const { chat, scope, strategy, calls } = pane({
      open_chat: (args) => ({ chat: chats[args?.id as string], messages: [] }),
      list_chats: () => Object.values(chats),
      default_strategy: (args) => ((args?.scope as Scope).folders.includes(2) ? "function" : "always"),
      set_chat_strategy: (args) => ({ ...chats[args?.id as string], strategy: args?.strategy }),
    });
    expect(strategy.getAttribute("aria-label")).toBe("When to search");
    await vi.waitFor(() =>
      expect(options(strategy)).toEqual([
        ["", "Search: default (always)"],
        ["always", "Search: always"],
        ["confidence", "Search: confident passages only"],
        ["function", "Search: model decides"],
        ["smart", "Search: smart"],
      ]),
    );
    await chat.open("c1");
    expect(strategy.value).toBe("smart");
    choose(strategy, "confidence");
    await vi.waitFor(() => expect(calls.at(-1)).toEqual(["set_chat_strategy", { id: "c1", strategy: "confidence" }]));
    choose(strategy, "");
    await vi.waitFor(() => expect(calls.at(-1)).toEqual(["set_chat_strategy", { id: "c1", strategy: null }]));
    await chat.open("c2");
    expect(strategy.value).toBe("");
    expect(scope.value.folders).toEqual([2]);
    await vi.waitFor(() => expect(strategy.options[0].text).toBe("Search: default (model decides)"));
  });

  it("goes back to the chat's strategy when saving the choice fails", async () => {
    const { chat, strategy, reports } = pane({
      open_chat: () => ({ chat: savedChat("c1", "Q", { strategy: "smart" }), messages: [] }),
      list_chats: () => [],
      set_chat_strategy: () => Promise.reject({ code: "not_found", message: "no chat c1" }),
    });
    await chat.open("c1");
    choose(strategy, "always");
    await vi.waitFor(() => expect(reports).toEqual(["no chat c1"]));
    expect(strategy.value).toBe("smart");
  });

  it("creates a new chat with the strategy chosen, and asks in it with the one saved", async () => {
    const { chat, root, strategy, calls } = pane({
      ask: () => answered("smart", { strategy: "smart", query: "Hi" }),
      list_chats: () => [],
    });
    choose(strategy, "smart");
    expect(calls.some((c) => c[0] === "set_chat_strategy")).toBe(false);
    const question = root.querySelector("textarea") as HTMLTextAreaElement;
    question.value = "Hi";
    await chat.ask();
    question.value = "And then?";
    await chat.ask();
    const asked = calls.filter((c) => c[0] === "ask").map((c) => c[1]?.request);
    expect(asked).toMatchObject([
      { chat: null, strategy: "smart" },
      { chat: "c9", strategy: null },
    ]);
    expect(strategy.value).toBe("smart");
    await chat.newChat();
    expect(strategy.value).toBe("");
  });

  it("says under an answer made without searching which strategy decided so", async () => {
    let retrieval: Retrieval = { strategy: "smart", query: null };
    const { chat, root } = pane({ ask: () => answered("smart", retrieval), list_chats: () => [] });
    const question = root.querySelector("textarea") as HTMLTextAreaElement;
    question.value = "Thanks!";
    await chat.ask();
    retrieval = { strategy: "smart", query: "What grew?" };
    question.value = "What grew?";
    await chat.ask();
    const notes = [...root.querySelectorAll(".message.answer")].map((a) => a.querySelector(".retrieval-note")?.textContent);
    expect(notes).toEqual(["Answered without searching (strategy: smart)", undefined]);
  });
});
