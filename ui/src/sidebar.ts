// The sidebar: the library as a tree (ARIA tree with one tab stop). Folders open and close, show
// their totals and icons; documents show a status badge and a progress ring while indexing. Only
// the rows in view are drawn (`rows-in-view.ts`): the rows are flat, each saying its level and
// place among its siblings.
// Each row has a check box that puts it in the question's scope, and a menu (right click,
// Shift+F10 or its ⋮ button) with what can be done to it (a folder's: when chats over it search,
// too); the keys are the usual ones (arrows, Home/End, Enter, Space, F2, Delete), Ctrl/Shift+click
// choose several documents, and folders and documents move by dragging. Below it, the remote
// libraries (`remote-tree.ts`).

import { button, inlineEdit, scopeBox } from "./dom";
import {
  ChevronRight,
  CircleAlert,
  FileText,
  Folder,
  FolderOpen,
  FolderPlus,
  FolderSync,
  KeyRound,
  ScanText,
  Search,
  Settings as SettingsIcon,
  icon,
} from "./icons";
import { cancelIndexing, reindex, run, unlock } from "./actions";
import { errorMessage, type Api, type OpenDialog } from "./ipc";
import { menuButton, showMenu, underRow, type MenuItem } from "./menu";
import { RemoteTree } from "./remote-tree";
import { RovingFocus } from "./roving";
import { RowsInView, type Drawing } from "./rows-in-view";
import { askingOnly, folderIncluded, toggleDocument, toggleFolder } from "./scope";
import { buildTree, EMPTY_LIBRARY, linkText, statusText, type FolderNode, type Store } from "./store";
import { STRATEGIES } from "./strategy";
import {
  documentKey,
  documentsBetween,
  folderKey,
  loadClosed,
  saveClosed,
  totalsText,
  visibleRows,
  type Row,
} from "./tree";
import type { LibraryDocument, LibraryView, Scope, Strategy } from "./bindings";

export interface SidebarHooks {
  api: Api;
  open: OpenDialog;
  refresh: () => Promise<void>;
  report: (message: string) => void;
  openSettings: () => void;
  openSearch: () => void;
  /** What questions are asked about; the tree's check boxes change it. */
  scope: Store<Scope>;
  /** Moves the focus to the question box ("Ask about this folder"). */
  askNow: () => void;
  openDocument: (doc: LibraryDocument) => void;
  /** Shows everything known about a document, with its log. */
  showInfo: (doc: LibraryDocument) => void;
}

const DOC_MIME = "application/x-lectern-documents";
const FOLDER_MIME = "application/x-lectern-folder";

/** The shapes of rows, each of one height: a folder, a document, one with its status below, one
 *  with a password button too; and a first guess at their heights, in pixels. */
type Shape = "folder" | "document" | "status" | "locked";
const GUESSED_HEIGHTS: Record<Shape, number> = { folder: 28, document: 28, status: 44, locked: 72 };

/** Whether a document's row says its status on a line of its own. */
const saysStatus = (doc: LibraryDocument) => doc.status !== "ready" || doc.embed_total > 0 || doc.reason !== null;

function shapeOf(row: Row): Shape {
  if (row.kind === "folder") return "folder";
  if (row.doc.status === "needs_password") return "locked";
  return saysStatus(row.doc) ? "status" : "document";
}

export class Sidebar {
  private view: LibraryView = EMPTY_LIBRARY;
  /** The folder tree of the library drawn last (built again only with a new library). */
  private roots: FolderNode[] = [];
  private rows: Row[] = [];
  private readonly closed: Set<number>;
  /** The documents chosen (Ctrl/Shift+click), which drag and Delete act on together. */
  readonly selected = new Set<string>();
  /** The end a Shift+click range starts from. */
  private anchor: string | null = null;
  /** The row being renamed in place. */
  private renaming: string | null = null;
  private readonly tree = document.createElement("ul");
  /** The header, the tree and what an empty library says: drawn again with the library. */
  private readonly local = document.createElement("div");
  /** The remote libraries, below: drawn by themselves. */
  readonly remotes: RemoteTree;
  /** The row with the tree's tab stop, and the rows drawn. */
  private readonly roving = new RovingFocus(this.tree, () => this.rows);
  /** The rows drawn: those in view. */
  private readonly inView: RowsInView<Row>;

