// The chat pane: the scope as chips (with filters), a quick switch of the saved backend, when the
// chat searches the documents (its retrieval strategy), the list of chats (`chat-list.ts`), an
// empty chat's starter questions drawn from the scope's documents, the conversation with answers
// streaming in, footnotes that open the viewer, each answer's sources
// (a remote library's named with it: "memo.pdf · bob") or a note that it searched none, stop
// (Esc), copy, export and a new chat (Ctrl+N).

import { ChatList } from "./chat-list";
import { button } from "./dom";
import { commandError, errorMessage, type Api, type SaveDialog } from "./ipc";
import { renderMarkdown } from "./markdown";
import { ScopeBar } from "./scope-bar";
import { hitCitation } from "./search";
import { BACKENDS } from "./settings";
import {
  applyAnswerEvent,
  citationsByDocument,
  errorRemedy,
  sourceName,
  type Store,
  type StreamingAnswer,
} from "./store";
import { STRATEGIES } from "./strategy";
import type {
  AskedOf,
  BackendKind,
  Chat,
  ChatMessage,
  Citation,
  DocumentChoice,
  LibraryView,
  Likeliest,
  Scope,
  SearchResults,
  Settings,
  Strategy,
} from "./bindings";

export interface ChatHooks {
  api: Api;
  /** What questions are asked about, shared with the tree. */
  scope: Store<Scope>;
  /** Opens a citation in the viewer; `from` is the button that asked, where "Back to the
   *  answer" returns. */
  openCitation: (citation: Citation, from?: HTMLElement) => void;
  /** The local document open in the viewer, which a question naming none is asked of. */
  viewing: () => string | null;
  /** Opens a document in the viewer at its first page. */
  openDocument: (id: string, name: string) => Promise<void>;
  openSettings: () => void;
  report: (message: string) => void;
  /** Asks where to save a file. */
  save: SaveDialog;
}

