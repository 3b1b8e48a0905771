// The settings dialog: which model answers (built in, Ollama, an OpenAI-compatible server, or
// none: passages only), how passages are searched, a connection test, whether scanned pages are
// read by OCR, the data directory, and whether other programs are served the library.
// The form's fields and the saved settings convert into each other through pure functions.

import { button, buttonRow, dialog, field, namingHeading } from "./dom";
import { errorMessage, type Api, type OpenDialog } from "./ipc";
import { ModelList } from "./models";
import { ServerPanel } from "./server-panel";
import { INTERFACE_SIZES, savedSize, useSize } from "./zoom";
import type { BackendKind, ConnectionCheck, SearchMode, Settings, SettingsView } from "./bindings";

/** Each backend's label and the placeholders of the fields it uses (null: a field it does not use). */
export const BACKENDS: Record<BackendKind, { label: string; model: string | null; url: string | null; apiKey: boolean }> = {
  builtin: {
    label: "Built-in model",
    model: "A model id (lectern model ls) or a .gguf path (empty: the default, Qwen2.5-Coder-1.5B, else the best installed)",
    url: null,
    apiKey: false,
  },
  ollama: { label: "Ollama", model: "Model name, e.g. llama3.2", url: "http://127.0.0.1:11434", apiKey: false },
  openai: {
    label: "OpenAI-compatible",
    model: "Model name, e.g. gpt-4o-mini",
    url: "https://api.openai.com/v1",
    apiKey: true,
  },
  extractive: { label: "Passages only (no model)", model: null, url: null, apiKey: false },
};

const MODES: [SearchMode, string][] = [
  ["hybrid", "Hybrid"],
  ["vector", "Semantic"],
  ["keyword", "Keyword"],
];

/** The form's fields as text, named like the settings. */
export type SettingsFields = Record<keyof Settings, string>;

export function fieldsFromSettings(settings: Settings): SettingsFields {
  return {
    backend: settings.backend,
    model: settings.model ?? "",
    url: settings.url ?? "",
    api_key: settings.api_key ?? "",
    mode: settings.mode,
    k: String(settings.k),
    ocr: settings.ocr ? "on" : "off",
  };
}

/**
 * The settings a form says: empty fields, and those the backend does not use, become null. The
 * window is never shown the saved API key, so a null key means "the saved one".
 */
export function settingsFromFields(fields: SettingsFields): Settings {
  const backend = fields.backend as BackendKind;
  const uses = BACKENDS[backend];
  const text = (value: string, used: boolean) => (used && value.trim() !== "" ? value.trim() : null);
  return {
    backend,
    model: text(fields.model, uses.model !== null),
    url: text(fields.url, uses.url !== null),
    api_key: text(fields.api_key, uses.apiKey),
    mode: fields.mode as SearchMode,
    k: Number(fields.k),
    ocr: fields.ocr !== "off",
  };
}

/** What a successful connection test says to a person. */
export function connectionText(test: ConnectionCheck): string {
  return `Connected: ${test.description} — replied “${test.reply.trim()}” in ${Math.round(test.millis)} ms`;
}

export interface SettingsHooks {
  api: Api;
  open: OpenDialog;
  report: (message: string) => void;
  /** Called with the settings as saved. */
  saved: (settings: Settings) => void;
}

export class SettingsDialog {
  readonly element = dialog("settings");
  private readonly form = document.createElement("form");
  private readonly backend = document.createElement("select");
  private readonly model = document.createElement("input");
  private readonly url = document.createElement("input");
  private readonly apiKey = document.createElement("input");
  private readonly forgetKey = document.createElement("input");
  /** Where a saved key is kept: the system keyring, or the library's database. */
  private readonly keyPlace = document.createElement("p");
  /** Whether a key is saved (its value never comes to the window). */
  private keySet = false;
  private readonly mode = document.createElement("select");
  private readonly k = document.createElement("input");
  private readonly ocr = document.createElement("select");
  private readonly test = document.createElement("button");
  private readonly result = document.createElement("output");
  private readonly dataDir = document.createElement("div");
  private readonly nextDataDir = document.createElement("p");
  private readonly database = document.createElement("div");
  private readonly databaseUrl = document.createElement("input");
  private readonly nextDatabase = document.createElement("p");

