// The sidebar's remote libraries, below the library's own tree: other Lectern servers' libraries,
// asked beside this one's folders. Each remote is a read-only branch (its URL as tooltip) whose
// children are the folders its token sees, asked of its server when the list loads; a server
// that cannot be asked shows "Unreachable" with why, and a Retry. Check boxes and "Ask about
// this …" put a remote or a folder of it in the question's scope; "Add remote library…" opens
// the dialog that adds one, and a remote's menu removes it. Nothing is dropped onto, renamed or
// deleted in a remote library. An ARIA tree with one tab stop: arrows, Home/End, Enter, Space,
// Delete and the menu key (or Shift+F10) as in the library's tree.

import { button, namingHeading, scopeBox } from "./dom";
import { ChevronRight, Folder, Globe, icon } from "./icons";
import { errorMessage, type Api } from "./ipc";
import { menuButton, showMenu, underRow, type MenuItem } from "./menu";
import { RemoteDialog } from "./remote-dialog";
import { RovingFocus } from "./roving";
import { askingOnly, remoteChosen, remoteIncluded, remoteLabel, toggleRemote, withoutRemote } from "./scope";
import { remotePart, remoteRows, type RemoteFolders, type RemoteRow } from "./tree";
import type { AddedRemote, Remote, RemoteScope, Scope } from "./bindings";
import type { Store } from "./store";

type Branch = Extract<RemoteRow, { kind: "remote" }>;
type FolderRow = Extract<RemoteRow, { kind: "remote-folder" }>;

export interface RemoteHooks {
  api: Api;
  report: (message: string) => void;
  /** What questions are asked about; the check boxes and "Ask about this …" change it. */
  scope: Store<Scope>;
  /** Moves the focus to the question box ("Ask about this library"). */
  askNow: () => void;
}

export class RemoteTree {
  readonly element = document.createElement("section");
  private readonly tree = document.createElement("ul");
  private readonly dialog: RemoteDialog;
  private remotes: Remote[] = [];
  /** What each remote's server said of its folders, by the remote's name. */
  private readonly folders = new Map<string, RemoteFolders>();
  /** The remotes whose folders are hidden, by name. */
  private readonly closed = new Set<string>();
  private rows: RemoteRow[] = [];
  /** The row with the tree's tab stop, and the rows drawn. */
  private readonly roving = new RovingFocus(this.tree, () => this.rows);

  constructor(private readonly hooks: RemoteHooks) {
    this.element.className = "remotes";
    const title = namingHeading(this.element, "remotes-title", "Remote libraries");
    this.tree.className = "tree remote-tree";
    this.tree.setAttribute("role", "tree");
    this.tree.setAttribute("aria-labelledby", title.id);
    this.tree.addEventListener("keydown", (e) => this.key(e));
    this.dialog = new RemoteDialog(hooks.api, (added) => void this.added(added));
    const add = button(
      "Add remote library…",
      "add-remote",
      () => this.dialog.show(),
      "Ask another Lectern server's library beside this one",
    );
    this.element.append(title, this.tree, add);
    hooks.scope.subscribe(() => this.render());
  }

  /** Lists the remote libraries, and asks the servers of those not asked yet for their folders. */
  async load() {
    try {
      this.remotes = await this.hooks.api.listRemotes();
    } catch (e) {
      this.hooks.report(errorMessage(e));
      return;
    }
    this.render();
    const unasked = this.remotes.filter((r) => !this.folders.has(r.name));
    await Promise.all(unasked.map((r) => this.askFolders(r.name)));
  }

  /** Asks the server of the remote `name` for its folders; "Unreachable" if it cannot be. */
  private async askFolders(name: string) {
    this.folders.set(name, { state: "asking" });
    this.render();
    try {
      this.folders.set(name, { state: "ready", paths: await this.hooks.api.remoteFolders(name) });
    } catch (e) {
      this.folders.set(name, { state: "unreachable", reason: errorMessage(e) });
    }
    this.render();
  }

