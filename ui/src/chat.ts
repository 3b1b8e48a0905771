// The chat pane: the scope as chips (with filters), a quick switch of the saved backend, past
// chats, the conversation with answers streaming in, footnotes that open the viewer, each answer's
// sources, stop (Esc), copy, export and a new chat (Ctrl+N).

import { button } from "./dom";
import { commandError, errorMessage, type Api } from "./ipc";
import { renderMarkdown } from "./markdown";
import { ScopeBar } from "./scope-bar";
import { BACKENDS } from "./settings";
import { applyAnswerEvent, citationsByDocument, errorRemedy, type Store, type StreamingAnswer } from "./store";
import type { BackendKind, Chat, ChatMessage, Citation, LibraryView, Scope, Settings } from "./bindings";

export interface ChatHooks {
  api: Api;
  /** What questions are asked about, shared with the tree. */
  scope: Store<Scope>;
  openCitation: (citation: Citation) => void;
  openSettings: () => void;
  report: (message: string) => void;
}

/** The most of a quoted passage a footnote's preview shows. */
const PREVIEW_CHARS = 360;

/** A passage as a footnote's preview quotes it: whitespace collapsed, cut at a word near
 *  `PREVIEW_CHARS`. */
export function previewQuote(quote: string): string {
  const flat = quote.replace(/\s+/g, " ").trim();
  if (flat.length <= PREVIEW_CHARS) return flat;
  const cut = flat.lastIndexOf(" ", PREVIEW_CHARS);
  return `${flat.slice(0, cut > PREVIEW_CHARS / 2 ? cut : PREVIEW_CHARS)} …`;
}

export class ChatPane {
  private chat: Chat | null = null;
  private settings: Settings | null = null;
  private answerId: string | null = null;
  private readonly list = document.createElement("div");
  private readonly chats = document.createElement("select");
  private readonly scopeBar: ScopeBar;
  private readonly backend = document.createElement("select");
  private readonly input = document.createElement("textarea");
  private readonly send = document.createElement("button");
  private readonly stop = document.createElement("button");
  private readonly preview = document.createElement("div");

