// The sidebar: the folder tree with its documents, their status and progress; folders are
// created, renamed, deleted and nested here, PDFs are added to them from the file picker, and
// documents and folders are moved by dragging.

import { button } from "./dom";
import { commandError, errorMessage, type Api, type OpenDialog } from "./ipc";
import { buildTree, errorRemedy, linkText, statusText, type FolderNode } from "./store";
import type { LibraryDocument, LibraryView } from "./bindings";

export interface SidebarHooks {
  api: Api;
  open: OpenDialog;
  refresh: () => Promise<void>;
  report: (message: string) => void;
  openSettings: () => void;
  openSearch: () => void;
}

const DOC_MIME = "application/x-lectern-documents";
const FOLDER_MIME = "application/x-lectern-folder";

export function renderSidebar(root: HTMLElement, view: LibraryView, selected: Set<string>, hooks: SidebarHooks) {
  root.replaceChildren();
  const header = document.createElement("header");
  const title = document.createElement("h1");
  title.textContent = "Lectern";
  const add = button("New folder", "new-folder", async () => {
    const name = window.prompt("Name of the new folder");
    if (name) await run(hooks, () => hooks.api.createFolder(name));
  });
  const settings = button("Settings", "open-settings", hooks.openSettings);
  const search = button("Search", "open-search", hooks.openSearch);
  search.title = "Search every document (Ctrl+K)";
  header.append(title, search, add, settings);
  const tree = document.createElement("ul");
  tree.className = "tree";
  for (const node of buildTree(view)) tree.append(folderItem(node, selected, hooks));
  root.append(header, tree);
  if (view.documents.length === 0) {
    const empty = document.createElement("p");
    empty.className = "empty-library";
    empty.textContent =
      "No documents yet. Drop PDFs onto a folder here, or use a folder's “Add PDFs”; each is indexed on this machine.";
    root.append(empty);
  }
}

async function run(hooks: SidebarHooks, action: () => Promise<unknown>) {
  try {
    await action();
  } catch (e) {
    hooks.report(errorMessage(e));
  }
  await hooks.refresh();
}

/** Imports PDFs into a folder, reports each file that could not be imported, and refreshes. */
export async function importPdfs(hooks: SidebarHooks, paths: string[], folder: string) {
  await run(hooks, async () => {
    const imported = await hooks.api.importFiles(paths, folder);
    for (const failure of imported.failed) hooks.report(`${failure.path}: ${failure.reason}`);
  });
}

function countDocuments(node: FolderNode): number {
  return node.documents.length + node.children.reduce((n, c) => n + countDocuments(c), 0);
}

function folderItem(node: FolderNode, selected: Set<string>, hooks: SidebarHooks): HTMLLIElement {
  const item = document.createElement("li");
  item.className = "folder";
  item.dataset.folderPath = node.folder.path;
  const row = document.createElement("div");
  row.className = "folder-row";
  row.draggable = true;
  const name = document.createElement("span");
  name.className = "folder-name";
  name.textContent = node.folder.name;
  if (node.link) {
    item.classList.add("linked");
    if (!node.link.available || node.link.failed.length > 0) item.classList.add("link-trouble");
    name.title = linkText(node.link);
  }
  const actions = document.createElement("span");
  actions.className = "actions";
  actions.append(
    button("Add PDFs", "add-pdfs", async () => {
      try {
        const chosen = await hooks.open({ multiple: true, filters: [{ name: "PDF", extensions: ["pdf"] }] });
        if (chosen) await importPdfs(hooks, [chosen].flat(), node.folder.path);
      } catch (e) {
        hooks.report(errorMessage(e));
      }
    }),
    node.link
      ? button("Unlink", "unlink-directory", async () => {
          const link = node.link;
          if (link && window.confirm(`Stop following ${link.path}? The folder keeps its documents.`)) {
            await run(hooks, () => hooks.api.unlinkDirectory(link.id));
          }
        })
      : button("Link a directory…", "link-directory", async () => {
          try {
            const chosen = await hooks.open({ directory: true });
            if (typeof chosen !== "string") return;
            const keep = !window.confirm(
              `Keep "${node.folder.path}" in sync with ${chosen}?\n\n` +
                "OK: a PDF deleted from the directory is deleted here too.\nCancel: its document is kept.",
            );
            await run(hooks, () => hooks.api.linkDirectory(chosen, node.folder.path, keep));
          } catch (e) {
            hooks.report(errorMessage(e));
          }
        }),
    button("+", "new-subfolder", async () => {
      const child = window.prompt(`New folder inside ${node.folder.path}`);
      if (child) await run(hooks, () => hooks.api.createFolder(`${node.folder.path}/${child}`));
    }),
    button("Rename", "rename", async () => {
      const renamed = window.prompt("New name", node.folder.name);
      if (renamed && renamed !== node.folder.name) await run(hooks, () => hooks.api.renameFolder(node.folder.path, renamed));
    }),
    button("Delete", "delete", async () => {
      const documents = countDocuments(node);
      if (documents === 0 && node.children.length === 0) {
        if (window.confirm(`Delete the empty folder "${node.folder.path}"?`)) {
          await run(hooks, () => hooks.api.deleteFolder(node.folder.path, "only_if_empty"));
        }
        return;
      }
      const keep = window.confirm(
        `"${node.folder.path}" holds ${documents} document(s) and ${node.children.length} subfolder(s).\n\n` +
          "OK: move them to the parent folder and delete only this folder.\nCancel: choose whether to delete them.",
      );
      if (keep) {
        await run(hooks, () => hooks.api.deleteFolder(node.folder.path, "move_to_parent"));
      } else if (window.confirm(`Delete "${node.folder.path}" with its ${documents} document(s) and their indexes?`)) {
        await run(hooks, () => hooks.api.deleteFolder(node.folder.path, "delete_documents"));
      }
    }),
  );
  row.append(name, actions);
  row.addEventListener("dragstart", (e) => e.dataTransfer?.setData(FOLDER_MIME, node.folder.path));
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
      await run(hooks, () => hooks.api.moveDocuments(JSON.parse(docs) as string[], node.folder.path));
      selected.clear();
    } else if (folder && folder !== node.folder.path) {
      await run(hooks, () => hooks.api.moveFolder(folder, node.folder.path));
    }
  });
  item.append(row);
  const list = document.createElement("ul");
  for (const child of node.children) list.append(folderItem(child, selected, hooks));
  for (const doc of node.documents) list.append(documentItem(doc, selected, hooks));
  item.append(list);
  return item;
}