  /** A remote just added: the folders its server said as it was added, then the list again. */
  private async added({ remote, folders }: AddedRemote) {
    this.folders.set(remote.name, { state: "ready", paths: folders });
    await this.load();
  }

  /** Draws the remotes, keeping the focus on the row that had it. */
  private render() {
    this.rows = remoteRows(this.remotes, this.folders, this.closed);
    this.roving.redraw(() => {
      // An empty tree is no tree: hidden until a remote is added.
      this.tree.hidden = this.rows.length === 0;
      const branches = this.rows.filter((r): r is Branch => r.kind === "remote");
      this.tree.replaceChildren(...branches.map((r) => this.remoteItem(r)));
    });
  }

  private remoteItem(row: Branch): HTMLLIElement {
    const { name, url } = row.remote;
    const disclosure = icon(ChevronRight, "disclosure");
    disclosure.addEventListener("click", (e) => {
      e.stopPropagation();
      this.toggleOpen(name);
    });
    const item = this.treeItem(row, name, disclosure, icon(Globe, "kind"));
    (item.firstElementChild as HTMLElement).title = url;
    const said = this.folders.get(name) ?? { state: "asking" };
    if (said.state === "ready" && said.paths.length > 0) {
      item.setAttribute("aria-expanded", String(!this.closed.has(name)));
    }
    this.addStatus(item, name, said);
    const children = this.rows.filter((r): r is FolderRow => r.kind === "remote-folder" && r.parent === row.key);
    if (children.length > 0) {
      const group = document.createElement("ul");
      group.setAttribute("role", "group");
      for (const child of children) group.append(this.folderItem(child));
      item.append(group);
    }
    return item;
  }

  private folderItem(row: FolderRow): HTMLLIElement {
    const space = document.createElement("span");
    space.className = "disclosure-space";
    return this.treeItem(row, row.path, space, icon(Folder, "kind"));
  }

  /** Says under a remote's row (its description) that its server is being asked, or has no
   *  folders for its token, or could not be asked: why, with a Retry. Nothing once its folders
   *  are shown. */
  private addStatus(item: HTMLElement, name: string, said: RemoteFolders) {
    if (said.state === "ready" && said.paths.length > 0) return;
    const line = document.createElement("div");
    line.className = "remote-status";
    line.id = `${item.getAttribute("aria-labelledby")}-status`;
    item.setAttribute("aria-describedby", line.id);
    item.append(line);
    if (said.state !== "unreachable") {
      line.textContent = said.state === "asking" ? "Asking its server…" : "No folders";
      return;
    }
    line.classList.add("unreachable");
    line.textContent = `Unreachable: ${said.reason}`;
    item.append(button("Retry", "retry-remote", () => void this.askFolders(name), `Ask ${name} for its folders again`));
  }

  /** A row: `lead` (its disclosure, or the room of one), its check box, icon, `label` and ⋮
   *  menu; the box and the menu name the remote with a folder ("bob: Other"). */
  private treeItem(row: RemoteRow, label: string, lead: Element, kind: Element): HTMLLIElement {
    const item = document.createElement("li");
    item.className = row.kind;
    item.dataset.key = row.key;
    item.setAttribute("role", "treeitem");
    item.setAttribute("aria-level", row.parent === null ? "1" : "2");
    const name = document.createElement("span");
    name.className = "folder-name";
    // Names and paths may hold spaces, which an id may not: the rows are numbered instead.
    name.id = `remote-name-${this.roving.size}`;
    name.textContent = label;
    item.setAttribute("aria-labelledby", name.id);
    this.roving.add(row.key, item);
    const bar = document.createElement("div");
    bar.className = "folder-row";
    const full = remoteLabel(remotePart(row));
    bar.append(lead, this.checkBox(item, row, full), kind, name, menuButton(full, (x, y) => this.menuAt(row, x, y)));
    bar.addEventListener("click", () => this.roving.focus(row.key));
    bar.addEventListener("contextmenu", (e) => {
      e.preventDefault();
      this.menuAt(row, e.clientX, e.clientY);
    });
    item.append(bar);
    return item;
  }

