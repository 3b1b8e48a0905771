// The models on this machine and the known ones to install, with size, memory needed and
// licence: install with progress and cancel (a cancelled download resumes next time), choose
// the chat model that answers, remove one. Shown in the settings and on the first-run screen.

import { button, keepingFocus } from "./dom";
import { sizeText } from "./info";
import { errorMessage, type Api } from "./ipc";
import type { InstallProgress, ModelEntry, Settings } from "./bindings";

export interface ModelsHooks {
  api: Api;
  report: (message: string) => void;
  /** The settings changed: a chat model was chosen, or the one chosen was removed. */
  chose: (settings: Settings) => void;
}

/** An installation's progress in words: "412 MB of 986 MB · downloading part 3 of 22 from PyPI". */
export function progressText(p: InstallProgress): string {
  const done = sizeText(p.done);
  return p.total ? `${done} of ${sizeText(p.total)} · ${p.step}` : `${done} · ${p.step}`;
}

/** What a model needs and allows, in a line. */
export function modelFacts(m: ModelEntry): string {
  const does = { chat: "answers questions", embedding: "embeds passages", rerank: "reorders the best pages" };
  const facts = [does[m.role], sizeText(m.size)];
  if (m.memory_mb !== null) facts.push(`needs about ${sizeText(m.memory_mb * 1024 * 1024)} of memory`);
  if (m.licence !== null) facts.push(`licence ${m.licence}`);
  return facts.join(" · ");
}

export class ModelList {
  readonly element = document.createElement("ul");
  private models: ModelEntry[] = [];
  /** The installs under way, with their last progress. */
  private readonly installing = new Map<string, InstallProgress | null>();
  /** The installs the person cancelled: their ending is not a failure to report. */
  private readonly cancelled = new Set<string>();

  /** `only`: show the models of this role alone (the first-run screen shows chat models). */
  constructor(
    private readonly hooks: ModelsHooks,
    private readonly only: ModelEntry["role"] | null = null,
  ) {
    this.element.className = "model-list";
    this.element.setAttribute("aria-label", "Models");
  }

  async load() {
    try {
      this.models = await this.hooks.api.listModels();
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
    this.render();
  }

  /** Whether a chat model is installed. */
  hasChatModel(): boolean {
    return this.models.some((m) => m.role === "chat" && m.installed);
  }

  /** Draws the list again, the focus staying on the control it was on. */
  private render() {
    const shown = this.models.filter((m) => this.only === null || m.role === this.only);
    keepingFocus(this.element, "model", () => this.element.replaceChildren(...shown.map((m) => this.item(m))));
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
    state.textContent = m.active ? "In use" : m.installed ? "Installed" : "";
    name.append(" ", state);
    const facts = document.createElement("div");
    facts.className = "model-facts";
    facts.textContent = modelFacts(m);
    facts.title = m.note;
    const actions = document.createElement("div");
    actions.className = "model-actions";
    item.append(name, facts, actions);
    const progress = this.installing.get(m.id);
    if (this.installing.has(m.id)) {
      const bar = document.createElement("progress");
      bar.max = progress?.total ?? 1;
      if (progress?.total) bar.value = progress.done;
      bar.setAttribute("aria-label", `Installing ${m.name}`);
      const text = document.createElement("span");
      text.className = "install-progress";
      text.textContent = progress ? progressText(progress) : "Starting…";
      actions.append(
        bar,
        text,
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
      actions.append(button("Install", "install-model", () => void this.install(m), `Install ${m.name}`));
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

  private async install(m: ModelEntry) {
    this.installing.set(m.id, null);
    this.render();
    try {
      await this.hooks.api.installModel(m.id, (p) => {
        this.installing.set(m.id, p);
        this.showProgress(m.id, p);
      });
    } catch (e) {
      if (!this.cancelled.has(m.id)) this.hooks.report(`${m.name}: ${errorMessage(e)}`);
    }
    this.cancelled.delete(m.id);
    this.installing.delete(m.id);
    await this.load();
  }

  /** Updates an install's bar and words in place: the Cancel button beside them stays put. */
  private showProgress(id: string, p: InstallProgress) {
    const item = [...this.element.querySelectorAll<HTMLElement>("li.model")].find((li) => li.dataset.model === id);
    const bar = item?.querySelector("progress");
    const text = item?.querySelector(".install-progress");
    if (!bar || !text) return this.render();
    if (p.total) {
      bar.max = p.total;
      bar.value = p.done;
    }
    text.textContent = progressText(p);
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
