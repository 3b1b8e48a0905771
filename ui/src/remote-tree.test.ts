import { makeApi } from "./ipc";
import { ScopeBar } from "./scope-bar";
import { WHOLE_LIBRARY } from "./scope";
import { Sidebar, type SidebarHooks } from "./sidebar";
import { EMPTY_LIBRARY, Store } from "./store";
import { fakeModalDialogs, folder } from "./test-fixtures";
import type { Remote } from "./bindings";

beforeAll(fakeModalDialogs);
afterEach(() => document.body.replaceChildren());

const remote = (name: string): Remote => ({ name, url: `http://${name}.lan:8765/v1`, created_at: 0 });

type Replies = Record<string, (args?: Record<string, unknown>) => unknown>;

/** A sidebar over a fake shell that knows two remotes: bob, whose token sees "Other" and
 *  "Other/old", and carol, whose server does not answer; `replies` answers other commands, or
 *  these otherwise. */
function sidebar(replies: Replies = {}) {
  const calls: [string, Record<string, unknown> | undefined][] = [];
  const reports: string[] = [];
  const counts = { asks: 0 };
  const answers: Replies = {
    list_remotes: () => [remote("bob"), remote("carol")],
    remote_folders: (args) =>
      args?.name === "bob"
        ? ["Other", "Other/old"]
        : Promise.reject({ code: "remote", message: "carol.lan:8765: connection refused", hint: null }),
    ...replies,
  };
  const api = makeApi(
    async (command, args) => {
      calls.push([command, args]);
      return answers[command]?.(args) ?? null;
    },
    () => ({ onmessage: () => {} }),
  );
  const hooks: SidebarHooks = {
    api,
    open: async () => null,
    refresh: async () => {},
    report: (m) => reports.push(m),
    openSettings: () => {},
    openSearch: () => {},
    scope: new Store(WHOLE_LIBRARY),
    askNow: () => void counts.asks++,
    openDocument: () => {},
    showInfo: () => {},
  };
  const root = document.createElement("aside");
  document.body.append(root);
  const tree = new Sidebar(root, hooks, window.sessionStorage);
  tree.render({ ...EMPTY_LIBRARY, folders: [folder(1, null, "Work")] });
  const row = (key: string) => root.querySelector(`[data-key="${key}"]`) as HTMLElement;
  const asked = (command: string) => calls.filter(([c]) => c === command).map(([, args]) => args);
  return { root, tree, hooks, calls, reports, counts, row, asked };
}

/** The labels of the open menu's items. */
const menuLabels = () => [...document.querySelectorAll(".context-menu [role=menuitem] span")].map((s) => s.textContent);

/** Opens the menu of a row by its ⋮ button and picks the item labelled `label`. */
function pick(row: HTMLElement, label: string) {
  (row.querySelector(".row-menu") as HTMLButtonElement).click();
  const items = [...document.querySelectorAll<HTMLElement>('.context-menu [role="menuitem"]')];
  const item = items.find((i) => i.querySelector("span")?.textContent === label);
  if (!item) throw new Error(`no "${label}" in ${menuLabels().join(", ")}`);
  item.click();
}