  /** `root` is the sidebar's scrolling box. */
  constructor(
    root: HTMLElement,
    private readonly hooks: SidebarHooks,
    private readonly storage: Storage = window.localStorage,
  ) {
    this.closed = loadClosed(storage);
    this.tree.className = "tree";
    this.tree.setAttribute("role", "tree");
    this.tree.setAttribute("aria-label", "Library");
    this.tree.setAttribute("aria-multiselectable", "true");
    this.tree.addEventListener("keydown", (e) => this.key(e));
    this.remotes = new RemoteTree(hooks);
    root.replaceChildren(this.local, this.remotes.element);
    const drawing: Drawing<Row> = {
      shape: shapeOf,
      draw: (row) => (row.kind === "folder" ? this.folderItem(row) : this.documentItem(row)),
      keep: (row, element) => this.roving.add(row.key, element),
      pinned: () => this.roving.at,
      around: (draw) => this.roving.redraw(draw),
    };
    this.inView = new RowsInView(root, this.tree, drawing, { ...GUESSED_HEIGHTS });
    hooks.scope.subscribe(() => this.draw());
  }

  /** Draws the library, keeping which folders are open, the focus and the selection. */
  render(view: LibraryView) {
    this.view = view;
    // A name being typed is not redrawn away: the tree shows the new state once it is done.
    const typing = document.activeElement;
    const renaming = typing instanceof HTMLInputElement && typing.classList.contains("rename");
    if (this.renaming !== null && renaming && this.tree.contains(typing)) return;
    if (this.selected.size > 0) {
      const ids = new Set(view.documents.map((d) => d.id));
      for (const id of [...this.selected]) if (!ids.has(id)) this.selected.delete(id);
    }
    this.roots = buildTree(view);
    this.local.replaceChildren(this.header(), this.tree);
    if (view.documents.length === 0) {
      const empty = document.createElement("p");
      empty.className = "empty-library";
      empty.textContent =
        "No documents yet. Drop PDFs onto a folder here, or choose “Add PDFs…” in a folder's menu; each is indexed on this machine.";
      this.local.append(empty);
    }
    this.layout();
  }

  /** Lists the rows as the folders stand open or closed, and draws those in view. */
  private layout() {
    this.rows = visibleRows(this.roots, this.closed);
    this.inView.show(this.rows);
  }

  /** Draws the rows in view again, as they now are. */
  private draw() {
    this.inView.draw();
  }

  /** Gives row `key` the tab stop and the focus, scrolled into view. */
  private focusRow(key: string) {
    this.inView.reveal(this.rows.findIndex((r) => r.key === key));
    this.roving.focus(key);
  }

  private header(): HTMLElement {
    const header = document.createElement("header");
    const title = document.createElement("h1");
    title.textContent = "Lectern";
    const tool = (node: Parameters<typeof icon>[0], className: string, label: string, run: () => void) => {
      const b = button("", className, run, label);
      b.append(icon(node));
      return b;
    };
    header.append(
      title,
      tool(Search, "open-search", "Search every document (Ctrl+K)", this.hooks.openSearch),
      tool(FolderPlus, "new-folder", "New folder", () => void this.newFolder(null)),
      tool(SettingsIcon, "open-settings", "Settings", this.hooks.openSettings),
    );
    return header;
  }