  private readonly models: ModelList;
  private readonly server: ServerPanel;

  constructor(private readonly hooks: SettingsHooks) {
    this.models = new ModelList({
      api: hooks.api,
      report: hooks.report,
      chose: (settings) => {
        // The model chosen answers now: the form shows it, and the chat's switch too.
        this.backend.value = settings.backend;
        this.model.value = settings.model ?? "";
        this.showBackend();
        hooks.saved(settings);
      },
    });
    this.server = new ServerPanel(hooks.api, hooks.report);
    const title = namingHeading(this.element, "settings-title", "Settings");
    this.backend.name = "backend";
    for (const [value, { label }] of Object.entries(BACKENDS)) this.backend.append(new Option(label, value));
    this.backend.addEventListener("change", () => {
      this.showBackend();
      this.result.textContent = "";
    });
    this.model.name = "model";
    this.url.name = "url";
    this.apiKey.name = "api_key";
    this.apiKey.type = "password";
    this.apiKey.autocomplete = "off";
    this.forgetKey.name = "forget_key";
    this.forgetKey.type = "checkbox";
    this.mode.name = "mode";
    for (const [value, label] of MODES) this.mode.append(new Option(label, value));
    this.k.name = "k";
    this.k.type = "number";
    this.k.min = "1";
    this.k.max = "50";
    this.k.step = "1";
    this.k.required = true;
    this.ocr.name = "ocr";
    this.ocr.append(new Option("Read by OCR", "on"), new Option("Left out of the index", "off"));
    this.test.type = "button";
    this.test.className = "test-connection";
    this.test.textContent = "Test connection";
    this.test.addEventListener("click", () => void this.testConnection());
    this.result.className = "connection-result";
    const answers = section(
      "Answers",
      field("Answered by", this.backend),
      field("Model", this.model),
      field("Server URL", this.url),
      field("API key", this.apiKey),
      field("Forget the saved key", this.forgetKey),
      this.keyPlace,
      this.test,
      this.result,
    );
    const search = section(
      "Search",
      field("Match passages by", this.mode),
      field("Passages per question", this.k),
      field("Scanned pages (no text of their own)", this.ocr),
    );
    this.dataDir.className = "data-dir";
    const choose = button("Choose…", "choose-data-dir", () => void this.chooseDataDir());
    this.nextDataDir.className = "pending-data-dir";
    this.nextDataDir.hidden = true;
    const data = section("Data directory", this.dataDir, choose, this.nextDataDir);
    // A library in a PostgreSQL database is shared by every Lectern given its URL.
    this.database.className = "database";
    this.databaseUrl.type = "text";
    this.databaseUrl.className = "database-url";
    this.databaseUrl.placeholder = "postgres://user@host:5432/library";
    this.databaseUrl.autocomplete = "off";
    const useDatabase = button("Use", "use-database", () => void this.chooseDatabase());
    this.nextDatabase.className = "pending-database";
    this.nextDatabase.hidden = true;
    const shared = section(
      "Library database",
      this.database,
      field("PostgreSQL URL (empty: the data directory)", this.databaseUrl),
      useDatabase,
      this.nextDatabase,
    );
    const size = document.createElement("select");
    size.className = "interface-size";
    for (const value of INTERFACE_SIZES) size.append(new Option(`${Math.round(value * 100)} %`, String(value)));
    size.value = String(savedSize());
    // Applied at once, like the system's own scaling; kept apart from the library's settings.
    size.addEventListener("change", () =>
      useSize(this.hooks.api, Number(size.value)).catch((e) => this.hooks.report(errorMessage(e))),
    );
    const appearance = section("Appearance", field("Interface size", size));
    const models = section("Models", this.models.element);
    const programs = section("Other programs", this.server.element);
    const save = document.createElement("button");
    save.type = "submit";
    save.className = "save";
    save.textContent = "Save";
    const buttons = buttonRow(button("Cancel", "cancel", () => this.element.close()), save);
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.save();
    });
    this.form.append(title, answers, models, search, appearance, data, shared, programs, buttons);
    this.element.append(this.form);
  }

  /** Loads the saved settings into the form and opens the dialog. */
  async show() {
    try {
      const view = await this.hooks.api.getSettings();
      const controls = this.controls();
      for (const [name, value] of Object.entries(fieldsFromSettings(view.settings))) {
        controls[name as keyof Settings].value = value;
      }
      this.keySet = view.api_key_set;
      this.keyPlace.textContent =
        view.secrets_kept === "keyring"
          ? "Keys and PDF passwords are kept in the system keyring."
          : "No system keyring answered: keys and PDF passwords are kept in the library's database, readable only by you.";
      this.forgetKey.checked = false;
      this.showDataDir(view);
      await Promise.all([this.models.load(), this.server.load()]);
    } catch (e) {
      this.hooks.report(errorMessage(e));
      return;
    }
    this.showBackend();
    this.result.textContent = "";
    this.element.showModal();
  }

  private controls(): Record<keyof Settings, HTMLInputElement | HTMLSelectElement> {
    return {
      backend: this.backend,
      model: this.model,
      url: this.url,
      api_key: this.apiKey,
      mode: this.mode,
      k: this.k,
      ocr: this.ocr,
    };
  }

  /** The settings the form holds now (an empty key: forget the saved one). */
  private settings(): Settings {
    const fields = Object.entries(this.controls()).map(([name, control]) => [name, control.value]);
    const settings = settingsFromFields(Object.fromEntries(fields) as SettingsFields);
    if (this.forgetKey.checked && settings.api_key === null && BACKENDS[settings.backend].apiKey) settings.api_key = "";
    return settings;
  }

  /** Shows the fields the chosen backend uses, with its placeholders, and hides the others. */
  private showBackend() {
    const uses = BACKENDS[this.backend.value as BackendKind];
    const show = (control: HTMLInputElement, placeholder: string | null) => {
      control.placeholder = placeholder ?? "";
      control.disabled = placeholder === null;
      (control.parentElement as HTMLElement).hidden = placeholder === null;
    };
    show(this.model, uses.model);
    show(this.url, uses.url);
    const keyHint = this.keySet ? "A key is saved (not shown); type a new one to replace it" : "Empty if the server needs none";
    show(this.apiKey, uses.apiKey ? keyHint : null);
    (this.forgetKey.parentElement as HTMLElement).hidden = !(uses.apiKey && this.keySet);
    this.keyPlace.hidden = !uses.apiKey;
  }

  private showDataDir(view: SettingsView) {
    this.dataDir.textContent = view.data_dir;
    this.nextDataDir.hidden = view.next_data_dir === null;
    this.nextDataDir.textContent =
      view.next_data_dir === null ? "" : `${view.next_data_dir}: Lectern will use this data directory after a restart.`;
    this.database.textContent =
      view.database === null ? "None: the library is in the data directory." : `In use: ${view.database}`;
    this.nextDatabase.hidden = view.next_database === null;
    this.nextDatabase.textContent =
      view.next_database === null
        ? ""
        : view.next_database === ""
          ? "Lectern will keep the library in the data directory after a restart."
          : `${view.next_database}: Lectern will use this database after a restart.`;
  }

  private async chooseDatabase() {
    try {
      this.showDataDir(await this.hooks.api.setDatabase(this.databaseUrl.value.trim()));
      this.databaseUrl.value = "";
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }

  private async testConnection() {
    if (!this.form.reportValidity()) return;
    this.test.disabled = true;
    this.result.classList.remove("failed");
    this.result.textContent = "Testing…";
    try {
      this.result.textContent = connectionText(await this.hooks.api.testConnection(this.settings()));
    } catch (e) {
      this.result.classList.add("failed");
      this.result.textContent = errorMessage(e);
    } finally {
      this.test.disabled = false;
    }
  }

  private async chooseDataDir() {
    try {
      const path = await this.hooks.open({ directory: true });
      if (typeof path === "string") this.showDataDir(await this.hooks.api.setDataDir(path));
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }

  private async save() {
    try {
      const saved = await this.hooks.api.saveSettings(this.settings());
      this.element.close();
      this.hooks.saved(saved);
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }
}

function section(legend: string, ...children: HTMLElement[]): HTMLFieldSetElement {
  const set = document.createElement("fieldset");
  const title = document.createElement("legend");
  title.textContent = legend;
  set.append(title, ...children);
  return set;
}
