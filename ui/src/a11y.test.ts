// The main views checked with axe-core: no serious or critical violation in the sidebar (with a
// folder's menu and its menu of strategies), its remote libraries (with a remote's menu) and the
// dialog that adds one, the empty chat with its starter questions, the chat with an answer and
// its footnote preview, instant search with results, and the settings.
import axe from "axe-core";
import { ChatPane } from "./chat";
import { IndexingPanel } from "./indexing";
import { InfoDialog } from "./info";
import { makeApi } from "./ipc";
import { QuickSearch } from "./search";
import { WHOLE_LIBRARY } from "./scope";
import { Sidebar } from "./sidebar";
import { EMPTY_LIBRARY, Store } from "./store";
import { SettingsDialog } from "./settings";
import { doc, fakeModalDialogs, folder, libraryView, savedChat } from "./test-fixtures";

beforeAll(fakeModalDialogs);
afterEach(() => document.body.replaceChildren());

const api = makeApi(
  async (command, args) => {
    switch (command) {
      case "quick_search":
        return {
          query: "revenue",
          mode: "keyword",
          hits: [
            {
              document: "d1",
              document_name: "report.pdf",
              folder: 1,
              folder_path: "Work",
              chunk_id: "c",
              page: 3,
              char_start: 0,
              char_end: 20,
              text: "Revenue grew by nine percent.",
              score: 1,
              components: { vector: null, keyword: 1, keyword_share: 1, vector_rank: null, keyword_rank: 1, second_stage: null, named_page: false },
            },
          ],
          sources: [],
          skipped: [],
        };
      case "ask":
        return {
          chat: savedChat("c1", "Q"),
          answer: {
            kind: "extractive",
            body: "It grew.[^1]",
            citations: [
              {
                number: 1,
                document: "d1",
                document_name: "report.pdf",
                chunk_id: "c",
                page: 3,
                char_start: 0,
                char_end: 20,
                quote: "Revenue grew by nine percent.",
                score: 1,
              },
            ],
            finish: "stop",
            backend: "extractive",
          },
          results: { hits: [], sources: [], skipped: [] },
          retrieval: { strategy: "always", query: "How did revenue do?" },
        };
      case "default_strategy":
        return "smart";
      case "starter_questions":
        return ["What does Annual Report 2022 say about risk factors?", "Summarize notes"];
      case "list_remotes":
        return ["bob", "carol"].map((name) => ({ name, url: `http://${name}.lan:8765/v1`, created_at: 0 }));
      case "remote_folders":
        if ((args as { name: string }).name === "carol") throw { code: "remote", message: "connection refused" };
        return ["Other", "Other/old"];
      case "server_state":
        return {
          enabled: true,
          url: "http://127.0.0.1:8765/v1",
          problem: null,
          token: "lectern-0123",
          tokens: [],
          requests: [
            { at: 0, holder: "library", method: "POST", path: "/v1/search", scope: "folder Work", status: 200, millis: 12 },
          ],
        };
      case "get_settings":
        return {
          settings: { backend: "builtin", model: null, url: null, api_key: null, mode: "hybrid", k: 6, ocr: true },
          api_key_set: false,
          secrets_kept: "library",
          data_dir: "/home/me/.local/share/lectern",
          next_data_dir: null,
        };
      case "list_models":
        return [
          {
            id: "qwen2.5-coder-1.5b",
            name: "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            family: "qwen2",
            role: "chat",
            size: 1_000_000_000,
            sha256: null,
            licence: "Apache-2.0",
            memory_mb: 2048,
            context: 32768,
            installed: false,
            active: false,
            note: "",
          },
        ];
      default:
        return [];
    }
  },
  () => ({ onmessage: () => {} }),
);

/** The serious and critical violations axe finds in the page, as "rule: element" lines. Colour
 *  contrast needs a renderer, which jsdom has not: the e2e screenshots are where it is seen. */
