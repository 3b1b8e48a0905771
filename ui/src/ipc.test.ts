import { makeApi, type ChannelLike } from "./ipc";
import type { AnswerEvent } from "./types";

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
      return { folders: [], documents: [] };
    };
    const api = makeApi(invoke, () => ({ onmessage: () => {} }));
    await api.libraryState();
    await api.moveDocuments(["a", "b"], "Work");
    const events: AnswerEvent[] = [];
    const outcome = await api.ask(
      { question: "Q", chat: null, folders: [1], documents: null, k: 10, mode: "hybrid", backend: "extractive", model: null, url: null },
      "answer-1",
      (e) => events.push(e),
    );
    expect(calls.map((c) => c[0])).toEqual(["library_state", "move_documents", "ask"]);
    expect(calls[1][1]).toEqual({ ids: ["a", "b"], folder: "Work" });
    expect(calls[2][1]?.answerId).toBe("answer-1");
    expect(events).toEqual([{ type: "text", text: "Hi" }]);
    expect(outcome.chat.id).toBe("c1");
  });

  it("hands errors on as {code, message}", async () => {
    const api = makeApi(
      async () => {
        throw { code: "conflict", message: '"Work" already exists' };
      },
      () => ({ onmessage: () => {} }),
    );
    await expect(api.createFolder("Work")).rejects.toEqual({ code: "conflict", message: '"Work" already exists' });
    const broken = makeApi(
      async () => {
        throw new Error("ipc down");
      },
      () => ({ onmessage: () => {} }),
    );
    await expect(broken.listChats()).rejects.toEqual({ code: "internal", message: "Error: ipc down" });
  });
});
