// The list of chats, opened from the chat bar: search by title, open one, rename it in place,
// delete it with a few seconds to undo (it is deleted only once the undo has passed, so quitting
// meanwhile loses nothing), and start a new one.

import { button, inlineEdit } from "./dom";
import { MessagesSquare, Pencil, Trash2, icon } from "./icons";
import { errorMessage, type Api } from "./ipc";
import { words } from "./store";
import type { Chat } from "./bindings";

/** How long a deleted chat can be brought back. */
export const UNDO_MS = 8000;

/** The chats whose title holds every word of `query` (the start of a word matches too), newest first. */
export function filterChats(chats: Chat[], query: string): Chat[] {
  const wanted = words(query);
  return chats
    .filter((chat) => {
      const title = words(chat.title);
      return wanted.every((w) => title.some((t) => t.startsWith(w)));
    })
    .sort((a, b) => b.updated_at - a.updated_at);
}

export interface ChatListHooks {
  api: Api;
  open: (id: string | null) => Promise<void>;
  report: (message: string) => void;
}

export class ChatList {
  readonly element = document.createElement("div");
  private readonly toggle: HTMLButtonElement;
  private readonly panel = document.createElement("div");
  private readonly search = document.createElement("input");
  private readonly list = document.createElement("ul");
  private readonly undo = document.createElement("div");
  private chats: Chat[] = [];
  private current: Chat | null = null;
  private renaming: string | null = null;
  /** Chats deleted but not yet gone, each with the timer that deletes it. */
  private readonly deleting = new Map<string, number>();
  /** The chat the undo bar offers to bring back. */
  private undoFor: string | null = null;

  constructor(private readonly hooks: ChatListHooks) {
    this.element.className = "chat-list-wrap";
    this.toggle = button("New chat", "chats-button", () => this.setOpen(this.panel.hidden), "Chats");
    this.toggle.setAttribute("aria-expanded", "false");
    this.toggle.setAttribute("aria-controls", "chat-list-panel");
    this.panel.id = "chat-list-panel";
    this.panel.className = "chat-list-panel";
    this.panel.hidden = true;
    this.search.type = "search";
    this.search.className = "chat-search";
    this.search.placeholder = "Search chats";
    this.search.setAttribute("aria-label", "Search chats");
    this.search.addEventListener("input", () => this.render());
    this.list.className = "chat-list";
    this.list.setAttribute("aria-label", "Chats");
    this.undo.className = "undo";
    this.undo.setAttribute("role", "status");
    this.undo.hidden = true;
    const fresh = button("New chat", "new-chat", () => void this.choose(null), "New chat (Ctrl+N)");
    this.panel.append(this.search, fresh, this.list, this.undo);
    this.panel.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        this.setOpen(false);
        this.toggle.focus();
      }
    });
    this.element.append(this.toggle, this.panel);
  }

  /** Reads the chats anew; `current` is the one shown in the pane. */
  async load(current: Chat | null) {
    this.current = current;
    this.toggle.replaceChildren(icon(MessagesSquare), document.createTextNode(current?.title ?? "New chat"));
    this.toggle.title = current ? `Chat: ${current.title} (all chats)` : "Chats";
    this.chats = await this.hooks.api.listChats();
    this.render();
  }

  private setOpen(open: boolean) {
    this.panel.hidden = !open;
    this.toggle.setAttribute("aria-expanded", String(open));
    if (open) {
      this.search.value = "";
      this.render();
      this.search.focus();
    }
  }

  private async choose(id: string | null) {
    this.setOpen(false);
    try {
      await this.hooks.open(id);
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }

  private render() {
    const shown = filterChats(
      this.chats.filter((c) => !this.deleting.has(c.id)),
      this.search.value,
    );
    this.list.replaceChildren(...shown.map((chat) => this.item(chat)));
    if (shown.length === 0) {
      const none = document.createElement("li");
      none.className = "no-chats";
      none.textContent = this.search.value ? "No chat has those words in its title." : "No chats yet.";
      this.list.append(none);
    }
  }

  private item(chat: Chat): HTMLLIElement {
    const item = document.createElement("li");
    item.className = "chat";
    item.dataset.chatId = chat.id;
    if (chat.id === this.current?.id) item.setAttribute("aria-current", "true");
    if (this.renaming === chat.id) {
      item.append(this.renameBox(chat));
      return item;
    }
    const open = button(chat.title, "chat-title", () => void this.choose(chat.id));
    const when = document.createElement("span");
    when.className = "chat-when";
    when.textContent = new Date(chat.updated_at).toLocaleDateString();
    open.append(when);
    const rename = button("", "rename-chat", () => this.startRename(chat.id), `Rename “${chat.title}”`);
    rename.append(icon(Pencil));
    const remove = button("", "delete-chat", () => this.remove(chat), `Delete “${chat.title}”`);
    remove.append(icon(Trash2));
    item.append(open, rename, remove);
    return item;
  }

  private startRename(id: string) {
    this.renaming = id;
    this.render();
  }

  private renameBox(chat: Chat): HTMLInputElement {
    return inlineEdit(chat.title, "rename-chat-box", `New title for “${chat.title}”`, (title) => {
      void this.finishRename(chat, title);
    });
  }

  /** Renames the chat to `title` (none: leaves it), and gives the focus back to its row. */
  private async finishRename(chat: Chat, title: string | null) {
    if (this.renaming !== chat.id) return;
    this.renaming = null;
    if (title) {
      try {
        const renamed = await this.hooks.api.renameChat(chat.id, title);
        this.chats = this.chats.map((c) => (c.id === chat.id ? renamed : c));
        if (this.current?.id === chat.id) await this.load(renamed);
      } catch (e) {
        this.hooks.report(errorMessage(e));
      }
    }
    this.render();
    [...this.list.querySelectorAll<HTMLElement>("li.chat")]
      .find((li) => li.dataset.chatId === chat.id)
      ?.querySelector<HTMLElement>(".chat-title")
      ?.focus();
  }

  /** Hides the chat at once and deletes it when the undo has passed. */
  private remove(chat: Chat) {
    const timer = window.setTimeout(() => void this.deleteNow(chat), UNDO_MS);
    this.deleting.set(chat.id, timer);
    const text = document.createElement("span");
    text.textContent = `Deleted “${chat.title}”.`;
    const undo = button("Undo", "undo-delete", () => {
      window.clearTimeout(timer);
      this.deleting.delete(chat.id);
      this.undo.hidden = true;
      this.render();
    });
    this.undo.replaceChildren(text, undo);
    this.undo.hidden = false;
    this.undoFor = chat.id;
    this.render();
    if (this.current?.id === chat.id) void this.hooks.open(null);
    undo.focus();
  }

  private async deleteNow(chat: Chat) {
    this.deleting.delete(chat.id);
    if (this.undoFor === chat.id) this.undo.hidden = true;
    try {
      await this.hooks.api.deleteChat(chat.id);
      this.chats = this.chats.filter((c) => c.id !== chat.id);
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
    this.render();
  }
}