describe("remote libraries in the sidebar", () => {
  it("lists each remote below the library's tree with its folders, and says which cannot be reached", async () => {
    let carolUp = false;
    const s = sidebar({
      remote_folders: (args) =>
        args?.name === "bob" || carolUp
          ? { bob: ["Other", "Other/old"], carol: ["Papers"] }[args?.name as string]
          : Promise.reject({ code: "remote", message: "carol.lan:8765: connection refused", hint: null }),
    });
    const section = s.root.querySelector("section.remotes") as HTMLElement;
    expect(section.querySelector('[role="tree"]')?.hasAttribute("hidden")).toBe(true);
    await s.tree.remotes.load();
    expect(s.root.lastElementChild).toBe(section);
    const tree = section.querySelector('[role="tree"]') as HTMLElement;
    expect(tree.hidden).toBe(false);
    expect(document.getElementById(tree.getAttribute("aria-labelledby") ?? "")?.textContent).toBe("Remote libraries");

    const bob = s.row("r:bob");
    expect(bob.getAttribute("aria-expanded")).toBe("true");
    expect((bob.querySelector(".folder-row") as HTMLElement).title).toBe("http://bob.lan:8765/v1");
    expect(document.getElementById(bob.getAttribute("aria-labelledby") ?? "")?.textContent).toBe("bob");
    const folders = [...bob.querySelectorAll<HTMLElement>('[role="group"] [role="treeitem"]')];
    expect(folders.map((f) => [f.dataset.key, f.getAttribute("aria-level"), f.textContent])).toEqual([
      ["r:bob/Other", "2", "Other"],
      ["r:bob/Other/old", "2", "Other/old"],
    ]);
    // Read-only: nothing is dropped onto a remote folder, nor dragged from it.
    expect(section.querySelector("[data-folder-path], [draggable=true]")).toBeNull();

    const carol = s.row("r:carol");
    expect(carol.hasAttribute("aria-expanded")).toBe(false);
    const status = carol.querySelector(".remote-status") as HTMLElement;
    expect(status.textContent).toBe("Unreachable: carol.lan:8765: connection refused");
    expect(carol.getAttribute("aria-describedby")).toBe(status.id);
    carolUp = true;
    (carol.querySelector("button.retry-remote") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(s.row("r:carol/Papers")).not.toBeNull());
    expect(s.row("r:carol").querySelector(".remote-status")).toBeNull();
    expect(s.asked("remote_folders")).toEqual([{ name: "bob" }, { name: "carol" }, { name: "carol" }]);
  });

  it("opens and closes a remote and walks its folders with the keys", async () => {
    const s = sidebar();
    await s.tree.remotes.load();
    const press = (key: string) =>
      (document.activeElement as HTMLElement).dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
    s.row("r:bob").focus();
    press("ArrowRight");
    expect(document.activeElement).toBe(s.row("r:bob/Other"));
    press("ArrowLeft");
    expect(document.activeElement).toBe(s.row("r:bob"));
    press("ArrowLeft");
    expect(s.row("r:bob").getAttribute("aria-expanded")).toBe("false");
    expect(s.row("r:bob/Other")).toBeNull();
    expect(document.activeElement).toBe(s.row("r:bob"));
    press("ArrowDown");
    expect(document.activeElement).toBe(s.row("r:carol"));
    press(" ");
    expect(s.hooks.scope.value.remotes).toEqual([{ remote: "carol", folder: null }]);
    expect([...s.root.querySelectorAll('.remotes [tabindex="0"]')]).toEqual([s.row("r:carol")]);
  });

  it("adds a remote with the dialog's fields, and shows why its server refused", async () => {
    let refuse = true;
    const s = sidebar({
      add_remote: () =>
        refuse
          ? Promise.reject({ code: "remote", message: "dave.lan:8765 refused the token", hint: null })
          : { remote: remote("dave"), folders: ["Notes"] },
      list_remotes: () => [remote("bob"), remote("carol"), ...(refuse ? [] : [remote("dave")])],
    });
    await s.tree.remotes.load();
    (s.root.querySelector("button.add-remote") as HTMLButtonElement).click();
    const dialog = document.querySelector("dialog.remote-dialog") as HTMLDialogElement;
    expect(dialog.open).toBe(true);
    expect(document.getElementById(dialog.getAttribute("aria-labelledby") ?? "")?.textContent).toBe("Add a remote library");
    const input = (name: string) => dialog.querySelector(`input[name="${name}"]`) as HTMLInputElement;
    expect(input("url").placeholder).toBe("http://host:8765/v1");
    expect(input("token").type).toBe("password");
    input("name").value = " dave ";
    input("url").value = "http://dave.lan:8765/v1";
    input("token").value = "lectern-secret";
    const form = dialog.querySelector("form") as HTMLFormElement;
    form.requestSubmit();
    await vi.waitFor(() => expect(dialog.querySelector("output.remote-result")?.textContent).toBe("dave.lan:8765 refused the token"));
    expect(dialog.querySelector("output.remote-result")?.classList.contains("failed")).toBe(true);
    expect(dialog.open).toBe(true);
    expect(s.asked("add_remote")).toEqual([{ name: "dave", url: "http://dave.lan:8765/v1", token: "lectern-secret" }]);

    refuse = false;
    form.requestSubmit();
    await vi.waitFor(() => expect(s.row("r:dave/Notes")).not.toBeNull());
    expect(dialog.open).toBe(false);
    // The folders came with the remote: its server is not asked again, nor are the others.
    expect(s.asked("remote_folders")).toEqual([{ name: "bob" }, { name: "carol" }]);
  });

  it("asks about a remote folder from its menu, the chip above the chat naming it", async () => {
    const s = sidebar();
    await s.tree.remotes.load();
    const bar = new ScopeBar(s.hooks.scope);
    document.body.append(bar.element);
    const chips = () => [...bar.element.querySelectorAll(".chip")].map((c) => c.textContent);

    (s.row("r:bob/Other").querySelector(".row-menu") as HTMLButtonElement).click();
    expect(menuLabels()).toEqual(["Ask about this folder"]);
    expect(document.querySelector(".context-menu")?.getAttribute("aria-label")).toBe("Actions for bob: Other");
    (document.querySelector(".context-menu [role=menuitem]") as HTMLElement).click();
    expect(s.hooks.scope.value).toEqual({ ...WHOLE_LIBRARY, remotes: [{ remote: "bob", folder: "Other" }] });
    expect(s.counts.asks).toBe(1);
    expect(chips()).toEqual(["bob: Other"]);
    const old = s.row("r:bob/Other/old").querySelector(".in-scope") as HTMLInputElement;
    expect([old.checked, old.disabled]).toEqual([true, true]);

    (s.row("r:bob").querySelector(".in-scope") as HTMLInputElement).click();
    expect(chips()).toEqual(["bob: Other", "bob"]);
    (bar.element.querySelector('[data-chip="r:bob/Other"] button') as HTMLButtonElement).click();
    expect(s.hooks.scope.value.remotes).toEqual([{ remote: "bob", folder: null }]);

    pick(s.row("r:carol"), "Ask about this library");
    expect(s.hooks.scope.value).toEqual({ ...WHOLE_LIBRARY, remotes: [{ remote: "carol", folder: null }] });
    // Asking about a folder of this library leaves the remotes out.
    pick(s.row("f:1"), "Ask about this folder");
    expect(s.hooks.scope.value).toEqual({ ...WHOLE_LIBRARY, folders: [1] });
    expect(chips()).toEqual([]);
  });

  it("removes a remote once confirmed, taking it out of the scope", async () => {
    let removed = false;
    const s = sidebar({
      list_remotes: () => [remote("bob"), ...(removed ? [] : [remote("carol")])],
      remove_remote: () => void (removed = true),
    });
    await s.tree.remotes.load();
    s.hooks.scope.set({ ...WHOLE_LIBRARY, folders: [1], remotes: [{ remote: "carol", folder: null }] });
    const confirm = vi.spyOn(window, "confirm").mockReturnValueOnce(false).mockReturnValueOnce(true);
    (s.row("r:carol").querySelector(".row-menu") as HTMLButtonElement).click();
    expect(menuLabels()).toEqual(["Ask about this library", "Remove…"]);
    pick(s.row("r:carol"), "Remove…");
    expect(s.asked("remove_remote")).toEqual([]);
    pick(s.row("r:carol"), "Remove…");
    await vi.waitFor(() => expect(s.row("r:carol")).toBeNull());
    expect(confirm.mock.calls[1][0]).toMatch(/^Remove the remote library "carol"\?/);
    expect(s.asked("remove_remote")).toEqual([{ name: "carol" }]);
    expect(s.hooks.scope.value).toEqual({ ...WHOLE_LIBRARY, folders: [1] });
    confirm.mockRestore();
  });
});
