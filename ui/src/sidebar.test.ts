import { makeApi, type OpenDialog } from "./ipc";
import { WHOLE_LIBRARY } from "./scope";
import { importPdfs, Sidebar, type SidebarHooks } from "./sidebar";
import { Store } from "./store";
import { doc, folder, libraryView } from "./test-fixtures";
import type { LibraryView, SyncProgress } from "./bindings";

const folders = [folder(1, null, "Work"), folder(2, 1, "Work/taxes")];
const library: LibraryView = libraryView(folders, []);

const filled: LibraryView = libraryView(folders, [
  doc("d1", 1, "report.pdf", { page_count: 10, chunk_count: 40, added_at: Date.UTC(2026, 0, 5) }),
  doc("d2", 2, "return.pdf", { page_count: 4, chunk_count: 9, added_at: Date.UTC(2026, 2, 1) }),
  doc("d3", 2, "scan.pdf", { status: "indexing", progress_done: 1, progress_total: 4, page_count: null }),
  doc("d4", 1, "broken.pdf", { status: "failed", reason: "the file is damaged" }),
]);

afterEach(() => document.body.replaceChildren());

/** A sidebar over a fake shell whose import fails for files named bad*.pdf. */
function sidebar(view: LibraryView, open: OpenDialog = async () => null) {
  const calls: [string, Record<string, unknown> | undefined][] = [];
  const reports: string[] = [];
  const counts = { refreshes: 0, settings: 0, searches: 0, asks: 0 };
  const opened: string[] = [];
  const api = makeApi(
    async (command, args) => {
      const { onProgress, ...rest } = args ?? {};
      calls.push([command, args && rest]);
      // A link's first sync tells how far it has come.
      const progress = onProgress as { onmessage: (p: SyncProgress) => void } | undefined;
      progress?.onmessage({ adding: false, done: 1, total: 2 });
      const paths = (args?.paths as string[] | undefined) ?? [];
      const bad = paths.filter((p) => p.includes("bad"));
      return { added: [], already_present: [], failed: bad.map((path) => ({ path, reason: "not a PDF" })), ignored: 0 };
    },
    () => ({ onmessage: () => {} }),
  );
  const hooks: SidebarHooks = {
    api,
    open,
    refresh: async () => void counts.refreshes++,
    report: (m) => reports.push(m),
    openSettings: () => void counts.settings++,
    openSearch: () => void counts.searches++,
    scope: new Store(WHOLE_LIBRARY),
    askNow: () => void counts.asks++,
    openDocument: (d) => opened.push(d.id),
    showInfo: (d) => opened.push(`info:${d.id}`),
  };
  const root = document.createElement("aside");
  document.body.append(root);
  window.sessionStorage.clear();
  const tree = new Sidebar(root, hooks, window.sessionStorage);
  tree.render(view);
  const row = (key: string) => root.querySelector(`[data-key="${key}"]`) as HTMLElement;
  const press = (key: string, extra: KeyboardEventInit = {}) =>
    (document.activeElement as HTMLElement).dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, ...extra }));
  return { root, tree, hooks, calls, reports, counts, opened, row, press };
}

/** Opens the menu of a row by its ⋮ button and picks the item labelled `label`. */
function pick(row: HTMLElement, label: string) {
  (row.querySelector(".row-menu") as HTMLButtonElement).click();
  const items = [...document.querySelectorAll<HTMLElement>('.context-menu [role="menuitem"]')];
  const item = items.find((i) => i.querySelector("span")?.textContent === label);
  if (!item) throw new Error(`no "${label}" in ${items.map((i) => i.textContent).join(", ")}`);
  item.click();
}

