import { makeApi } from "./ipc";
import { requestCells, ServerPanel } from "./server-panel";
import type { ServerView } from "./bindings";

const request = { at: Date.UTC(2026, 10, 25, 9, 30), holder: "notes app", method: "POST", path: "/v1/search", scope: "folder Work", status: 200, millis: 14 };

const off: ServerView = { enabled: false, url: null, problem: null, token: "lectern-secret", tokens: [], requests: [] };
const on: ServerView = { ...off, enabled: true, url: "http://127.0.0.1:8765/v1", requests: [request] };

/** A panel over a fake shell whose replies follow the server's state. */
function panel(failStart = false) {
  const calls: [string, Record<string, unknown> | undefined][] = [];
  const reports: string[] = [];
  let state = off;
  const api = makeApi(
    async (command, args) => {
      calls.push([command, args]);
      if (command === "set_serving") {
        if (failStart) {
          state = { ...off, enabled: true, problem: "could not serve the library at 127.0.0.1:8765" };
          throw { code: "conflict", message: "could not serve the library at 127.0.0.1:8765" };
        }
        state = args?.on ? on : off;
      }
      if (command === "rotate_token") state = { ...state, token: "lectern-new" };
      return state;
    },
    () => ({ onmessage: () => {} }),
  );
  const p = new ServerPanel(api, (m) => reports.push(m));
  document.body.append(p.element);
  const get = <T extends Element>(selector: string) => p.element.querySelector(selector) as T;
  return { p, calls, reports, get };
}

afterEach(() => document.body.replaceChildren());

describe("server panel", () => {
  it("switches the server on and shows where it answers and what it was asked", async () => {
    const { p, calls, get } = panel();
    await p.load();
    const serve = get<HTMLInputElement>("input.serve");
    expect(serve.checked).toBe(false);
    expect(get(".server-url").textContent).toContain("Not serving");
    expect(get<HTMLTableElement>("table.request-log").hidden).toBe(true);
    serve.checked = true;
    serve.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(get(".server-url").textContent).toContain("http://127.0.0.1:8765/v1"));
    expect(calls).toContainEqual(["set_serving", { on: true }]);
    expect(get(".server-url").textContent).toContain("http://127.0.0.1:8765/mcp");
    const cells = [...get<HTMLTableElement>("table.request-log").tBodies[0].rows[0].cells].map((c) => c.textContent);
    expect(cells.slice(1)).toEqual(["notes app", "POST /v1/search", "folder Work", "200 · 14 ms"]);
    expect(get<HTMLParagraphElement>(".no-requests").hidden).toBe(true);
  });

  it("keeps the token hidden until asked, and replaces it", async () => {
    const { p, get } = panel();
    await p.load();
    const token = get<HTMLInputElement>("input.api-token");
    expect([token.type, token.value, token.readOnly]).toEqual(["password", "lectern-secret", true]);
    get<HTMLButtonElement>("button.show-token").click();
    expect(token.type).toBe("text");
    get<HTMLButtonElement>("button.rotate-token").click();
    await vi.waitFor(() => expect(token.value).toBe("lectern-new"));
  });

  it("says why the server could not start and shows it off", async () => {
    const { p, reports, get } = panel(true);
    await p.load();
    const serve = get<HTMLInputElement>("input.serve");
    serve.checked = true;
    serve.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(reports).toEqual(["could not serve the library at 127.0.0.1:8765"]));
    await vi.waitFor(() => expect(serve.checked).toBe(false));
    expect(get(".server-url").textContent).toBe("Not serving: could not serve the library at 127.0.0.1:8765");
  });

  it("tells each request's time, holder, call, scope and reply", () => {
    expect(requestCells(request).slice(1)).toEqual(["notes app", "POST /v1/search", "folder Work", "200 · 14 ms"]);
  });
});
