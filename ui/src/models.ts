// The models on this machine and the known ones to install, with size, memory needed and
// licence: install with a progress bar for each file and cancel (a cancelled download resumes
// next time), choose the chat model that answers, remove one. Shown in the settings and on the
// first-run screen.

import { button, keepingFocus } from "./dom";
import { sizeText } from "./info";
import { commandError, errorMessage, type Api } from "./ipc";
import type { ErrorPayload, InstallProgress, ModelEntry, Settings } from "./bindings";

export interface ModelsHooks {
  api: Api;
  report: (message: string) => void;
  /** The settings changed: a chat model was chosen, or the one chosen was removed. */
  chose: (settings: Settings) => void;
  /** Installs a model when its Install button is pressed, in place of the list's own install
   *  (the first-run screen's, which does more around it). */
  install?: (m: ModelEntry) => void;
}

/** How an install ended: installed, cancelled, or the error it failed with. */
export type InstallEnd = "installed" | "cancelled" | ErrorPayload;

/** What each kind of model does. */
const DOES: Record<ModelEntry["role"], string> = {
  chat: "answers questions",
  embedding: "embeds passages",
  rerank: "reorders the best pages",
  pages: "renders scanned pages for OCR",
};

/** An installation's progress in words: "412 MB of 986 MB · downloading part 3 of 22 from PyPI". */
export function progressText(p: InstallProgress): string {
  const done = sizeText(p.done);
  return p.total ? `${done} of ${sizeText(p.total)} · ${p.step}` : `${done} · ${p.step}`;
}

/** What a model needs and allows, in a line. */
export function modelFacts(m: ModelEntry): string {
  const facts = [DOES[m.role], sizeText(m.size)];
  if (m.memory_mb !== null) facts.push(`needs about ${sizeText(m.memory_mb * 1024 * 1024)} of memory`);
  if (m.licence !== null) facts.push(`licence ${m.licence}`);
  return facts.join(" · ");
}

export class ModelList {
  readonly element = document.createElement("ul");
  private models: ModelEntry[] = [];
  /** The installs under way, each with the last progress of every file it has begun, in order. */
  private readonly installing = new Map<string, Map<string, InstallProgress>>();
  /** The installs the person cancelled: their ending is not a failure to report. */
  private readonly cancelled = new Set<string>();

  /** `source`: the models to show (the first-run screen shows the ones it installs). */
  constructor(
    private readonly hooks: ModelsHooks,
    private readonly source: (api: Api) => Promise<ModelEntry[]> = (api) => api.listModels(),
  ) {
    this.element.className = "model-list";
    this.element.setAttribute("aria-label", "Models");
  }

