// The first-run screen: when answers are to come from the built-in model and no chat model is
// installed, one screen says so and offers the ways on: install a model here (with its size,
// memory and licence), answer with passages only for now, or use a server from the settings.

import { button, namingHeading } from "./dom";
import { errorMessage, type Api } from "./ipc";
import { ModelList } from "./models";
import type { Settings } from "./bindings";

export interface SetupHooks {
  api: Api;
  report: (message: string) => void;
  saved: (settings: Settings) => void;
  openSettings: () => void;
}

export class SetupDialog {
  readonly element = document.createElement("dialog");
  private readonly models: ModelList;
  private readonly done: HTMLButtonElement;

  constructor(private readonly hooks: SetupHooks) {
    this.element.className = "model-setup";
    const title = namingHeading(this.element, "model-setup-title", "Choose how Lectern answers");
    const text = document.createElement("p");
    text.textContent =
      "Answers are written by a language model on this machine, and none is installed yet. Install one " +
      "below (it downloads once; nothing you ask leaves the machine), or answer with the passages found " +
      "for now, or use a server you run.";
    this.models = new ModelList(
      {
        api: hooks.api,
        report: hooks.report,
        chose: (settings) => {
          hooks.saved(settings);
          this.element.close();
        },
      },
      "chat",
    );
    const buttons = document.createElement("div");
    buttons.className = "buttons";
    this.done = button("Done", "setup-done", () => this.element.close());
    buttons.append(
      button("Passages only for now", "setup-extractive", () => void this.passagesOnly()),
      button("Use a server…", "setup-server", () => {
        this.element.close();
        hooks.openSettings();
      }),
      this.done,
    );
    this.element.append(title, text, this.models.element, buttons);
  }

  /** Opens the screen if answers come from the built-in model and no chat model is installed;
   *  whether it opened. */
  async showIfNeeded(settings: Settings): Promise<boolean> {
    if (settings.backend !== "builtin") return false;
    await this.models.load();
    if (this.models.hasChatModel()) return false;
    this.element.showModal();
    return true;
  }

  private async passagesOnly() {
    try {
      const view = await this.hooks.api.getSettings();
      this.hooks.saved(await this.hooks.api.saveSettings({ ...view.settings, backend: "extractive" }));
      this.element.close();
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }
}
