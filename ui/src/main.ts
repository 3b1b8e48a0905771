// The window: wires the IPC layer to the sidebar, the chat, the viewer, instant search (Ctrl+K)
// and the settings dialog, refreshes the sidebar as documents are indexed, lists the remote
// libraries once at the start, and imports PDFs dropped from the file manager onto a folder.

import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { open, save } from "@tauri-apps/plugin-dialog";
import { showIndexerProblem } from "./banner";
import { IndexingPanel } from "./indexing";
import { InfoDialog } from "./info";
import { ChatPane } from "./chat";
import { errorMessage, makeApi } from "./ipc";
import { QuickSearch } from "./search";
import { savedSize, useSize } from "./zoom";
import { SettingsDialog } from "./settings";
import { SetupDialog } from "./setup";
import { WHOLE_LIBRARY } from "./scope";
import { folderAt, importPdfs, Sidebar, type SidebarHooks } from "./sidebar";
import { applyUpdate, EMPTY_LIBRARY, Store } from "./store";
import type { ErrorPayload, LibraryUpdate, LibraryView, Scope } from "./bindings";
import { Viewer } from "./viewer";

const api = makeApi(invoke, () => new Channel());
const sidebar = document.getElementById("library") as HTMLElement;
const banner = document.createElement("div");
banner.className = "banner";
banner.hidden = true;
document.body.prepend(banner);
const notice = document.createElement("div");
notice.className = "notice";
notice.hidden = true;
document.body.append(notice);

let library: LibraryView = EMPTY_LIBRARY;
/** What questions are asked about: chosen in the tree, shown above the chat. */
const scope = new Store<Scope>(WHOLE_LIBRARY);

function report(message: string) {
  notice.textContent = message;
  notice.hidden = false;
  window.setTimeout(() => (notice.hidden = true), 6000);
}

const viewer = new Viewer(document.getElementById("viewer") as HTMLElement, api);
const chat = new ChatPane(document.getElementById("chat") as HTMLElement, {
  api,
  scope,
  openCitation: (citation, from) => viewer.open(citation, from).catch((e) => report(errorMessage(e))),
  viewing: () => viewer.viewing(),
  openDocument: (id, name) => viewer.openDocument(id, name).catch((e) => report(errorMessage(e))),
  openSettings: () => void settings.show(),
  report,
  save,
});
const settings = new SettingsDialog({ api, open, report, saved: (saved) => chat.useSettings(saved) });
document.body.append(settings.element);
const quickSearch = new QuickSearch({
  api,
  open: (citation) => viewer.open(citation).catch((e) => report(errorMessage(e))),
  report,
});
document.body.append(quickSearch.element);
window.addEventListener("keydown", (event) => {
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
    event.preventDefault();
    quickSearch.show();
  } else if (!document.querySelector("dialog[open]") && chat.handleKey(event)) {
    event.preventDefault();
  }
});
const hooks: SidebarHooks = {
  api,
  open,
  refresh,
  report,
  openSettings: () => void settings.show(),
  openSearch: () => quickSearch.show(),
  scope,
  askNow: () => chat.focusQuestion(),
  openDocument: (doc) => viewer.openDocument(doc.id, doc.display_name).catch((e) => report(errorMessage(e))),
  showInfo: (doc) => void info.show(doc, library).catch((e) => report(errorMessage(e))),
};
const info = new InfoDialog(hooks);
document.body.append(info.element);
const tree = new Sidebar(sidebar, hooks);
const indexing = new IndexingPanel(hooks);
(document.getElementById("sidebar") as HTMLElement).append(indexing.element);

/** The look at the library under way, and the one asked for meanwhile (reading 10,000
 *  documents takes a tenth of a second: looks do not pile up). */
let looking: Promise<void> | null = null;
let next: Promise<void> | null = null;