  /** The box that puts a row in the scope; a folder of a chosen remote (or folder) shows checked,
   *  and cannot be taken out alone. */
  private checkBox(item: HTMLElement, row: RemoteRow, label: string): HTMLInputElement {
    const scope = this.hooks.scope.value;
    const part = remotePart(row);
    const included = remoteIncluded(scope, part);
    item.setAttribute("aria-checked", String(included));
    const box = scopeBox(label, included, () => this.toggleScope(row));
    if (included && !remoteChosen(scope, part)) {
      box.disabled = true;
      box.title = "Asked about with its library or a folder above it";
    }
    return box;
  }

  private toggleOpen(name: string) {
    if (!this.closed.delete(name)) this.closed.add(name);
    this.render();
  }

  private toggleScope(row: RemoteRow) {
    this.hooks.scope.update((s) => toggleRemote(s, remotePart(row)));
  }

  private key(e: KeyboardEvent) {
    // Retry and ⋮ keep their own keys.
    if ((e.target as HTMLElement).closest("button")) return;
    const at = this.roving.at;
    const row = this.rows[at];
    const action = row && this.keyAction(e, row, at);
    if (!action) return;
    e.preventDefault();
    action();
  }

  /** What a key does on `row`, the `at`-th row; undefined for a key the tree leaves alone. */
  private keyAction(e: KeyboardEvent, row: RemoteRow, at: number): (() => void) | undefined {
    const move = (i: number) => this.roving.move(i);
    const name = row.remote.name;
    const expanded = this.roving.item(row.key)?.getAttribute("aria-expanded") ?? null;
    const actions: Record<string, () => void> = {
      ArrowDown: () => move(at + 1),
      ArrowUp: () => move(at - 1),
      Home: () => move(0),
      End: () => move(this.rows.length - 1),
      ArrowRight: () => {
        if (expanded === "true") move(at + 1);
        else if (expanded === "false") this.toggleOpen(name);
      },
      ArrowLeft: () => {
        if (expanded === "true") this.toggleOpen(name);
        else if (row.parent !== null) this.roving.focus(row.parent);
      },
      Enter: () => {
        if (expanded !== null) this.toggleOpen(name);
      },
      " ": () => this.toggleScope(row),
      Delete: () => {
        if (row.kind === "remote") void this.remove(name);
      },
      ContextMenu: () => this.menuAt(row, ...underRow(this.roving.item(row.key))),
    };
    if (e.key === "F10") return e.shiftKey ? actions.ContextMenu : undefined;
    return actions[e.key];
  }

  /** Opens `row`'s menu at (`x`, `y`): asking about it, and removing a remote. */
  private menuAt(row: RemoteRow, x: number, y: number) {
    this.roving.focus(row.key);
    const back = this.roving.item(row.key);
    if (!back) return;
    const part = remotePart(row);
    const items: MenuItem[] = [
      { label: row.kind === "remote" ? "Ask about this library" : "Ask about this folder", run: () => this.askAbout(part) },
    ];
    if (row.kind === "remote") {
      items.push({ label: "Remove…", shortcut: "Del", danger: true, run: () => void this.remove(part.remote) });
    }
    showMenu(`Actions for ${remoteLabel(part)}`, items, x, y, back);
  }

  private askAbout(part: RemoteScope) {
    this.hooks.scope.update((s) => askingOnly(s, { remotes: [part] }));
    this.hooks.askNow();
  }

  /** Forgets the remote `name` (once confirmed), and takes it out of the scope. */
  private async remove(name: string) {
    if (!window.confirm(`Remove the remote library "${name}"? Its token is forgotten here; nothing changes on its server.`)) {
      return;
    }
    try {
      await this.hooks.api.removeRemote(name);
      this.folders.delete(name);
      this.closed.delete(name);
      this.hooks.scope.update((s) => withoutRemote(s, name));
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
    await this.load();
  }
}
