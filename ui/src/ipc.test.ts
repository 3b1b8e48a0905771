import { errorMessage, makeApi, type ChannelLike } from "./ipc";
import { WHOLE_LIBRARY } from "./scope";
import type { AnswerEvent, Settings } from "./bindings";

const settings: Settings = { backend: "ollama", model: "llama3.2", url: null, api_key: null, mode: "hybrid", k: 8, ocr: true };

describe("ipc", () => {
  it("calls each command with its arguments and streams answer events through a channel", async () => {
    const calls: [string, Record<string, unknown> | undefined][] = [];
    const invoke = async (command: string, args?: Record<string, unknown>) => {
      calls.push([command, args]);
      if (command === "ask") {
        const channel = args?.onEvent as ChannelLike<AnswerEvent>;
        channel.onmessage({ type: "text", text: "Hi" });
        return { chat: { id: "c1" } };
      }
      return { folders: [], documents: [], links: [] };
    };
    const api = makeApi(invoke, () => ({ onmessage: () => {} }));
    await api.libraryState();
    await api.moveDocuments(["a", "b"], "Work");
    const events: AnswerEvent[] = [];
    const outcome = await api.ask(
      { question: "Q", chat: null, scope: { ...WHOLE_LIBRARY, folders: [1] }, strategy: "smart" },
      "answer-1",
      (e) => events.push(e),
    );
    await api.linkDirectory("/home/me/Papers", "Work", true);
    await api.unlinkDirectory(7);
    expect(calls.map((c) => c[0])).toEqual([
      "library_state",
      "move_documents",
      "ask",
      "link_directory",
      "unlink_directory",
    ]);
    expect(calls[0][1]).toEqual({ known: null });
    expect(calls[3][1]).toMatchObject({ path: "/home/me/Papers", folder: "Work", keepDeleted: true });
    expect(calls[4][1]).toEqual({ id: 7 });
    expect(calls[1][1]).toEqual({ ids: ["a", "b"], folder: "Work" });
    expect(calls[2][1]?.request).toEqual({
      question: "Q",
      chat: null,
      scope: { ...WHOLE_LIBRARY, folders: [1] },
      strategy: "smart",
    });
    expect(calls[2][1]?.answerId).toBe("answer-1");
    expect(events).toEqual([{ type: "text", text: "Hi" }]);
    expect(outcome.chat.id).toBe("c1");
  });

  it("sets a folder's and a chat's strategy and reads a scope's default", async () => {
    const calls: [string, Record<string, unknown> | undefined][] = [];
    const api = makeApi(
      async (command, args) => {
        calls.push([command, args]);
        return command === "default_strategy" ? "function" : {};
      },
      () => ({ onmessage: () => {} }),
    );
    await api.setFolderStrategy("Work/taxes", "smart");
    await api.setFolderStrategy("Work", null);
    expect(await api.defaultStrategy(WHOLE_LIBRARY)).toBe("function");
    await api.setChatStrategy("c1", "confidence");
    expect(calls).toEqual([
      ["set_folder_strategy", { path: "Work/taxes", strategy: "smart" }],
      ["set_folder_strategy", { path: "Work", strategy: null }],
      ["default_strategy", { scope: WHOLE_LIBRARY }],
      ["set_chat_strategy", { id: "c1", strategy: "confidence" }],
    ]);
  });

  it("reads, saves and tests the settings and chooses the data directory", async () => {
    const calls: [string, Record<string, unknown> | undefined][] = [];
    const api = makeApi(
      async (command, args) => {
        calls.push([command, args]);
        if (command === "test_connection") return { description: "Ollama llama3.2", reply: "Hello", millis: 420 };
        if (command === "save_settings") return args?.settings;
        return { settings, data_dir: "/data", next_data_dir: (args?.path as string) ?? null };
      },
      () => ({ onmessage: () => {} }),
    );
    expect((await api.getSettings()).data_dir).toBe("/data");
    expect(await api.saveSettings(settings)).toEqual(settings);
    expect((await api.testConnection(settings)).millis).toBe(420);
    expect((await api.setDataDir("/elsewhere")).next_data_dir).toBe("/elsewhere");
    expect(calls).toEqual([
      ["get_settings", undefined],
      ["save_settings", { settings }],
      ["test_connection", { settings }],
      ["set_data_dir", { path: "/elsewhere" }],
    ]);
  });

  it("hands errors on as {code, message}", async () => {
    const api = makeApi(
      async () => {
        throw { code: "conflict", message: '"Work" already exists' };
      },
      () => ({ onmessage: () => {} }),
    );
    await expect(api.createFolder("Work")).rejects.toEqual({ code: "conflict", message: '"Work" already exists' });
    const unreachable = makeApi(
      async () => {
        throw { code: "unavailable", message: "Ollama is not running at http://127.0.0.1:11434" };
      },
      () => ({ onmessage: () => {} }),
    );
    await expect(unreachable.testConnection(settings)).rejects.toEqual({
      code: "unavailable",
      message: "Ollama is not running at http://127.0.0.1:11434",
    });
    await expect(unreachable.saveSettings(settings)).rejects.toHaveProperty("code", "unavailable");
    const broken = makeApi(
      async () => {
        throw new Error("ipc down");
      },
      () => ({ onmessage: () => {} }),
    );
    const down = { code: "internal", message: "Error: ipc down", hint: null };
    await expect(broken.listChats()).rejects.toEqual(down);
    await expect(broken.setDataDir("/data")).rejects.toEqual(down);
    expect(errorMessage({ code: "conflict", message: "taken" })).toBe("taken");
    expect(errorMessage(new Error("ipc down"))).toBe("ipc down");
    expect(errorMessage("dialog closed")).toBe("dialog closed");
  });
});