/** A file name from a title: characters file systems refuse become spaces, and it is kept short. */
export function fileName(title: string): string {
  const name = title.replace(/[\/\\:*?"<>|\u0000-\u001f]+/g, " ").replace(/\s+/g, " ").trim().slice(0, 60).trim();
  return name || "Lectern chat";
}

/** A group of chips named `name`, under a line saying `text`. */
function chipGroup(className: string, name: string, text: string, chips: HTMLElement[]): HTMLElement {
  const box = document.createElement("div");
  box.className = className;
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", name);
  const label = document.createElement("p");
  label.className = "starters-label";
  label.textContent = text;
  box.append(label, ...chips);
  return box;
}

/** The questions an empty chat offers, as chips: a click asks `ask` the question. */
export function starterChips(questions: string[], ask: (question: string) => void): HTMLElement {
  const chips = questions.map((question) => button(question, "starter", () => ask(question)));
  return chipGroup("starters", "Questions to start with", "Try asking", chips);
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

/** Every passage retrieval found, per document in the order of their best passage, each with
 *  its page, score and the start of its text; a click opens it in the viewer. */
function retrievedPassages(results: SearchResults, open: (citation: Citation) => void): HTMLElement {
  const box = document.createElement("div");
  box.className = "retrieved";
  for (const source of results.sources) {
    const group = document.createElement("section");
    const name = document.createElement("h4");
    name.textContent = `${source.document_name} · ${source.folder_path}`;
    const list = document.createElement("ol");
    for (const index of source.hits) {
      const hit = results.hits[index];
      if (!hit) continue;
      const item = document.createElement("li");
      const where = document.createElement("span");
      where.className = "passage-where";
      where.textContent = `p. ${hit.page} · score ${hit.score.toFixed(3)}`;
      const text = document.createElement("span");
      text.className = "passage-text";
      text.textContent = previewQuote(hit.text);
      // Named by what it shows, the page, score and passage.
      const openButton = button("", "open-passage", () => open(hitCitation(hit)));
      openButton.title = `Open page ${hit.page} of ${sourceName(hit)}`;
      openButton.append(where, text);
      item.append(openButton);
      list.append(item);
    }
    group.append(name, list);
    box.append(group);
  }
  return box;
}

/** The note under an answer to a question that named no document, saying which one it was
 *  asked of. */
export function askedOfNote(asked: AskedOf): HTMLElement {
  const note = document.createElement("p");
  note.className = "retrieval-note";
  const why = asked.because === "open" ? "the document open in the viewer" : "the document the last answer cited";
  note.textContent = `Asked of ${asked.name}, ${why}`;
  return note;
}

/** What an answer's bubble says to a question that points at one document without naming it,
 *  over several: the likeliest documents as chips; `choose` asks the question of the one clicked. */
export function documentChoices(choices: DocumentChoice[], choose: (choice: DocumentChoice) => void): HTMLElement {
  const chips = choices.map((choice) =>
    button(choice.name, "starter", () => choose(choice), `${choice.name} (in ${choice.folder})`),
  );
  return chipGroup(
    "starters document-choices",
    "Documents to ask it of",
    "Which document is this about? The question names none. Choose one, open one in the viewer, or name it in the question.",
    chips,
  );
}

/** The note under an answer made without searching the documents, naming the strategy that
 *  decided so. */
function unsearchedNote(strategy: Strategy): HTMLElement {
  const note = document.createElement("p");
  note.className = "retrieval-note";
  note.textContent = `Answered without searching (strategy: ${STRATEGIES[strategy].name})`;
  return note;
}

/** The choice of when the chat searches: its folders' default (named once known), or one of the
 *  strategies; the tooltip says what each does. */
function strategySelect(): HTMLSelectElement {
  const select = document.createElement("select");
  select.className = "strategy";
  select.setAttribute("aria-label", "When to search");
  const meanings = Object.values(STRATEGIES).map(({ name, help }) => `${name}: ${help}`);
  select.title = ["When a question searches the documents (kept with the chat)", ...meanings].join("\n");
  select.append(new Option("Search: default", ""));
  for (const [value, { name, help }] of Object.entries(STRATEGIES)) {
    const option = new Option(`Search: ${name}`, value);
    option.title = help;
    select.append(option);
  }
  return select;
}

export class ChatPane {
  private chat: Chat | null = null;
  private settings: Settings | null = null;
  private answerId: string | null = null;
  private readonly list = document.createElement("div");
  private readonly chatList: ChatList;
  private readonly scopeBar: ScopeBar;
  private readonly backend = document.createElement("select");
  /** The open chat's strategy, or a new chat's until its first question creates it. */
  private readonly strategy = strategySelect();
  /** The library's folders as last seen: the default strategy is asked for again when they change. */
  private folders = "";
  /** How many documents were ready when last seen: an empty chat's starters are asked for again
   *  when that changes. */
  private ready = -1;
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
    this.chatList = new ChatList({ api: hooks.api, open: (id) => this.open(id), report: hooks.report });
    this.scopeBar = new ScopeBar(hooks.scope);
    this.backend.className = "backend";
    this.backend.title = "Who answers (saved in the settings)";
    this.backend.setAttribute("aria-label", "Who answers");
    this.backend.disabled = true;
    for (const [value, { label }] of Object.entries(BACKENDS)) this.backend.append(new Option(label, value));
    this.backend.addEventListener("change", () => void this.switchBackend());
    this.strategy.addEventListener("change", () => void this.chooseStrategy());
    const exportButton = this.button("Export", async () => {
      if (this.chat) await this.exportMarkdown(this.chat.title, null, exportButton);
    });
    exportButton.title = "Save the whole chat, with its sources, as a markdown file";
    bar.append(this.chatList.element, this.backend, this.strategy, exportButton);
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
    hooks.scope.subscribe(() => {
      void this.showDefault();
      void this.showStarters();
    });
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

  /** Names the scope's chips, the folders' default strategy and an empty chat's starter
   *  questions after the library as it now is. */
  updateLibrary(view: LibraryView) {
    this.scopeBar.updateLibrary(view);
    const ready = view.documents.filter((d) => d.status === "ready").length;
    if (ready !== this.ready) {
      this.ready = ready;
      void this.showStarters();
    }
    const folders = JSON.stringify(view.folders);
    if (folders === this.folders) return;
    this.folders = folders;
    void this.showDefault();
  }

  /** Names, in the "default" choice, the strategy the scope's folders give a chat without its
   *  own (an open chat's scope is the scope shown). */
  private async showDefault() {
    const scope = this.hooks.scope.value;
    try {
      const strategy = await this.hooks.api.defaultStrategy(scope);
      // The reply for a scope since changed is not shown.
      if (this.hooks.scope.value !== scope) return;
      this.strategy.options[0].text = `Search: default (${STRATEGIES[strategy].name})`;
    } catch (e) {
      this.hooks.report(errorMessage(e));
    }
  }

  /** Offers, while no chat is open and nothing is asked yet, a few questions drawn from the
   *  scope's documents. They are only a start: without them (none, or the call failed) the empty
   *  chat still takes a question, so a failure is not reported. */
  private async showStarters() {
    if (this.chat) return;
    const scope = this.hooks.scope.value;
    let questions: string[];
    try {
      questions = await this.hooks.api.starterQuestions(scope);
    } catch {
      return;
    }
    // A reply for a scope since changed, or come after a chat opened or a question was asked,
    // is not shown.
    if (this.chat || this.hooks.scope.value !== scope || this.list.querySelector(".message")) return;
    this.list.replaceChildren(...(questions.length > 0 ? [starterChips(questions, (q) => this.askStarter(q))] : []));
  }

  /** Asks a starter question as if it had been typed. */
  private askStarter(question: string) {
    if (this.answerId) return;
    this.input.value = question;
    void this.ask();
  }

  /** Shows the open chat's own strategy, or "default" (a new chat starts with its folders'). */
  private showStrategy() {
    this.strategy.value = this.chat?.strategy ?? "";
  }

  /** The strategy chosen; null: the folders' default. */
  private chosenStrategy(): Strategy | null {
    return (this.strategy.value || null) as Strategy | null;
  }

  /** Keeps the strategy just chosen: an open chat's at once (back to the saved one if that
   *  fails); a new chat's goes with its first question. */
  private async chooseStrategy() {
    const chat = this.chat;
    if (!chat) return;
    try {
      const saved = await this.hooks.api.setChatStrategy(chat.id, this.chosenStrategy());
      if (this.chat?.id === saved.id) this.chat = saved;
    } catch (e) {
      this.showStrategy();
      this.hooks.report(errorMessage(e));
    }
  }

  /** Moves the focus to the question box. */
  focusQuestion() {
    this.input.focus();
  }

  async loadChats() {
    await this.chatList.load(this.chat);
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
    this.showStrategy();
    if (!id) void this.showStarters();
    await this.loadChats();
  }

  private showMessage(message: ChatMessage) {
    if (message.role === "user") {
      this.question(message.content);
    } else {
      const node = this.answerNode();
      this.fillAnswer(node, { body: message.content, citations: message.citations }, undefined, message.id);
    }
  }

  private question(text: string): HTMLElement {
    const node = document.createElement("div");
    node.className = "message question";
    node.textContent = text;
    this.list.append(node);
    return node;
  }

  private answerNode(): HTMLElement {
    const node = document.createElement("div");
    node.className = "message answer";
    this.list.append(node);
    return node;
  }

  /** Fills an answer's node; `results`, when the answer was just given, are every passage
   *  retrieval found, which "All passages" lists per document with their scores; `message`, once
   *  the answer is saved, is its id in the chat (for its export). */
  private fillAnswer(node: HTMLElement, answer: StreamingAnswer, results?: SearchResults, message?: number) {
    const open = (n: number, from: HTMLElement) => {
      const citation = answer.citations.find((c) => c.number === n);
      if (citation) this.hooks.openCitation(citation, from);
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
        b.addEventListener("click", () => this.hooks.openCitation(c, b));
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
    if (message !== undefined) {
      node.dataset.message = String(message);
      const title = node.previousElementSibling?.textContent ?? "Answer";
      const save = button(
        "Export",
        "export-answer",
        () => void this.exportMarkdown(title, message, save),
        "Save this answer, its question and its sources as a markdown file",
      );
      actions.append(save);
    }
    const parts: HTMLElement[] = [body];
    if (answer.stage) {
      // What is happening until the next words: an empty bubble says nothing.
      const stage = document.createElement("div");
      stage.className = "stage";
      stage.setAttribute("role", "status");
      stage.textContent = answer.stage;
      parts.push(stage);
    }
    if (answer.likeliest) parts.push(this.likeliestLine(answer.likeliest));
    parts.push(sources, actions);
    if (results && results.hits.length > 0) {
      const retrieved = retrievedPassages(results, (c) => this.hooks.openCitation(c));
      retrieved.hidden = true;
      const show = button(`All passages (${results.hits.length})`, "show-passages", () => {
        retrieved.hidden = !retrieved.hidden;
        show.setAttribute("aria-expanded", String(!retrieved.hidden));
      });
      show.setAttribute("aria-expanded", "false");
      actions.append(show);
      parts.push(retrieved);
    }
    node.replaceChildren(...parts);
    this.list.scrollTop = this.list.scrollHeight;
  }

  /** While the model reads: the best passage's likeliest line, and a button that opens its page. */
  private likeliestLine({ line, passage }: Likeliest): HTMLElement {
    const block = document.createElement("figure");
    block.className = "likeliest";
    const label = document.createElement("figcaption");
    label.textContent = "Likeliest line so far";
    const quote = document.createElement("blockquote");
    quote.textContent = line;
    const open = button(
      `${sourceName(passage)}, page ${passage.page}`,
      "likeliest-page",
      () => this.hooks.openCitation(passage, open),
      "Open the page",
    );
    block.append(label, quote, open);
    return block;
  }

  /** Saves the chat, or its answer `message`, as a markdown file where the user chooses; the
   *  button that asked says where it went. */
  private async exportMarkdown(title: string, message: number | null, from: HTMLButtonElement) {
    if (!this.chat) return;
    const chat = this.chat.id;
    const path = await this.hooks.save({
      defaultPath: `${fileName(title)}.md`,
      filters: [{ name: "Markdown", extensions: ["md"] }],
    });
    if (!path) return;
    try {
      const saved = await this.hooks.api.exportChat(chat, message, path);
      from.textContent = "Saved";
      from.title = `Saved to ${saved}`;
    } catch (e) {
      this.hooks.report(`Could not save the ${message === null ? "chat" : "answer"}: ${errorMessage(e)}`);
    }
  }

  /** Copies an answer as markdown, its footnotes listed under it with their documents and pages. */
  private async copyAnswer(answer: StreamingAnswer, button: HTMLButtonElement) {
    const notes = answer.citations.map((c) => `[^${c.number}]: ${sourceName(c)}, page ${c.page}`);
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
    where.textContent = `${sourceName(citation)}, page ${citation.page}`;
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

  /** Asks the question typed (or `text`), of the document open in the viewer where it names
   *  none (or of `documentId`). */
  async ask(text?: string, documentId?: string) {
    const question = (text ?? this.input.value).trim();
    if (!question || this.answerId) return;
    if (text === undefined) this.input.value = "";
    this.list.querySelector(".starters")?.remove();
    const asked = this.question(question);
    const node = this.answerNode();
    node.classList.add("streaming");
    let answer: StreamingAnswer = { body: "", citations: [] };
    let finished = false;
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
          // An open chat's choice is saved already; a new chat is created with the one chosen.
          strategy: this.chat ? null : this.chosenStrategy(),
          document: documentId ?? this.hooks.viewing() ?? undefined,
        },
        answerId,
        (event) => {
          // A channel's message can arrive after the command's reply: the finished answer,
          // drawn from the reply with every passage found, is not drawn over again.
          if (finished) return;
          answer = applyAnswerEvent(answer, event);
          this.fillAnswer(node, answer);
        },
      );
      finished = true;
      this.chat = outcome.chat;
      this.showStrategy();
      this.fillAnswer(
        node,
        { body: outcome.answer.body, citations: outcome.answer.citations },
        outcome.results,
        outcome.message,
      );
      if (outcome.asked_of) node.append(askedOfNote(outcome.asked_of));
      if (outcome.retrieval.query === null) node.append(unsearchedNote(outcome.retrieval.strategy));
      if (outcome.answer.finish === "cancelled") node.classList.add("stopped");
      await this.loadChats();
    } catch (e) {
      const error = commandError(e);
      if (error.hint?.kind === "choose_document") {
        node.replaceChildren(
          documentChoices(error.hint.choices, (choice) => {
            asked.remove();
            node.remove();
            void this.hooks
              .openDocument(choice.id, choice.name)
              .finally(() => this.ask(question, choice.id));
          }),
        );
        return;
      }
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