describe("sidebar", () => {
  it("is a tree whose folders show their totals with subfolders, open and close, and stay closed", () => {
    const s = sidebar(filled);
    expect(s.root.querySelector('[role="tree"]')).not.toBeNull();
    const work = s.row("f:1");
    expect(work.getAttribute("aria-expanded")).toBe("true");
    expect(work.getAttribute("aria-level")).toBe("1");
    expect(s.row("d:d2").getAttribute("aria-level")).toBe("3");
    const count = work.querySelector(".folder-row .count") as HTMLElement;
    expect(count.textContent).toBe("4");
    expect(count.title).toMatch(/^4 documents · 17 pages · 49 passages · 1 waiting or indexing · 1 needing attention · latest added /);
    (work.querySelector(".disclosure") as SVGElement).dispatchEvent(new MouseEvent("click", { bubbles: true }));
    expect(s.row("f:1").getAttribute("aria-expanded")).toBe("false");
    expect(s.row("d:d1")).toBeNull();
    const again = new Sidebar(document.createElement("aside"), s.hooks, window.sessionStorage);
    again.render(filled);
    expect((again as unknown as { rows: unknown[] }).rows).toHaveLength(1);
  });

  it("shows a ring while a document is indexed and an icon when it failed", () => {
    const s = sidebar(filled);
    const ring = s.row("d:d3").querySelector('.badge[role="progressbar"]') as HTMLElement;
    expect(ring.getAttribute("aria-valuenow")).toBe("1");
    expect(ring.getAttribute("aria-valuemax")).toBe("4");
    expect(ring.getAttribute("aria-label")).toBe("Indexing page 1 of 4");
    expect(s.row("d:d4").querySelector(".badge")?.getAttribute("aria-label")).toBe("Failed");
    expect(s.row("d:d4").querySelector(".document-status")?.textContent).toBe("Failed: the file is damaged");
    expect(s.row("d:d1").querySelector(".badge")?.childElementCount).toBe(0);
  });

  it("walks with the arrow keys, opens a document with Enter and puts rows in the scope with Space", () => {
    const s = sidebar(filled);
    s.row("f:1").focus();
    s.press("ArrowDown");
    expect(document.activeElement).toBe(s.row("f:2"));
    s.press("ArrowRight");
    expect(document.activeElement).toBe(s.row("d:d2"));
    s.press("ArrowLeft");
    expect(document.activeElement).toBe(s.row("f:2"));
    s.press("ArrowLeft");
    expect(s.row("f:2").getAttribute("aria-expanded")).toBe("false");
    s.press(" ");
    expect(s.hooks.scope.value.folders).toEqual([2]);
    expect((s.row("f:2").querySelector(".in-scope") as HTMLInputElement).checked).toBe(true);
    s.press("End");
    expect(document.activeElement).toBe(s.row("d:d1"));
    expect([...s.tree.selected]).toEqual(["d1"]);
    s.press("Enter");
    s.press("Enter", { altKey: true });
    expect(s.opened).toEqual(["d1", "info:d1"]);
    expect([...s.root.querySelectorAll('[tabindex="0"]')]).toEqual([s.row("d:d1")]);
  });

  it("shows the documents of a folder in scope as included", () => {
    const s = sidebar(filled);
    (s.row("f:2").querySelector(".in-scope") as HTMLInputElement).click();
    expect(s.hooks.scope.value).toEqual({ ...WHOLE_LIBRARY, folders: [2] });
    const checked = [...s.root.querySelectorAll<HTMLInputElement>(".in-scope")].filter((b) => b.checked);
    expect(checked.map((b) => b.closest("[data-key]")?.getAttribute("data-key"))).toEqual(["f:2", "d:d2", "d:d3"]);
    expect((s.row("d:d2").querySelector(".in-scope") as HTMLInputElement).disabled).toBe(true);
    expect(s.row("f:2").getAttribute("aria-checked")).toBe("true");
    expect(s.row("f:2").getAttribute("aria-labelledby")).toBe("name-f:2");
  });

  it("asks about a folder from its menu, and gives the focus back when the menu closes", () => {
    const s = sidebar(filled);
    pick(s.row("f:2"), "Ask about this folder");
    expect(s.hooks.scope.value).toEqual({ ...WHOLE_LIBRARY, folders: [2] });
    expect(s.counts.asks).toBe(1);
    (s.row("f:1").querySelector(".row-menu") as HTMLButtonElement).click();
    const menu = document.querySelector(".context-menu") as HTMLElement;
    expect(document.activeElement?.textContent).toBe("Ask about this folder");
    menu.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    expect(document.activeElement?.textContent).toBe("Add PDFs…");
    menu.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    expect(document.querySelector(".context-menu")).toBeNull();
    expect(document.activeElement).toBe(s.row("f:1"));
  });

  it("sets when chats over a folder search from its menu, the choice in force checked", async () => {
    const s = sidebar({ ...library, folders: [folder(1, null, "Work", { strategy: "smart" }), folder(2, 1, "Work/taxes", { inherited_strategy: "smart" })] });
    const choices = () => [...document.querySelectorAll<HTMLElement>('.context-menu [role="menuitemradio"]')];
    const shown = () => choices().map((c) => [c.textContent, c.getAttribute("aria-checked")]);
    pick(s.row("f:2"), "When chats search…");
    expect(shown()).toEqual([
      ["Inherit (smart)", "true"],
      ["Always", "false"],
      ["Confident passages only", "false"],
      ["Model decides", "false"],
      ["Smart", "false"],
    ]);
    expect(choices()[3].title).toBe("The model decides whether to search");
    choices()[3].click();
    await vi.waitFor(() => expect(s.counts.refreshes).toBe(1));
    expect(s.calls).toEqual([["set_folder_strategy", { path: "Work/taxes", strategy: "function" }]]);
    expect(document.activeElement).toBe(s.row("f:2"));
    pick(s.row("f:1"), "When chats search…");
    expect(shown().filter(([, checked]) => checked === "true")).toEqual([["Smart", "true"]]);
    expect(shown()[0]).toEqual(["Inherit (always)", "false"]);
    choices()[0].click();
    await vi.waitFor(() => expect(s.counts.refreshes).toBe(2));
    expect(s.calls.at(-1)).toEqual(["set_folder_strategy", { path: "Work", strategy: null }]);
  });

  it("renames a document in place with F2, and Esc leaves the name as it was", async () => {
    const s = sidebar(filled);
    s.row("d:d1").focus();
    s.press("F2");
    await Promise.resolve();
    let input = s.row("d:d1").querySelector("input.rename") as HTMLInputElement;
    expect(document.activeElement).toBe(input);
    input.value = "Annual report 2025";
    s.tree.render(filled);
    expect(s.row("d:d1").querySelector("input.rename")).toBe(input);
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await vi.waitFor(() => expect(s.counts.refreshes).toBe(1));
    expect(s.calls).toEqual([["rename_document", { id: "d1", name: "Annual report 2025" }]]);
    s.row("f:2").focus();
    s.press("F2");
    input = s.row("f:2").querySelector("input.rename") as HTMLInputElement;
    input.value = "other";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(s.row("f:2").querySelector("input.rename")).toBeNull();
    expect(s.row("f:2").querySelector(".folder-name")?.textContent).toBe("taxes");
    expect(s.calls).toHaveLength(1);
  });

  it("chooses several documents with Ctrl and Shift, and deletes them together", async () => {
    const s = sidebar(filled);
    const confirm = vi.spyOn(window, "confirm").mockReturnValue(true);
    s.row("d:d2").dispatchEvent(new MouseEvent("click", { bubbles: true }));
    s.row("d:d4").dispatchEvent(new MouseEvent("click", { bubbles: true, shiftKey: true }));
    expect([...s.tree.selected].sort()).toEqual(["d2", "d3", "d4"]);
    s.row("d:d3").dispatchEvent(new MouseEvent("click", { bubbles: true, ctrlKey: true }));
    expect([...s.tree.selected].sort()).toEqual(["d2", "d4"]);
    expect(s.row("d:d2").getAttribute("aria-selected")).toBe("true");
    s.row("d:d4").focus();
    s.press("Delete");
    await vi.waitFor(() => expect(s.counts.refreshes).toBe(1));
    expect(confirm.mock.calls[0][0]).toMatch(/^Delete these 2 documents/);
    expect(s.calls.map(([c, a]) => [c, a?.id]).sort()).toEqual([
      ["delete_document", "d2"],
      ["delete_document", "d4"],
    ]);
    confirm.mockRestore();
  });

  it("retries a failed document and cancels one being indexed from their menus", async () => {
    const s = sidebar(filled);
    pick(s.row("d:d4"), "Retry");
    pick(s.row("d:d3"), "Cancel indexing");
    await vi.waitFor(() => expect(s.counts.refreshes).toBe(2));
    expect(s.calls).toEqual([
      ["reindex_document", { id: "d4" }],
      ["cancel_indexing", { id: "d3" }],
    ]);
  });

  it("links a folder to the directory picked, and marks and unlinks a linked folder", async () => {
    const s = sidebar(library, async () => "/home/me/Papers");
    const confirm = vi.spyOn(window, "confirm").mockReturnValue(true);
    pick(s.row("f:1"), "Link a directory…");
    await vi.waitFor(() => expect(s.counts.refreshes).toBe(1));
    expect(s.calls).toEqual([["link_directory", { path: "/home/me/Papers", folder: "Work", keepDeleted: false }]]);
    expect(s.reports).toEqual(["Linking /home/me/Papers: reading 1 of 2 files…"]);

    const link = { id: 3, folder: 1, path: "/home/me/Papers", keep_deleted: false, created_at: 0 };
    s.tree.render({ ...library, links: [{ ...link, last_sync: null, available: false, pending: 0, failed: [] }] });
    const row = s.row("f:1");
    expect(row.classList.contains("linked") && row.classList.contains("link-trouble")).toBe(true);
    expect((row.querySelector(".folder-name") as HTMLElement).title).toMatch(/not there/);
    pick(row, "Unlink the directory…");
    await vi.waitFor(() => expect(s.counts.refreshes).toBe(2));
    expect(s.calls[1]).toEqual(["unlink_directory", { id: 3 }]);
    confirm.mockRestore();
  });

  it("adds the PDFs picked in the file dialog to the folder, reporting the files that failed", async () => {
    const options: unknown[] = [];
    const s = sidebar(library, async (o) => {
      options.push(o);
      return ["/tmp/a.pdf", "/tmp/bad.pdf"];
    });
    pick(s.row("f:2"), "Add PDFs…");
    await vi.waitFor(() => expect(s.counts.refreshes).toBe(1));
    expect(options).toEqual([{ multiple: true, filters: [{ name: "PDF", extensions: ["pdf"] }] }]);
    expect(s.calls).toEqual([["import_files", { paths: ["/tmp/a.pdf", "/tmp/bad.pdf"], folder: "Work/taxes" }]]);
    expect(s.reports).toEqual(["/tmp/bad.pdf: not a PDF"]);
  });

  it("imports nothing when the file dialog is cancelled", async () => {
    let asked = 0;
    const s = sidebar(library, async () => {
      asked++;
      return null;
    });
    pick(s.row("f:1"), "Add PDFs…");
    await vi.waitFor(() => expect(asked).toBe(1));
    expect(s.calls).toEqual([]);
  });

  it("reports an import that failed as a whole, and refreshes all the same", async () => {
    const s = sidebar(library);
    s.hooks.api = makeApi(
      async () => {
        throw { code: "not_found", message: 'no folder "Gone"' };
      },
      () => ({ onmessage: () => {} }),
    );
    await importPdfs(s.hooks, ["/tmp/a.pdf"], "Gone");
    expect(s.reports).toEqual(['no folder "Gone"']);
    expect(s.counts.refreshes).toBe(1);
  });

  it("opens search and the settings from the header", () => {
    const s = sidebar(library);
    const header = s.root.querySelector("header") as HTMLElement;
    expect([...header.querySelectorAll("button")].map((b) => b.className)).toEqual([
      "open-search",
      "new-folder",
      "open-settings",
    ]);
    (header.querySelector(".open-settings") as HTMLButtonElement).click();
    (header.querySelector(".open-search") as HTMLButtonElement).click();
    expect([s.counts.settings, s.counts.searches]).toEqual([1, 1]);
  });

  it("tells a new user what to do when the library is empty", () => {
    const s = sidebar(library);
    expect(s.root.querySelector(".empty-library")?.textContent).toContain("Drop PDFs onto a folder");
    s.tree.render({ ...library, documents: [doc("d1", 1, "report.pdf")] });
    expect(s.root.querySelector(".empty-library")).toBeNull();
  });

  it("draws only the rows in view of a large library, and the keys and scrolling reach the rest", async () => {
    const many = Array.from({ length: 2000 }, (_, i) => doc(`n${i}`, 1, `paper-${String(i).padStart(4, "0")}.pdf`));
    const root = document.createElement("aside");
    document.body.append(root);
    // A window 280 pixels high onto a tree 40 pixels below the top (jsdom lays nothing out).
    Object.defineProperty(root, "clientHeight", { value: 280 });
    const s = new Sidebar(root, sidebar(library).hooks, window.sessionStorage);
    const tree = () => root.querySelector('[role="tree"]') as HTMLElement;
    root.getBoundingClientRect = () => ({ top: 0 }) as DOMRect;
    s.render(libraryView(folders, many));
    tree().getBoundingClientRect = () => ({ top: 40 - root.scrollTop }) as DOMRect;
    s.render(libraryView(folders, many));
    const drawn = () => [...root.querySelectorAll<HTMLElement>('[role="treeitem"]')].map((r) => r.dataset.key);
    const spacers = () => [...root.querySelectorAll<HTMLElement>("li.spacer")].map((r) => parseInt(r.style.height, 10));
    // The rows in view and a screen more, the rest stood in for by a spacer of their height.
    expect(drawn().length).toBeLessThan(40);
    expect(drawn().slice(0, 3)).toEqual(["f:1", "f:2", "d:n0"]);
    const height = 28 * 2002;
    expect(spacers().reduce((a, b) => a + b, 0) + 28 * drawn().length).toBe(height);

    root.scrollTop = 28 * 1000;
    root.dispatchEvent(new Event("scroll"));
    await vi.waitFor(() => expect(drawn()).toContain("d:n1000"));
    expect(drawn()).not.toContain("d:n0");
    expect(drawn().length).toBeLessThan(40);

    // End goes to the last row, scrolled into view and drawn; each row says its place.
    root.scrollTop = 0;
    s.render(libraryView(folders, many));
    (root.querySelector('[data-key="f:1"]') as HTMLElement).focus();
    (document.activeElement as HTMLElement).dispatchEvent(new KeyboardEvent("keydown", { key: "End", bubbles: true }));
    const last = root.querySelector('[data-key="d:n1999"]') as HTMLElement;
    expect(document.activeElement).toBe(last);
    expect(root.scrollTop).toBe(height + 40 - 280);
    expect([last.getAttribute("aria-level"), last.getAttribute("aria-setsize"), last.getAttribute("aria-posinset")]).toEqual(["2", "2001", "2001"]);
    expect(last.dataset.folderPath).toBe("Work");

    // Scrolled away by the wheel, the focused row stays drawn, and the keys go on from it.
    root.scrollTop = 0;
    root.dispatchEvent(new Event("scroll"));
    await vi.waitFor(() => expect(drawn()).toContain("d:n0"));
    expect(drawn()).toContain("d:n1999");
    expect(document.activeElement).toBe(root.querySelector('[data-key="d:n1999"]'));
    (document.activeElement as HTMLElement).dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true }));
    expect(document.activeElement).toBe(root.querySelector('[data-key="d:n1998"]'));
  });
});