async function violations(): Promise<string[]> {
  const results = await axe.run(document.body, {
    resultTypes: ["violations"],
    rules: { "color-contrast": { enabled: false } },
  });
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.html}`));
}

/** What a sidebar is given, doing nothing but asking `api`. */
function sidebarHooks() {
  return {
    api,
    open: async () => null,
    refresh: async () => {},
    report: () => {},
    openSettings: () => {},
    openSearch: () => {},
    scope: new Store(WHOLE_LIBRARY),
    askNow: () => {},
    openDocument: () => {},
    showInfo: () => {},
  };
}

describe("accessibility (axe-core)", () => {
  it("the sidebar", async () => {
    const root = document.createElement("aside");
    document.body.append(root);
    const library = libraryView(
      [folder(1, null, "Work"), folder(2, 1, "Work/taxes")],
      [doc("d1", 1, "report.pdf"), doc("d2", 2, "scan.pdf", { status: "indexing", progress_total: 4 })],
    );
    const hooks = sidebarHooks();
    new Sidebar(root, hooks, window.sessionStorage).render(library);
    (root.querySelector(".row-menu") as HTMLButtonElement).click();
    expect(await violations()).toEqual([]);
    const items = [...document.querySelectorAll<HTMLElement>('.context-menu [role="menuitem"]')];
    items.find((i) => i.textContent === "When chats search…")?.click();
    expect(document.querySelectorAll('.context-menu [role="menuitemradio"]')).toHaveLength(5);
    expect(await violations()).toEqual([]);
  });

  it("the remote libraries, with one unreachable, and the dialog that adds one", async () => {
    const root = document.createElement("aside");
    document.body.append(root);
    const hooks = sidebarHooks();
    const sidebar = new Sidebar(root, hooks, window.sessionStorage);
    sidebar.render(libraryView([folder(1, null, "Work")], []));
    await sidebar.remotes.load();
    expect(root.querySelectorAll(".remote-tree [role=treeitem]")).toHaveLength(4);
    expect(root.querySelector(".remote-status.unreachable")).not.toBeNull();
    (root.querySelector(".remote-tree .row-menu") as HTMLButtonElement).click();
    expect(await violations()).toEqual([]);
    (root.querySelector("button.add-remote") as HTMLButtonElement).click();
    expect(document.querySelector("dialog.remote-dialog")?.hasAttribute("open")).toBe(true);
    expect(await violations()).toEqual([]);
  });

  it("the indexing panel, opened", async () => {
    const panel = new IndexingPanel({ api, refresh: async () => {}, report: () => {}, showInfo: () => {} });
    document.body.append(panel.element);
    panel.update({
      ...EMPTY_LIBRARY,
      documents: [
        doc("d1", 1, "report.pdf", { status: "indexing", progress_done: 2, progress_total: 9 }),
        doc("d2", 1, "scan.pdf", { status: "queued" }),
        doc("d3", 1, "secret.pdf", { status: "needs_password" }),
      ],
    });
    (panel.element.querySelector("button.toggle-queue") as HTMLButtonElement).click();
    expect(panel.element.querySelectorAll("li.queue-entry")).toHaveLength(3);
    expect(await violations()).toEqual([]);
  });

  it("a document's info with its log", async () => {
    const dialog = new InfoDialog({ api, refresh: async () => {}, report: () => {}, openDocument: () => {} });
    document.body.append(dialog.element);
    await dialog.show(doc("d1", 1, "report.pdf", { source_path: "/tmp/report.pdf" }), EMPTY_LIBRARY);
    expect(await violations()).toEqual([]);
  });

  it("the empty chat with its starter questions", async () => {
    const root = document.createElement("main");
    document.body.append(root);
    const chat = new ChatPane(root, { api, scope: new Store(WHOLE_LIBRARY), openCitation: () => {}, viewing: () => null, openDocument: async () => {}, openSettings: () => {}, report: () => {}, save: async () => null });
    chat.updateLibrary(libraryView([folder(1, null, "Work")], [doc("d1", 1, "report.pdf")]));
    await vi.waitFor(() => expect(root.querySelectorAll("button.starter")).toHaveLength(2));
    expect(await violations()).toEqual([]);
  });

  it("the chat with an answer and a footnote's preview", async () => {
    const root = document.createElement("main");
    document.body.append(root);
    const chat = new ChatPane(root, { api, scope: new Store(WHOLE_LIBRARY), openCitation: () => {}, viewing: () => null, openDocument: async () => {}, openSettings: () => {}, report: () => {}, save: async () => null });
    chat.updateLibrary(libraryView([folder(1, null, "Work")], []));
    (root.querySelector("textarea") as HTMLTextAreaElement).value = "How did revenue do?";
    await chat.ask();
    root.querySelector(".answer button.footnote")?.dispatchEvent(new MouseEvent("mouseenter"));
    expect(await violations()).toEqual([]);
  });

  it("instant search with a result", async () => {
    const search = new QuickSearch({ api, open: () => {}, report: () => {} });
    document.body.append(search.element);
    search.show();
    const input = search.element.querySelector("input") as HTMLInputElement;
    input.value = "revenue";
    await search.search(0);
    expect(search.element.querySelectorAll("li.hit")).toHaveLength(1);
    expect(await violations()).toEqual([]);
  });

  it("the settings dialog", async () => {
    const settings = new SettingsDialog({ api, open: async () => null, report: () => {}, saved: () => {} });
    document.body.append(settings.element);
    await settings.show();
    expect(await violations()).toEqual([]);
  });
});
