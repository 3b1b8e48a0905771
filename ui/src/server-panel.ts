// The settings' "Other programs" section: whether the library is served to other programs
// (`lectern serve`, run inside the app), where, the token they need (shown on request, copied,
// replaced), and the latest requests with whose token and over which scope, never their words.

import { button } from "./dom";
import { errorMessage, type Api } from "./ipc";
import type { ApiRequest, ServerView } from "./bindings";

/** One request of the log as the table shows it: when, who, what, scope, reply. */
export function requestCells(request: ApiRequest): string[] {
  return [
    new Date(request.at).toLocaleString(),
    request.holder,
    `${request.method} ${request.path}`,
    request.scope,
    `${request.status} · ${request.millis} ms`,
  ];
}

export class ServerPanel {
  readonly element = document.createElement("div");
  private readonly serving = document.createElement("input");
  private readonly where = document.createElement("p");
  private readonly token = document.createElement("input");
  private readonly show = button("Show", "show-token", () => this.toggleToken());
  private readonly log = document.createElement("table");
  private readonly empty = document.createElement("p");

  constructor(
    private readonly api: Api,
    private readonly report: (message: string) => void,
  ) {
    this.element.className = "server-panel";
    this.serving.type = "checkbox";
    this.serving.className = "serve";
    this.serving.addEventListener("change", () => void this.apply(this.api.setServing(this.serving.checked)));
    const serving = document.createElement("label");
    serving.className = "serve-switch";
    const text = document.createElement("span");
    text.textContent = "Serve the library to other programs (an OpenAI-compatible API and MCP)";
    serving.append(this.serving, text);
    this.where.className = "server-url";
    this.token.className = "api-token";
    this.token.type = "password";
    this.token.readOnly = true;
    this.token.setAttribute("aria-label", "The library's token");
    const copy = button("Copy", "copy-token", () => void this.copyToken());
    const rotate = button("New token", "rotate-token", () => void this.apply(this.api.rotateToken()));
    rotate.title = "Replace the token: programs using the old one are refused from now on";
    const tokenRow = document.createElement("div");
    tokenRow.className = "token-row";
    tokenRow.append(this.token, this.show, copy, rotate);
    const caption = document.createElement("caption");
    caption.textContent = "Latest requests";
    this.log.className = "request-log";
    this.log.append(caption);
    this.empty.className = "no-requests";
    this.empty.textContent = "No program has asked anything yet.";
    this.element.append(serving, this.where, tokenRow, this.log, this.empty);
  }

  /** Reads the server's state anew. */
  async load() {
    await this.apply(this.api.serverState());
  }

  private async apply(view: Promise<ServerView>) {
    try {
      this.render(await view);
    } catch (e) {
      this.report(errorMessage(e));
      await this.api
        .serverState()
        .then((v) => this.render(v))
        .catch(() => undefined);
    }
  }

  private render(view: ServerView) {
    this.serving.checked = view.enabled && view.url !== null;
    this.where.classList.toggle("failed", view.problem !== null);
    this.where.textContent =
      view.url !== null
        ? `Serving at ${view.url} — the model "lectern" is the whole library, "lectern/<folder>" a folder; MCP at ${view.url.replace(/\/v1$/, "/mcp")}.`
        : view.problem !== null
          ? `Not serving: ${view.problem}`
          : "Not serving. Switched on, programs reach the library with the token below.";
    this.token.value = view.token;
    for (const row of [...this.log.tBodies]) row.remove();
    const body = this.log.createTBody();
    for (const request of view.requests) {
      const row = body.insertRow();
      for (const cell of requestCells(request)) row.insertCell().textContent = cell;
    }
    this.log.hidden = view.requests.length === 0;
    this.empty.hidden = view.requests.length > 0;
  }

  private toggleToken() {
    const hidden = this.token.type === "password";
    this.token.type = hidden ? "text" : "password";
    this.show.textContent = hidden ? "Hide" : "Show";
  }

  private async copyToken() {
    try {
      await navigator.clipboard.writeText(this.token.value);
    } catch (e) {
      this.report(errorMessage(e));
    }
  }
}