function documentItem(doc: LibraryDocument, selected: Set<string>, hooks: SidebarHooks): HTMLLIElement {
  const item = document.createElement("li");
  item.className = `document status-${doc.status}`;
  item.dataset.documentId = doc.id;
  item.draggable = true;
  item.classList.toggle("selected", selected.has(doc.id));
  const name = document.createElement("div");
  name.className = "document-name";
  name.textContent = doc.title || doc.file_name;
  name.title = doc.file_name;
  const status = document.createElement("div");
  status.className = "document-status";
  status.textContent = statusText(doc);
  item.append(name, status);
  if (doc.status === "indexing" || doc.status === "queued") {
    const bar = document.createElement("progress");
    bar.max = Math.max(doc.progress_total, 1);
    bar.value = doc.progress_done;
    item.append(bar);
  } else if (doc.status === "ready" && doc.embed_total > 0) {
    const bar = document.createElement("progress");
    bar.className = "embedding";
    bar.max = doc.embed_total;
    bar.value = doc.embed_done;
    item.append(bar);
  }
  if (doc.status === "needs_password") {
    item.append(
      button("Enter password", "unlock", async () => {
        // A wrong password asks again, saying so; anything else is reported.
        let prompt = `Password for ${doc.file_name}`;
        for (;;) {
          const password = window.prompt(prompt);
          if (!password) return;
          try {
            await hooks.api.unlockDocument(doc.id, password);
            break;
          } catch (e) {
            const error = commandError(e);
            if (errorRemedy(error) !== "enter_password") {
              hooks.report(error.message);
              break;
            }
            prompt = `${error.message}\n\nPassword for ${doc.file_name}`;
          }
        }
        await hooks.refresh();
      }),
    );
  }
  item.addEventListener("click", (e) => {
    if (!(e.ctrlKey || e.metaKey || e.shiftKey)) selected.clear();
    if (selected.has(doc.id)) selected.delete(doc.id);
    else selected.add(doc.id);
    document.querySelectorAll<HTMLElement>("li.document").forEach((el) => {
      el.classList.toggle("selected", selected.has(el.dataset.documentId ?? ""));
    });
  });
  item.addEventListener("dragstart", (e) => {
    const ids = selected.has(doc.id) ? [...selected] : [doc.id];
    e.dataTransfer?.setData(DOC_MIME, JSON.stringify(ids));
  });
  return item;
}

/** The folder path under a point of the window (for files dropped from the file manager). */
export function folderAt(x: number, y: number): string | null {
  const element = document.elementFromPoint(x, y);
  const folder = element?.closest<HTMLElement>("[data-folder-path]");
  return folder?.dataset.folderPath ?? null;
}