  private folderItem(row: Row & { kind: "folder" }): HTMLLIElement {
    const { node, key } = row;
    const { folder, link } = node;
    const open = !this.closed.has(folder.id);
    const item = this.treeItem(row, `folder${link ? " linked" : ""}`);
    item.dataset.folderPath = folder.path;
    if (node.children.length > 0 || node.documents.length > 0) item.setAttribute("aria-expanded", String(open));
    if (link && (!link.available || link.failed.length > 0)) item.classList.add("link-trouble");
    const line = document.createElement("div");
    line.className = "folder-row";
    line.draggable = true;
    const disclosure = icon(ChevronRight, "disclosure");
    disclosure.addEventListener("click", (e) => {
      e.stopPropagation();
      this.toggleOpen(folder.id);
    });
    const name = this.nameOf(key, folder.name, "folder-name");
    const count = document.createElement("span");
    count.className = "count";
    const documents = node.totals?.documents ?? 0;
    count.textContent = documents > 0 ? documents.toLocaleString("en") : "";
    count.title = totalsText(node.totals);
    line.title = link ? `${count.title}\n${linkText(link)}` : count.title;
    if (link) name.title = linkText(link);
    line.append(
      disclosure,
      this.checkBox(key, folder.path, folderIncluded(this.hooks.scope.value, this.view, folder.id)),
      icon(link ? FolderSync : open ? FolderOpen : Folder, "kind"),
      name,
      count,
      this.menuButton(key, folder.name),
    );
    line.addEventListener("click", () => this.roving.focus(key));
    line.addEventListener("dblclick", () => this.toggleOpen(folder.id));
    line.addEventListener("contextmenu", (e) => {
      e.preventDefault();
      this.roving.focus(key);
      this.showMenuFor(key, e.clientX, e.clientY);
    });
    this.dropTarget(line, folder.path);
    line.addEventListener("dragstart", (e) => e.dataTransfer?.setData(FOLDER_MIME, folder.path));
    item.append(line);
    return item;
  }

  private documentItem(row: Row & { kind: "document" }): HTMLLIElement {
    const { doc, key } = row;
    const item = this.treeItem(row, `document status-${doc.status}`);
    item.dataset.documentId = doc.id;
    // Where files dropped onto it go.
    item.dataset.folderPath = row.folder.folder.path;
    item.draggable = true;
    item.setAttribute("aria-selected", String(this.selected.has(doc.id)));
    item.classList.toggle("selected", this.selected.has(doc.id));
    const line = document.createElement("div");
    line.className = "document-row";
    const label = doc.display_name;
    // Renaming changes the file name; the name shown is the core's (the PDF's title when it reads
    // as one, else the file name).
    const name = this.nameOf(key, label, "document-name", doc.file_name);
    name.title = doc.file_name;
    const scope = this.hooks.scope.value;
    const withFolder = folderIncluded(scope, this.view, doc.folder);
    const box = this.checkBox(key, label, withFolder || scope.documents.includes(doc.id));
    if (withFolder) {
      box.disabled = true;
      box.title = "Asked about with its folder";
    }
    const space = document.createElement("span");
    space.className = "disclosure-space";
    line.append(
      space,
      box,
      icon(FileText, "kind"),
      name,
      statusBadge(doc),
      this.menuButton(key, label),
    );
    item.append(line);
    const status = statusText(doc);
    item.title = `${doc.file_name}\n${status}`;
    if (saysStatus(doc)) {
      const line = document.createElement("div");
      line.className = "document-status";
      line.textContent = status;
      item.append(line);
    }
    if (doc.status === "needs_password") {
      item.append(button("Enter password", "unlock", () => void unlock(this.hooks, doc)));
    }
    item.addEventListener("click", (e) => this.choose(doc.id, e));
    item.addEventListener("dblclick", () => this.hooks.openDocument(doc));
    item.addEventListener("contextmenu", (e) => {
      e.preventDefault();
      if (!this.selected.has(doc.id)) this.choose(doc.id, e);
      this.showMenuFor(key, e.clientX, e.clientY);
    });
    item.addEventListener("dragstart", (e) => {
      const ids = this.selected.has(doc.id) ? [...this.selected] : [doc.id];
      e.dataTransfer?.setData(DOC_MIME, JSON.stringify(ids));
    });
    return item;
  }

