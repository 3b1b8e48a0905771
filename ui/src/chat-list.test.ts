import { ChatList, filterChats, UNDO_MS } from "./chat-list";
import { makeApi } from "./ipc";
import { savedChat } from "./test-fixtures";

const chat = (id: string, title: string, updated_at: number) => savedChat(id, title, { updated_at });
const chats = [chat("a", "Revenue in 2024", 3), chat("b", "Warranty of the dishwasher", 2), chat("c", "Revenue by region", 1)];

afterEach(() => {
  document.body.replaceChildren();
  vi.useRealTimers();
});

function list() {
  const calls: [string, Record<string, unknown> | undefined][] = [];
  const opened: (string | null)[] = [];
  let stored = [...chats];
  const api = makeApi(
    async (command, args) => {
      calls.push([command, args]);
      if (command === "list_chats") return stored;
      if (command === "rename_chat") return { ...chats.find((c) => c.id === args?.id), title: args?.title };
      if (command === "delete_chat") stored = stored.filter((c) => c.id !== args?.id);
      return null;
    },
    () => ({ onmessage: () => {} }),
  );
  const l = new ChatList({ api, open: async (id) => void opened.push(id), report: () => {} });
  document.body.append(l.element);
  const titles = () => [...l.element.querySelectorAll("li.chat .chat-title")].map((b) => b.firstChild?.textContent);
  return { l, calls, opened, titles };
}

describe("chat list", () => {
  it("finds chats by the words of their title, newest first", () => {
    expect(filterChats(chats, "rev").map((c) => c.id)).toEqual(["a", "c"]);
    expect(filterChats(chats, "revenue region").map((c) => c.id)).toEqual(["c"]);
    expect(filterChats(chats, "").map((c) => c.id)).toEqual(["a", "b", "c"]);
  });

  it("opens from the bar, searches as you type and opens the chat clicked", async () => {
    const { l, opened, titles } = list();
    await l.load(chats[1]);
    const toggle = l.element.querySelector("button.chats-button") as HTMLButtonElement;
    expect(toggle.textContent).toBe("Warranty of the dishwasher");
    toggle.click();
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const search = l.element.querySelector("input.chat-search") as HTMLInputElement;
    expect(document.activeElement).toBe(search);
    search.value = "region";
    search.dispatchEvent(new Event("input"));
    expect(titles()).toEqual(["Revenue by region"]);
    (l.element.querySelector("li.chat .chat-title") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(opened).toEqual(["c"]));
    expect((l.element.querySelector(".chat-list-panel") as HTMLElement).hidden).toBe(true);
  });

  it("renames a chat in place", async () => {
    const { l, calls, titles } = list();
    await l.load(null);
    (l.element.querySelector('li[data-chat-id="b"] .rename-chat') as HTMLButtonElement).click();
    const box = l.element.querySelector("input.rename-chat-box") as HTMLInputElement;
    box.value = "Dishwasher warranty";
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await vi.waitFor(() => expect(titles()).toContain("Dishwasher warranty"));
    expect(calls.at(-1)).toEqual(["rename_chat", { id: "b", title: "Dishwasher warranty" }]);
  });

  it("deletes a chat only once the undo has passed, and undo brings it back", async () => {
    vi.useFakeTimers();
    const { l, calls, titles } = list();
    await l.load(null);
    (l.element.querySelector('li[data-chat-id="a"] .delete-chat') as HTMLButtonElement).click();
    expect(titles()).toEqual(["Warranty of the dishwasher", "Revenue by region"]);
    expect(l.element.querySelector(".undo")?.textContent).toBe("Deleted “Revenue in 2024”.Undo");
    (l.element.querySelector("button.undo-delete") as HTMLButtonElement).click();
    vi.advanceTimersByTime(UNDO_MS + 1);
    expect(titles()).toHaveLength(3);
    expect(calls.some(([c]) => c === "delete_chat")).toBe(false);

    (l.element.querySelector('li[data-chat-id="a"] .delete-chat') as HTMLButtonElement).click();
    vi.advanceTimersByTime(UNDO_MS + 1);
    await vi.waitFor(() => expect(calls.at(-1)).toEqual(["delete_chat", { id: "a" }]));
    expect(titles()).toEqual(["Warranty of the dishwasher", "Revenue by region"]);
  });
});
