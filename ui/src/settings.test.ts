import { makeApi, type OpenDialog } from "./ipc";
import { connectionText, fieldsFromSettings, SettingsDialog, settingsFromFields } from "./settings";
import type { Settings } from "./bindings";
import { fakeModalDialogs } from "./test-fixtures";

const saved: Settings = { backend: "ollama", model: "llama3.2", url: null, api_key: null, mode: "hybrid", k: 10, ocr: true };

/** A settings dialog over a fake shell; `replies` answers the commands by name. */
function dialog(
  replies: Record<string, (args?: Record<string, unknown>) => unknown>,
  open: OpenDialog = async () => null,
) {
  const calls: [string, Record<string, unknown> | undefined][] = [];
  const reports: string[] = [];
  const saves: Settings[] = [];
  const api = makeApi(
    async (command, args) => {
      // The models section lists none here (models.test.ts covers it), and the server is off
      // (server-panel.test.ts covers it).
      if (command === "list_models") return [];
      if (command === "server_state") return { enabled: false, url: null, problem: null, token: "t", tokens: [], requests: [] };
      calls.push([command, args]);
      return replies[command](args);
    },
    () => ({ onmessage: () => {} }),
  );
  const settings = new SettingsDialog({ api, open, report: (m) => reports.push(m), saved: (s) => saves.push(s) });
  document.body.append(settings.element);
  const get = <T extends Element>(selector: string) => settings.element.querySelector(selector) as T;
  return { settings, calls, reports, saves, get };
}

const view = (next: string | null = null, nextDatabase: string | null = null) => ({
  settings: saved,
  api_key_set: false,
  secrets_kept: "library",
  data_dir: "/home/me/.local/share/lectern",
  next_data_dir: next,
  database: null,
  next_database: nextDatabase,
});

beforeAll(fakeModalDialogs);

afterEach(() => document.body.replaceChildren());

describe("settings form", () => {
  it("converts settings to fields and back", () => {
    const fields = fieldsFromSettings(saved);
    expect(fields).toEqual({ backend: "ollama", model: "llama3.2", url: "", api_key: "", mode: "hybrid", k: "10", ocr: "on" });
    expect(settingsFromFields(fields)).toEqual(saved);
    expect(settingsFromFields(fieldsFromSettings({ ...saved, ocr: false }))).toEqual({ ...saved, ocr: false });
  });

  it("turns empty fields, and those the backend does not use, into null, and k into a number", () => {
    const fields = { backend: "openai", model: " gpt-4o-mini ", url: "", api_key: "sk-1", mode: "keyword", k: "5", ocr: "on" };
    expect(settingsFromFields(fields)).toEqual({
      backend: "openai",
      model: "gpt-4o-mini",
      url: null,
      api_key: "sk-1",
      mode: "keyword",
      k: 5,
      ocr: true,
    });
    expect(settingsFromFields({ ...fields, backend: "ollama", url: "http://gpu-box:11434" })).toMatchObject({
      url: "http://gpu-box:11434",
      api_key: null,
    });
    expect(settingsFromFields({ ...fields, backend: "builtin", url: "http://x" })).toMatchObject({
      url: null,
      api_key: null,
    });
    expect(settingsFromFields({ ...fields, backend: "extractive" })).toMatchObject({
      model: null,
      url: null,
      api_key: null,
    });
  });

  it("says what a connection test got", () => {
    expect(connectionText({ description: "Ollama llama3.2", reply: " Hello! ", millis: 812.4 })).toBe(
      "Connected: Ollama llama3.2 — replied “Hello!” in 812 ms",
    );
  });
});