  async load() {
    try {
      this.models = await this.source(this.hooks.api);
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
    this.render();
  }

  /** Whether the model `id` is being installed from this list. */
  isInstalling(id: string): boolean {
    return this.installing.has(id);
  }

  /** The models shown, as last loaded. */
  get entries(): readonly ModelEntry[] {
    return this.models;
  }

  /** Draws the list again, the focus staying on the control it was on. */
  private render() {
    keepingFocus(this.element, "model", () => this.element.replaceChildren(...this.models.map((m) => this.item(m))));
  }

  private item(m: ModelEntry): HTMLLIElement {
    const item = document.createElement("li");
    item.className = "model";
    item.dataset.model = m.id;
    const name = document.createElement("div");
    name.className = "model-name";
    name.textContent = m.name;
    const state = document.createElement("span");
    state.className = "model-state";
    // The library's embedding model is the active one before its files are in place: not in use.
    state.textContent = !m.installed ? "" : m.active ? "In use" : "Installed";
    name.append(" ", state);
    const facts = document.createElement("div");
    facts.className = "model-facts";
    facts.textContent = modelFacts(m);
    facts.title = m.note;
    const actions = document.createElement("div");
    actions.className = "model-actions";
    item.append(name, facts, actions);
    const files = this.installing.get(m.id);
    if (files) {
      item.append(fileBars(files));
      actions.append(
        button(
          "Cancel",
          "cancel-install",
          () => {
            this.cancelled.add(m.id);
            void this.hooks.api.cancelInstall(m.id);
          },
          `Cancel installing ${m.name}`,
        ),
      );
      return item;
    }
    if (!m.installed) {
      actions.append(button("Install", "install-model", () => this.installClicked(m), `Install ${m.name}`));
    } else {
      if (m.role === "chat" && !m.active) {
        actions.append(button("Use", "use-model", () => void this.use(m), `Answer with ${m.name}`));
      }
      if (!(m.role === "embedding" && m.active)) {
        actions.append(button("Remove", "remove-model", () => void this.remove(m), `Remove ${m.name}`));
      }
    }
    return item;
  }

  private installClicked(m: ModelEntry) {
    if (this.hooks.install) return this.hooks.install(m);
    void this.install(m).then((end) => {
      if (typeof end === "object") this.hooks.report(`${m.name}: ${end.message}`);
    });
  }

  /** Installs `m`, a bar showing each of its files as it comes; how it ended. */
  async install(m: ModelEntry): Promise<InstallEnd> {
    this.installing.set(m.id, new Map());
    this.render();
    let end: InstallEnd = "installed";
    try {
      await this.hooks.api.installModel(m.id, (p) => this.showProgress(m.id, p));
    } catch (e) {
      end = this.cancelled.has(m.id) ? "cancelled" : commandError(e);
    }
    this.cancelled.delete(m.id);
    this.installing.delete(m.id);
    await this.load();
    return end;
  }

  /** Updates a file's bar and words in place (the Cancel button stays put); a file just begun
   *  gets a bar of its own. */
  private showProgress(id: string, p: InstallProgress) {
    const files = this.installing.get(id);
    if (!files) return;
    const begun = files.has(p.file);
    files.set(p.file, p);
    const item = [...this.element.querySelectorAll<HTMLElement>("li.model")].find((li) => li.dataset.model === id);
    const rows = item?.querySelectorAll<HTMLElement>(".install-file") ?? [];
    const row = [...rows].find((r) => r.dataset.file === p.file);
    if (!begun || !row) return this.render();
    showFileProgress(row, p);
  }

  private async use(m: ModelEntry) {
    try {
      this.hooks.chose(await this.hooks.api.useModel(m.id));
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
    await this.load();
  }

  private async remove(m: ModelEntry) {
    if (!window.confirm(`Remove ${m.name} (${sizeText(m.size)}) from this machine?`)) return;
    try {
      this.hooks.chose(await this.hooks.api.removeModel(m.id));
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
    await this.load();
  }
}

/** A bar for each file of an install under way, with its name, the bytes done of its total and
 *  the step. */
function fileBars(files: Map<string, InstallProgress>): HTMLElement {
  const list = document.createElement("div");
  list.className = "install-files";
  if (files.size === 0) {
    const text = document.createElement("span");
    text.className = "install-progress";
    text.textContent = "Starting…";
    list.append(text);
  }
  for (const p of files.values()) {
    const row = document.createElement("div");
    row.className = "install-file";
    row.dataset.file = p.file;
    const name = document.createElement("span");
    name.className = "install-file-name";
    name.textContent = p.file.slice(p.file.lastIndexOf("/") + 1);
    const bar = document.createElement("progress");
    bar.setAttribute("aria-label", `Installing ${name.textContent}`);
    const text = document.createElement("span");
    text.className = "install-progress";
    row.append(name, bar, text);
    showFileProgress(row, p);
    list.append(row);
  }
  return list;
}

function showFileProgress(row: HTMLElement, p: InstallProgress) {
  const bar = row.querySelector("progress");
  const text = row.querySelector(".install-progress");
  if (!bar || !text) return;
  if (p.total) {
    bar.max = p.total;
    bar.value = p.done;
  } else {
    bar.removeAttribute("value");
  }
  text.textContent = progressText(p);
}