  private treeItem(row: Row, className: string): HTMLLIElement {
    const item = document.createElement("li");
    item.className = className;
    item.dataset.key = row.key;
    item.setAttribute("role", "treeitem");
    item.setAttribute("aria-level", String(row.level));
    item.setAttribute("aria-setsize", String(row.setsize));
    item.setAttribute("aria-posinset", String(row.posinset));
    this.roving.add(row.key, item);
    return item;
  }

  /** A row's name, or the box that renames it in place (Enter keeps, Esc goes back); `edited`
   *  is the name the box starts from, when it is not the one shown. */
  private nameOf(key: string, text: string, className: string, edited = text): HTMLElement {
    if (this.renaming !== key) {
      const name = document.createElement("span");
      name.className = className;
      name.id = `name-${key}`;
      name.textContent = text;
      this.roving.item(key)?.setAttribute("aria-labelledby", name.id);
      return name;
    }
    return inlineEdit(edited, `rename ${className}`, `New name for ${text}`, (name) => {
      this.renaming = null;
      if (name) void this.rename(key, name);
      else this.draw();
      this.roving.item(key)?.focus();
    });
  }

  /** The box that puts a row in the scope; a row inside a chosen folder shows checked too. */
  private checkBox(key: string, label: string, included: boolean): HTMLInputElement {
    this.roving.item(key)?.setAttribute("aria-checked", String(included));
    return scopeBox(label, included, () => this.toggleScope(key));
  }

  private menuButton(key: string, label: string): HTMLButtonElement {
    return menuButton(label, (x, y) => {
      this.roving.focus(key);
      this.showMenuFor(key, x, y);
    });
  }

  private dropTarget(row: HTMLElement, path: string) {
    row.addEventListener("dragover", (e) => {
      e.preventDefault();
      row.classList.add("drop-target");
    });
    row.addEventListener("dragleave", () => row.classList.remove("drop-target"));
    row.addEventListener("drop", async (e) => {
      e.preventDefault();
      row.classList.remove("drop-target");
      const docs = e.dataTransfer?.getData(DOC_MIME);
      const folder = e.dataTransfer?.getData(FOLDER_MIME);
      if (docs) {
        await this.run(() => this.hooks.api.moveDocuments(JSON.parse(docs) as string[], path));
        this.selected.clear();
      } else if (folder && folder !== path) {
        await this.run(() => this.hooks.api.moveFolder(folder, path));
      }
    });
  }

  /** A click on a document: alone, with Ctrl added or taken away, with Shift a range. */
  private choose(id: string, e: MouseEvent | KeyboardEvent) {
    const key = documentKey(id);
    if (e.shiftKey && this.anchor) {
      for (const d of documentsBetween(this.rows, this.anchor, key)) this.selected.add(d);
    } else if (e.ctrlKey || e.metaKey) {
      if (!this.selected.delete(id)) this.selected.add(id);
      this.anchor = key;
    } else {
      this.selected.clear();
      this.selected.add(id);
      this.anchor = key;
    }
    this.focusRow(key);
    for (const el of this.tree.querySelectorAll<HTMLElement>("li.document")) {
      const on = this.selected.has(el.dataset.documentId ?? "");
      el.classList.toggle("selected", on);
      el.setAttribute("aria-selected", String(on));
    }
  }

  private toggleOpen(id: number) {
    if (!this.closed.delete(id)) this.closed.add(id);
    saveClosed(this.storage, this.closed);
    this.layout();
  }

  private toggleScope(key: string) {
    const id = key.slice(2);
    this.hooks.scope.update((s) => (key.startsWith("f:") ? toggleFolder(s, Number(id)) : toggleDocument(s, id)));
  }

  private row(key: string | null): Row | undefined {
    return this.rows.find((r) => r.key === key);
  }