describe("settings dialog", () => {
  it("opens with the saved settings and shows only the fields the backend uses", async () => {
    const { settings, get } = dialog({ get_settings: () => view() });
    await settings.show();
    expect(settings.element.open).toBe(true);
    expect(settings.element.className).toBe("settings");
    const backend = get<HTMLSelectElement>("select[name=backend]");
    const model = get<HTMLInputElement>("input[name=model]");
    const url = get<HTMLInputElement>("input[name=url]");
    const key = get<HTMLInputElement>("input[name=api_key]");
    expect(backend.value).toBe("ollama");
    expect(model.value).toBe("llama3.2");
    expect(url.placeholder).toBe("http://127.0.0.1:11434");
    expect([model.disabled, url.disabled, key.disabled]).toEqual([false, false, true]);
    expect(key.type).toBe("password");
    expect(get<HTMLInputElement>("input[name=k]").value).toBe("10");
    expect(get(".data-dir").textContent).toBe("/home/me/.local/share/lectern");
    backend.value = "builtin";
    backend.dispatchEvent(new Event("change"));
    expect(model.placeholder).toBe("A model id (lectern model ls) or a .gguf path (empty: the default, Qwen2.5-Coder-1.5B, else the best installed)");
    expect([(url.parentElement as HTMLElement).hidden, key.disabled]).toEqual([true, true]);
    backend.value = "extractive";
    backend.dispatchEvent(new Event("change"));
    expect([model.disabled, (model.parentElement as HTMLElement).hidden]).toEqual([true, true]);
    backend.value = "openai";
    backend.dispatchEvent(new Event("change"));
    expect([model.placeholder, url.placeholder, key.disabled]).toEqual([
      "Model name, e.g. gpt-4o-mini",
      "https://api.openai.com/v1",
      false,
    ]);
  });

  it("tests the connection with the form's values, as text, the button disabled meanwhile", async () => {
    let finish: (reply: unknown) => void = () => {};
    const { settings, calls, get } = dialog({
      get_settings: () => view(),
      test_connection: () => new Promise((resolve) => (finish = resolve)),
    });
    await settings.show();
    get<HTMLInputElement>("input[name=model]").value = "<b>qwen</b>";
    const test = get<HTMLButtonElement>("button.test-connection");
    const result = get<HTMLOutputElement>("output.connection-result");
    test.click();
    expect(test.disabled).toBe(true);
    expect(calls.at(-1)).toEqual(["test_connection", { settings: { ...saved, model: "<b>qwen</b>" } }]);
    finish({ description: "Ollama <b>qwen</b>", reply: "Hi", millis: 300 });
    await vi.waitFor(() => expect(test.disabled).toBe(false));
    expect(result.textContent).toBe("Connected: Ollama <b>qwen</b> — replied “Hi” in 300 ms");
    expect(result.querySelector("b")).toBeNull();
  });

  it("shows why a connection test failed", async () => {
    const { settings, get } = dialog({
      get_settings: () => view(),
      test_connection: () => Promise.reject({ code: "unavailable", message: "Ollama is not running" }),
    });
    await settings.show();
    get<HTMLButtonElement>("button.test-connection").click();
    const result = get<HTMLOutputElement>("output.connection-result");
    await vi.waitFor(() => expect(result.textContent).toBe("Ollama is not running"));
    expect(result.classList.contains("failed")).toBe(true);
  });

  it("chooses the data directory for the next start", async () => {
    const options: unknown[] = [];
    const { settings, calls, get } = dialog(
      { get_settings: () => view(), set_data_dir: (args) => view(args?.path as string) },
      async (o) => {
        options.push(o);
        return "/mnt/big/lectern";
      },
    );
    await settings.show();
    const note = get<HTMLElement>(".pending-data-dir");
    expect(note.hidden).toBe(true);
    get<HTMLButtonElement>("button.choose-data-dir").click();
    await vi.waitFor(() => expect(note.hidden).toBe(false));
    expect(options).toEqual([{ directory: true }]);
    expect(calls.at(-1)).toEqual(["set_data_dir", { path: "/mnt/big/lectern" }]);
    expect(note.textContent).toBe("/mnt/big/lectern: Lectern will use this data directory after a restart.");
  });

  it("chooses the database the library lives in for the next start, and reports a bad URL", async () => {
    const { settings, calls, reports, get } = dialog({
      get_settings: () => view(),
      set_database: (args) =>
        String(args?.url).startsWith("postgres://")
          ? view(null, "db.example:5432/team")
          : Promise.reject({ code: "invalid_input", message: "invalid setting library database: the URL cannot be read" }),
    });
    await settings.show();
    expect(get<HTMLElement>(".database").textContent).toBe("None: the library is in the data directory.");
    const note = get<HTMLElement>(".pending-database");
    expect(note.hidden).toBe(true);
    const url = get<HTMLInputElement>("input.database-url");
    url.value = "not a url";
    get<HTMLButtonElement>("button.use-database").click();
    await vi.waitFor(() => expect(reports.at(-1)).toContain("the URL cannot be read"));
    expect(note.hidden).toBe(true);
    url.value = "postgres://me:secret@db.example:5432/team";
    get<HTMLButtonElement>("button.use-database").click();
    await vi.waitFor(() => expect(note.hidden).toBe(false));
    expect(calls.at(-1)).toEqual(["set_database", { url: "postgres://me:secret@db.example:5432/team" }]);
    expect(note.textContent).toBe("db.example:5432/team: Lectern will use this database after a restart.");
    expect(url.value).toBe("");
  });

  it("saves and closes, or reports why it could not save and stays open", async () => {
    let refuse = true;
    const { settings, calls, reports, saves, get } = dialog({
      get_settings: () => view(),
      save_settings: (args) =>
        refuse ? Promise.reject({ code: "invalid_input", message: "k must be between 1 and 50" }) : args?.settings,
    });
    await settings.show();
    get<HTMLInputElement>("input[name=k]").value = "4";
    get<HTMLSelectElement>("select[name=ocr]").value = "off";
    get<HTMLButtonElement>("button.save").click();
    await vi.waitFor(() => expect(reports).toEqual(["k must be between 1 and 50"]));
    expect(settings.element.open).toBe(true);
    refuse = false;
    get<HTMLButtonElement>("button.save").click();
    await vi.waitFor(() => expect(settings.element.open).toBe(false));
    expect(calls.at(-1)).toEqual(["save_settings", { settings: { ...saved, k: 4, ocr: false } }]);
    expect(saves).toEqual([{ ...saved, k: 4, ocr: false }]);
  });

  it("never shows the saved key, and keeps, replaces or forgets it", async () => {
    const openai: Settings = { ...saved, backend: "openai", model: "gpt-4o-mini" };
    const { settings, calls, get } = dialog({
      get_settings: () => ({ ...view(), settings: openai, api_key_set: true }),
      save_settings: (args) => args?.settings,
    });
    const key = get<HTMLInputElement>("input[name=api_key]");
    const forget = get<HTMLInputElement>("input[name=forget_key]");
    const save = async () => {
      get<HTMLButtonElement>("button.save").click();
      await vi.waitFor(() => expect(settings.element.open).toBe(false));
      return (calls.at(-1)?.[1] as { settings: Settings }).settings.api_key;
    };
    await settings.show();
    expect([key.value, key.placeholder]).toEqual(["", "A key is saved (not shown); type a new one to replace it"]);
    expect((forget.parentElement as HTMLElement).hidden).toBe(false);
    expect(await save()).toBeNull();
    await settings.show();
    key.value = "sk-new";
    expect(await save()).toBe("sk-new");
    await settings.show();
    forget.checked = true;
    expect(await save()).toBe("");
  });

  it("closes without saving on cancel", async () => {
    const { settings, calls, get } = dialog({ get_settings: () => view() });
    await settings.show();
    get<HTMLButtonElement>("button.cancel").click();
    expect(settings.element.open).toBe(false);
    expect(calls.map((c) => c[0])).toEqual(["get_settings"]);
  });
});