/** Shows the library as it now is; resolves once a look begun after the call has. */
function refresh(): Promise<void> {
  if (looking === null) {
    looking = look().finally(() => (looking = null));
    return looking;
  }
  next ??= looking.then(() => {
    next = null;
    return refresh();
  });
  return next;
}

/** Asks for what changed in the library, and draws it unless nothing has; the indexing panel
 *  samples its rate at every look all the same. */
async function look() {
  let update: LibraryUpdate | null;
  try {
    update = await api.libraryState(library.stamp);
  } catch (e) {
    report(errorMessage(e));
    return;
  }
  if (update !== null) library = applyUpdate(library, update);
  indexing.update(library);
  if (update === null) return;
  tree.render(library);
  // When the tree was first drawn with the library, for the app's benchmark.
  if (performance.getEntriesByName("library-drawn").length === 0) performance.mark("library-drawn");
  chat.updateLibrary(library);
}

const bannerHooks = { openSettings: () => void settings.show() };
// None when an install of the embedding model it lacked has started it again.
void listen<ErrorPayload | null>("indexer-stopped", (event) => showIndexerProblem(banner, event.payload, bannerHooks));
void api.indexerProblem().then(
  (problem) => showIndexerProblem(banner, problem, bannerHooks),
  (e) => report(errorMessage(e)),
);

let pending: number | undefined;
void listen("index-event", () => {
  window.clearTimeout(pending);
  pending = window.setTimeout(() => void refresh(), 250);
});

// Files dragged from the file manager: the folder under the pointer shows as the drop target.
void getCurrentWebview().onDragDropEvent(async (event) => {
  document.querySelectorAll(".drop-target").forEach((el) => el.classList.remove("drop-target"));
  if (event.payload.type === "over") {
    const ratio = window.devicePixelRatio || 1;
    const folder = folderAt(event.payload.position.x / ratio, event.payload.position.y / ratio);
    const row = folder ? document.querySelector(`li.folder[data-folder-path="${CSS.escape(folder)}"] > .folder-row`) : null;
    row?.classList.add("drop-target");
    return;
  }
  if (event.payload.type !== "drop") return;
  const ratio = window.devicePixelRatio || 1;
  const folder = folderAt(event.payload.position.x / ratio, event.payload.position.y / ratio);
  if (!folder) {
    report("Drop the PDFs onto a folder in the sidebar.");
    return;
  }
  await importPdfs(hooks, event.payload.paths, folder);
});

// Progress made by another process (a `lectern add` in a terminal) sends no events here: while
// anything is waiting or being indexed, look again every second.
window.setInterval(() => {
  if (library.totals.some((t) => t.pending > 0)) void refresh();
}, 1000);

// A first run (the embedding model missing, or no chat model for the built-in backend) opens the
// setup.
const setup = new SetupDialog({
  api,
  open,
  report,
  saved: (saved) => chat.useSettings(saved),
  openSettings: () => void settings.show(),
});
document.body.append(setup.element);
void api.getSettings().then(
  (view) => {
    chat.useSettings(view.settings);
    return setup.showIfNeeded(view.settings);
  },
  (e) => report(errorMessage(e)),
);
// The interface's size chosen last.
if (savedSize() !== 1) useSize(api, savedSize()).catch((e) => report(errorMessage(e)));
// Once the window has drawn the library, its indexes open for instant search's first words.
void refresh()
  .then(() => chat.loadChats())
  .then(() => openStartedWith())
  .then(() => quickSearch.warm());

/** Adds the PDFs the app was started with ("Open with Lectern") and opens the first in the viewer. */
async function openStartedWith() {
  try {
    const opened = await api.openedFiles();
    for (const failure of opened.failed) report(`${failure.path}: ${failure.reason}`);
    const first = opened.added[0] ?? opened.already_present[0];
    if (!first) return;
    await refresh();
    await viewer.openDocument(first.id, first.display_name);
  } catch (e) {
    report(errorMessage(e));
  }
}
// The remote libraries, below the library's own tree; their servers are asked for their folders.
void tree.remotes.load();