  private key(e: KeyboardEvent) {
    if ((e.target as HTMLElement).tagName === "INPUT" && !(e.target as HTMLInputElement).classList.contains("in-scope")) return;
    const at = this.roving.at;
    const row = this.rows[at];
    if (!row) return;
    // Moving onto a document chooses it, as a file manager does (Shift extends, Ctrl only moves).
    const move = (i: number) =>
      this.roving.move(i, (next) => {
        if (next.kind === "document" && !(e.ctrlKey || e.metaKey)) this.choose(next.doc.id, e);
        else this.focusRow(next.key);
      });
    const folderOpen = row.kind === "folder" && !this.closed.has(row.node.folder.id);
    const hasChildren = row.kind === "folder" && (row.node.children.length > 0 || row.node.documents.length > 0);
    switch (e.key) {
      case "ArrowDown":
        move(at + 1);
        break;
      case "ArrowUp":
        move(at - 1);
        break;
      case "Home":
        move(0);
        break;
      case "End":
        move(this.rows.length - 1);
        break;
      case "ArrowRight":
        if (row.kind !== "folder" || !hasChildren) break;
        if (folderOpen) move(at + 1);
        else this.toggleOpen(row.node.folder.id);
        break;
      case "ArrowLeft":
        if (row.kind === "folder" && folderOpen && hasChildren) this.toggleOpen(row.node.folder.id);
        else if (row.parent) this.focusRow(row.parent);
        break;
      case "Enter":
        if (row.kind === "folder") this.toggleOpen(row.node.folder.id);
        else if (e.altKey) this.hooks.showInfo(row.doc);
        else this.hooks.openDocument(row.doc);
        break;
      case " ":
        this.toggleScope(row.key);
        break;
      case "F2":
        this.startRename(row.key);
        break;
      case "Delete":
        void this.remove(row);
        break;
      case "ContextMenu":
        this.menuAtRow(row.key);
        break;
      case "F10":
        if (!e.shiftKey) return;
        this.menuAtRow(row.key);
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  private menuAtRow(key: string) {
    this.showMenuFor(key, ...underRow(this.roving.item(key)));
  }

  private startRename(key: string) {
    this.renaming = key;
    this.draw();
  }

  private showMenuFor(key: string, x: number, y: number) {
    const row = this.row(key);
    const back = this.roving.item(key);
    if (!row || !back) return;
    const items = row.kind === "folder" ? this.folderMenu(row.node, x, y) : this.documentMenu(row.doc);
    const label = row.kind === "folder" ? row.node.folder.name : row.doc.display_name;
    showMenu(`Actions for ${label}`, items, x, y, back);
  }

  /** A folder's menu, opened at (`x`, `y`), where the menu of its strategies opens too. */
  private folderMenu(node: FolderNode, x: number, y: number): MenuItem[] {
    const { folder, link } = node;
    const items: MenuItem[] = [
      {
        label: "Ask about this folder",
        run: () => {
          this.hooks.scope.update((s) => askingOnly(s, { folders: [folder.id] }));
          this.hooks.askNow();
        },
      },
      { label: "Add PDFs…", run: () => void this.addPdfs(folder.path) },
      { label: "New subfolder…", run: () => void this.newFolder(folder.path) },
      link
        ? { label: "Unlink the directory…", run: () => void this.unlink(node) }
        : { label: "Link a directory…", run: () => void this.linkDirectory(folder.path) },
      { label: "When chats search…", run: () => this.strategyMenu(node, x, y) },
      { label: "Rename", shortcut: "F2", run: () => this.startRename(folderKey(folder.id)) },
      { label: "Delete…", shortcut: "Del", danger: true, run: () => void this.deleteFolder(node) },
    ];
    return items;
  }

  /** The choice of when chats over a folder search, unless they have a strategy of their own:
   *  as its parent (named), or one of the strategies; the one in force is checked. */
  private strategyMenu(node: FolderNode, x: number, y: number) {
    const { folder } = node;
    const back = this.roving.item(folderKey(folder.id));
    if (!back) return;
    const choose = (strategy: Strategy | null) => () =>
      void this.run(() => this.hooks.api.setFolderStrategy(folder.path, strategy));
    const inherited = STRATEGIES[folder.inherited_strategy ?? "always"].name;
    const items: MenuItem[] = [
      { label: `Inherit (${inherited})`, checked: folder.strategy === null, run: choose(null) },
      ...Object.entries(STRATEGIES).map(([strategy, { name, help }]) => ({
        label: name[0].toUpperCase() + name.slice(1),
        title: help,
        checked: folder.strategy === strategy,
        run: choose(strategy as Strategy),
      })),
    ];
    showMenu(`When chats over ${folder.name} search`, items, x, y, back);
  }

  private documentMenu(doc: LibraryDocument): MenuItem[] {
    const ids = this.selected.has(doc.id) && this.selected.size > 1 ? [...this.selected] : [doc.id];
    const many = ids.length > 1;
    const items: MenuItem[] = [
      {
        label: many ? `Ask about these ${ids.length} documents` : "Ask about this document",
        run: () => {
          this.hooks.scope.update((s) => askingOnly(s, { documents: ids }));
          this.hooks.askNow();
        },
      },
    ];
    if (!many) {
      items.push(
        { label: "Open", shortcut: "Enter", run: () => this.hooks.openDocument(doc) },
        { label: "Info…", shortcut: "Alt+Enter", run: () => this.hooks.showInfo(doc) },
      );
    }
    if (doc.status === "needs_password") items.push({ label: "Enter the password…", run: () => void unlock(this.hooks, doc) });
    if (doc.status === "queued" || doc.status === "indexing") {
      items.push({ label: "Cancel indexing", run: () => void cancelIndexing(this.hooks, doc.id) });
    } else {
      items.push({ label: doc.status === "failed" ? "Retry" : "Index again", run: () => void reindex(this.hooks, ids) });
    }
    if (!many) items.push({ label: "Rename", shortcut: "F2", run: () => this.startRename(documentKey(doc.id)) });
    items.push({
      label: many ? `Delete ${ids.length} documents…` : "Delete…",
      shortcut: "Del",
      danger: true,
      run: () => void this.deleteDocuments(ids),
    });
    return items;
  }

  /** Runs a change, reports its failure in words, and shows the library as it now is. */
  private async run(action: () => Promise<unknown>) {
    await run(this.hooks, action);
  }

  private async rename(key: string, name: string) {
    const row = this.row(key);
    if (row?.kind === "folder") await this.run(() => this.hooks.api.renameFolder(row.node.folder.path, name));
    else if (row?.kind === "document") await this.run(() => this.hooks.api.renameDocument(row.doc.id, name));
  }

  private async remove(row: Row) {
    if (row.kind === "folder") await this.deleteFolder(row.node);
    else await this.deleteDocuments(this.selected.has(row.doc.id) ? [...this.selected] : [row.doc.id]);
  }

  private async deleteDocuments(ids: string[]) {
    const names = ids.map((id) => this.view.documents.find((d) => d.id === id)?.file_name ?? id);
    const what = ids.length === 1 ? `"${names[0]}"` : `these ${ids.length} documents`;
    if (!window.confirm(`Delete ${what} with its index? The original files elsewhere are not touched.`)) return;
    await this.run(async () => {
      for (const id of ids) await this.hooks.api.deleteDocument(id);
    });
    this.selected.clear();
  }

  private async newFolder(parent: string | null) {
    const name = window.prompt(parent ? `New folder inside ${parent}` : "Name of the new folder");
    if (name) await this.run(() => this.hooks.api.createFolder(parent ? `${parent}/${name}` : name));
  }

  private async addPdfs(folder: string) {
    try {
      const chosen = await this.hooks.open({ multiple: true, filters: [{ name: "PDF", extensions: ["pdf"] }] });
      if (chosen) await importPdfs(this.hooks, [chosen].flat(), folder);
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }

  private async linkDirectory(folder: string) {
    try {
      const chosen = await this.hooks.open({ directory: true });
      if (typeof chosen !== "string") return;
      const keep = !window.confirm(
        `Keep "${folder}" in sync with ${chosen}?\n\n` +
          "OK: a PDF deleted from the directory is deleted here too.\nCancel: its document is kept.",
      );
      const files = (n: number) => `${n.toLocaleString("en")} file${n === 1 ? "" : "s"}`;
      await this.run(() =>
        this.hooks.api.linkDirectory(chosen, folder, keep, ({ adding, done, total }) =>
          this.hooks.report(`Linking ${chosen}: ${adding ? "adding" : "reading"} ${done.toLocaleString("en")} of ${files(total)}…`),
        ),
      );
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }

  private async unlink(node: FolderNode) {
    const link = node.link;
    if (link && window.confirm(`Stop following ${link.path}? The folder keeps its documents.`)) {
      await this.run(() => this.hooks.api.unlinkDirectory(link.id));
    }
  }

  private async deleteFolder(node: FolderNode) {
    const path = node.folder.path;
    const documents = node.totals?.documents ?? 0;
    if (documents === 0 && node.children.length === 0) {
      if (window.confirm(`Delete the empty folder "${path}"?`)) {
        await this.run(() => this.hooks.api.deleteFolder(path, "only_if_empty"));
      }
      return;
    }
    const keep = window.confirm(
      `"${path}" holds ${documents} document(s) and ${node.children.length} subfolder(s).\n\n` +
        "OK: move them to the parent folder and delete only this folder.\nCancel: choose whether to delete them.",
    );
    if (keep) {
      await this.run(() => this.hooks.api.deleteFolder(path, "move_to_parent"));
    } else if (window.confirm(`Delete "${path}" with its ${documents} document(s) and their indexes?`)) {
      await this.run(() => this.hooks.api.deleteFolder(path, "delete_documents"));
    }
  }
}

/** A document's status at a glance: a ring while it is indexed or embedded, an icon when it
 *  needs something; nothing when it is simply ready. */
function statusBadge(doc: LibraryDocument): HTMLElement {
  const badge = document.createElement("span");
  badge.className = "badge";
  const ring = (done: number, total: number) => {
    const share = total > 0 ? Math.min(1, done / total) : 0;
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 16 16");
    svg.setAttribute("class", "ring");
    svg.setAttribute("aria-hidden", "true");
    for (const [name, length] of [
      ["track", 100],
      ["done", share * 100],
    ] as const) {
      const circle = document.createElementNS("http://www.w3.org/2000/svg", "circle");
      circle.setAttribute("class", name);
      circle.setAttribute("cx", "8");
      circle.setAttribute("cy", "8");
      circle.setAttribute("r", "6");
      circle.setAttribute("pathLength", "100");
      circle.setAttribute("stroke-dasharray", `${length} 100`);
      svg.append(circle);
    }
    badge.append(svg);
    badge.setAttribute("role", "progressbar");
    badge.setAttribute("aria-valuemin", "0");
    badge.setAttribute("aria-valuemax", String(Math.max(total, 1)));
    badge.setAttribute("aria-valuenow", String(done));
    badge.setAttribute("aria-label", statusText(doc));
  };
  const mark = (node: Parameters<typeof icon>[0], label: string) => {
    badge.append(icon(node));
    badge.setAttribute("role", "img");
    badge.setAttribute("aria-label", label);
  };
  switch (doc.status) {
    case "queued":
    case "indexing":
      ring(doc.progress_done, doc.progress_total);
      break;
    case "failed":
      mark(CircleAlert, "Failed");
      break;
    case "needs_password":
      mark(KeyRound, "Needs a password");
      break;
    case "needs_ocr":
      mark(ScanText, "Needs OCR");
      break;
    case "ready":
      if (doc.embed_total > 0) ring(doc.embed_done, doc.embed_total);
      break;
  }
  return badge;
}

/** Imports PDFs into a folder, reports each file that could not be imported, and refreshes. */
export async function importPdfs(hooks: SidebarHooks, paths: string[], folder: string) {
  await run(hooks, async () => {
    const imported = await hooks.api.importFiles(paths, folder);
    for (const failure of imported.failed) hooks.report(`${failure.path}: ${failure.reason}`);
  });
}

/** The folder path under a point of the window (for files dropped from the file manager). */
export function folderAt(x: number, y: number): string | null {
  const element = document.elementFromPoint(x, y);
  const folder = element?.closest<HTMLElement>("[data-folder-path]");
  return folder?.dataset.folderPath ?? null;
}