  constructor(
    root: HTMLElement,
    private readonly hooks: ChatHooks,
  ) {
    const bar = document.createElement("header");
    bar.className = "chat-bar";
    this.chats.className = "chats";
    this.chats.title = "Past chats";
    this.chats.setAttribute("aria-label", "Chat");
    this.chats.addEventListener("change", () => void this.open(this.chats.value || null));
    this.scopeBar = new ScopeBar(hooks.scope);
    this.backend.className = "backend";
    this.backend.title = "Who answers (saved in the settings)";
    this.backend.setAttribute("aria-label", "Who answers");
    this.backend.disabled = true;
    for (const [value, { label }] of Object.entries(BACKENDS)) this.backend.append(new Option(label, value));
    this.backend.addEventListener("change", () => void this.switchBackend());
    const rename = this.button("Rename", async () => {
      if (!this.chat) return;
      const title = window.prompt("Chat title", this.chat.title);
      if (title) this.chat = await this.hooks.api.renameChat(this.chat.id, title);
      await this.loadChats();
    });
    const remove = this.button("Delete", async () => {
      if (!this.chat || !window.confirm(`Delete the chat "${this.chat.title}"?`)) return;
      await this.hooks.api.deleteChat(this.chat.id);
      await this.open(null);
    });
    const exportButton = this.button("Export", async () => {
      if (!this.chat) return;
      const markdown = await this.hooks.api.exportChat(this.chat.id);
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([markdown], { type: "text/markdown" }));
      link.download = `${this.chat.title.slice(0, 60)}.md`;
      link.click();
    });
    bar.append(this.chats, this.backend, rename, remove, exportButton);
    this.list.className = "messages";
    const form = document.createElement("form");
    form.className = "ask";
    this.input.placeholder = "Ask about your documents";
    this.input.setAttribute("aria-label", "Question");
    this.input.rows = 2;
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault();
        form.requestSubmit();
      }
    });
    this.send.type = "submit";
    this.send.textContent = "Ask";
    this.stop.type = "button";
    this.stop.textContent = "Stop";
    this.stop.className = "stop";
    this.stop.hidden = true;
    this.stop.title = "Stop the answer (Esc)";
    this.stop.addEventListener("click", () => this.stopAnswer());
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.ask();
    });
    form.append(this.input, this.send, this.stop);
    this.preview.className = "footnote-preview";
    this.preview.id = "footnote-preview";
    this.preview.setAttribute("role", "tooltip");
    this.preview.hidden = true;
    root.replaceChildren(bar, this.scopeBar.element, this.list, form, this.preview);
  }

  private button(label: string, action: () => Promise<void>): HTMLButtonElement {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.addEventListener("click", () => action().catch((e) => this.hooks.report(errorMessage(e))));
    return b;
  }

  /** Stops the answer being written, if one is. */
  stopAnswer() {
    if (this.answerId) void this.hooks.api.cancelAnswer(this.answerId);
  }

  /** Starts a new chat, with the question box focused. */
  async newChat() {
    await this.open(null);
    this.input.focus();
  }

  /** The chat's keys, wherever the focus is outside a dialog: Ctrl+N starts a new chat, Esc
   *  stops the answer being written. Whether the key was the chat's. */
  handleKey(event: KeyboardEvent): boolean {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "n") {
      void this.newChat().catch((e) => this.hooks.report(errorMessage(e)));
      return true;
    }
    if (event.key === "Escape" && this.answerId) {
      this.stopAnswer();
      return true;
    }
    return false;
  }

  /** Shows the saved settings' backend in the quick switch. */
  useSettings(settings: Settings) {
    this.settings = settings;
    this.backend.value = settings.backend;
    this.backend.disabled = false;
  }

  /** Saves the settings with the backend just chosen (back to the saved one if that fails). */
  private async switchBackend() {
    if (!this.settings) return;
    try {
      this.useSettings(await this.hooks.api.saveSettings({ ...this.settings, backend: this.backend.value as BackendKind }));
    } catch (e) {
      this.backend.value = this.settings.backend;
      this.hooks.report(errorMessage(e));
    }
  }

  /** Names the scope's chips after the library as it now is. */
  updateLibrary(view: LibraryView) {
    this.scopeBar.updateLibrary(view);
  }

  /** Moves the focus to the question box. */
  focusQuestion() {
    this.input.focus();
  }

  async loadChats() {
    const chats = await this.hooks.api.listChats();
    this.chats.replaceChildren(new Option("New chat", ""));
    for (const chat of chats) this.chats.append(new Option(chat.title, chat.id));
    this.chats.value = this.chat?.id ?? "";
  }

  /** Opens a past chat (or a new one), with its answers' citations working again. */
  async open(id: string | null) {
    this.list.replaceChildren();
    this.chat = null;
    if (id) {
      const { chat, messages } = await this.hooks.api.openChat(id);
      this.chat = chat;
      this.hooks.scope.set(chat.scope);
      for (const message of messages) this.showMessage(message);
    }
    await this.loadChats();
  }

  private showMessage(message: ChatMessage) {
    if (message.role === "user") {
      this.question(message.content);
    } else {
      const node = this.answerNode();
      this.fillAnswer(node, { body: message.content, citations: message.citations });
    }
  }

  private question(text: string) {
    const node = document.createElement("div");
    node.className = "message question";
    node.textContent = text;
    this.list.append(node);
  }

  private answerNode(): HTMLElement {
    const node = document.createElement("div");
    node.className = "message answer";
    this.list.append(node);
    return node;
  }

  private fillAnswer(node: HTMLElement, answer: StreamingAnswer) {
    const open = (n: number) => {
      const citation = answer.citations.find((c) => c.number === n);
      if (citation) this.hooks.openCitation(citation);
    };
    const body = document.createElement("div");
    body.className = "body";
    body.append(renderMarkdown(answer.body, open));
    for (const button of body.querySelectorAll<HTMLButtonElement>("button.footnote")) {
      const citation = answer.citations.find((c) => String(c.number) === button.dataset.footnote);
      if (!citation) continue;
      const show = () => this.showPreview(button, citation);
      const hide = () => this.hidePreview(button);
      button.addEventListener("mouseenter", show);
      button.addEventListener("focus", show);
      button.addEventListener("mouseleave", hide);
      button.addEventListener("blur", hide);
    }
    const sources = document.createElement("div");
    sources.className = "sources";
    for (const group of citationsByDocument(answer.citations)) {
      const row = document.createElement("div");
      row.className = "source";
      const name = document.createElement("span");
      name.textContent = group.name;
      row.append(name);
      for (const c of group.citations) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "source-page";
        b.textContent = `[${c.number}] p. ${c.page}`;
        b.title = c.quote;
        b.addEventListener("click", () => this.hooks.openCitation(c));
        row.append(b);
      }
      sources.append(row);
    }
    const actions = document.createElement("div");
    actions.className = "answer-actions";
    const copy = button(
      "Copy",
      "copy-answer",
      () => void this.copyAnswer(answer, copy),
      "Copy the answer as markdown, with its footnotes",
    );
    actions.append(copy);
    node.replaceChildren(body, sources, actions);
    this.list.scrollTop = this.list.scrollHeight;
  }

  /** Copies an answer as markdown, its footnotes listed under it with their documents and pages. */
  private async copyAnswer(answer: StreamingAnswer, button: HTMLButtonElement) {
    const notes = answer.citations.map((c) => `[^${c.number}]: ${c.document_name}, page ${c.page}`);
    const text = notes.length > 0 ? `${answer.body}\n\n${notes.join("\n")}\n` : answer.body;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch (e) {
      this.hooks.report(`Could not copy the answer: ${errorMessage(e)}`);
    }
  }

  /** Shows what footnote `button` cites beside it: the quoted passage, its document and page. */
  private showPreview(button: HTMLElement, citation: Citation) {
    const where = document.createElement("div");
    where.className = "preview-where";
    where.textContent = `${citation.document_name}, page ${citation.page}`;
    const quote = document.createElement("blockquote");
    quote.textContent = previewQuote(citation.quote);
    const hint = document.createElement("div");
    hint.className = "preview-hint";
    hint.textContent = "Click to open the page";
    this.preview.replaceChildren(where, quote, hint);
    this.preview.hidden = false;
    const at = button.getBoundingClientRect();
    const width = Math.min(420, window.innerWidth - 16);
    this.preview.style.width = `${width}px`;
    this.preview.style.left = `${Math.max(8, Math.min(at.left, window.innerWidth - width - 8))}px`;
    this.preview.style.top = `${at.bottom + 6}px`;
    button.setAttribute("aria-describedby", this.preview.id);
  }

  private hidePreview(button: HTMLElement) {
    this.preview.hidden = true;
    button.removeAttribute("aria-describedby");
  }

  async ask() {
    const question = this.input.value.trim();
    if (!question || this.answerId) return;
    this.input.value = "";
    this.question(question);
    const node = this.answerNode();
    node.classList.add("streaming");
    let answer: StreamingAnswer = { body: "", citations: [] };
    const answerId = `answer-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    this.answerId = answerId;
    this.send.disabled = true;
    this.stop.hidden = false;
    try {
      const outcome = await this.hooks.api.ask(
        {
          question,
          chat: this.chat?.id ?? null,
          scope: this.hooks.scope.value,
        },
        answerId,
        (event) => {
          answer = applyAnswerEvent(answer, event);
          this.fillAnswer(node, answer);
        },
      );
      this.chat = outcome.chat;
      this.fillAnswer(node, { body: outcome.answer.body, citations: outcome.answer.citations });
      if (outcome.answer.finish === "cancelled") node.classList.add("stopped");
      await this.loadChats();
    } catch (e) {
      const error = commandError(e);
      node.classList.add("failed");
      node.textContent = error.message;
      if (errorRemedy(error) === "open_settings") {
        node.append(" ", button("Open settings", "open-settings", () => this.hooks.openSettings()));
      }
    } finally {
      node.classList.remove("streaming");
      this.answerId = null;
      this.send.disabled = false;
      this.stop.hidden = true;
    }
  }
}
