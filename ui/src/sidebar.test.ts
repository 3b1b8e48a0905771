import { makeApi, type OpenDialog } from "./ipc";
import { importPdfs, renderSidebar, type SidebarHooks } from "./sidebar";
import { doc } from "./test-fixtures";

const library = {
  folders: [
    { id: 1, parent: null, name: "Work", path: "Work", created_at: 0 },
    { id: 2, parent: 1, name: "taxes", path: "Work/taxes", created_at: 0 },
  ],
  documents: [],
  links: [],
};

/** Sidebar hooks over a fake shell whose import fails for files named bad*.pdf. */
function hooks(open: OpenDialog = async () => null) {
  const calls: [string, Record<string, unknown> | undefined][] = [];
  const reports: string[] = [];
  let refreshes = 0;
  let settingsOpened = 0;
  const api = makeApi(
    async (command, args) => {
      calls.push([command, args]);
      const paths = (args?.paths as string[] | undefined) ?? [];
      const bad = paths.filter((p) => p.includes("bad"));
      return {
        added: [],
        already_present: [],
        failed: bad.map((path) => ({ path, reason: "not a PDF" })),
        ignored: 0,
      };
    },
    () => ({ onmessage: () => {} }),
  );
  const value: SidebarHooks = {
    api,
    open,
    refresh: async () => void refreshes++,
    report: (m) => reports.push(m),
    openSettings: () => void settingsOpened++,
    openSearch: () => undefined,
  };
  return { value, calls, reports, refreshes: () => refreshes, settingsOpened: () => settingsOpened };
}

describe("sidebar", () => {
  it("links a folder to the directory picked, and marks and unlinks a linked folder", async () => {
    const h = hooks(async () => "/home/me/Papers");
    const confirm = vi.spyOn(window, "confirm").mockReturnValue(true);
    const root = document.createElement("div");
    renderSidebar(root, library, new Set(), h.value);
    const work = root.querySelector('[data-folder-path="Work"]') as HTMLElement;
    (work.querySelector(".link-directory") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(h.refreshes()).toBe(1));
    expect(h.calls).toEqual([["link_directory", { path: "/home/me/Papers", folder: "Work", keepDeleted: false }]]);

    const link = { id: 3, folder: 1, path: "/home/me/Papers", keep_deleted: false, created_at: 0 };
    const linked = { ...library, links: [{ ...link, last_sync: null, available: false, pending: 0, failed: [] }] };
    renderSidebar(root, linked, new Set(), h.value);
    const row = root.querySelector('[data-folder-path="Work"]') as HTMLElement;
    expect(row.classList.contains("linked") && row.classList.contains("link-trouble")).toBe(true);
    expect((row.querySelector(".folder-name") as HTMLElement).title).toMatch(/not there/);
    (row.querySelector(".unlink-directory") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(h.refreshes()).toBe(2));
    expect(h.calls[1]).toEqual(["unlink_directory", { id: 3 }]);
    confirm.mockRestore();
  });

  it("adds the PDFs picked in the file dialog to the folder, reporting the files that failed", async () => {
    const options: unknown[] = [];
    const h = hooks(async (o) => {
      options.push(o);
      return ["/tmp/a.pdf", "/tmp/bad.pdf"];
    });
    const root = document.createElement("div");
    renderSidebar(root, library, new Set(), h.value);
    const taxes = root.querySelector('[data-folder-path="Work/taxes"]') as HTMLElement;
    (taxes.querySelector(".add-pdfs") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(h.refreshes()).toBe(1));
    expect(options).toEqual([{ multiple: true, filters: [{ name: "PDF", extensions: ["pdf"] }] }]);
    expect(h.calls).toEqual([["import_files", { paths: ["/tmp/a.pdf", "/tmp/bad.pdf"], folder: "Work/taxes" }]]);
    expect(h.reports).toEqual(["/tmp/bad.pdf: not a PDF"]);
  });

  it("imports nothing when the file dialog is cancelled", async () => {
    let asked = 0;
    const h = hooks(async () => {
      asked++;
      return null;
    });
    const root = document.createElement("div");
    renderSidebar(root, library, new Set(), h.value);
    (root.querySelector(".add-pdfs") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(asked).toBe(1));
    expect(h.calls).toEqual([]);
  });

  it("reports an import that failed as a whole, and refreshes all the same", async () => {
    const h = hooks();
    h.value.api = makeApi(
      async () => {
        throw { code: "not_found", message: 'no folder "Gone"' };
      },
      () => ({ onmessage: () => {} }),
    );
    await importPdfs(h.value, ["/tmp/a.pdf"], "Gone");
    expect(h.reports).toEqual(['no folder "Gone"']);
    expect(h.refreshes()).toBe(1);
  });

  it("opens search and the settings from the header", () => {
    const h = hooks();
    let searches = 0;
    h.value.openSearch = () => void searches++;
    const root = document.createElement("div");
    renderSidebar(root, library, new Set(), h.value);
    const header = root.querySelector("header") as HTMLElement;
    expect([...header.querySelectorAll("button")].map((b) => b.className)).toEqual([
      "open-search",
      "new-folder",
      "open-settings",
    ]);
    (header.querySelector(".open-settings") as HTMLButtonElement).click();
    expect(h.settingsOpened()).toBe(1);
    (header.querySelector(".open-search") as HTMLButtonElement).click();
    expect(searches).toBe(1);
  });

  it("tells a new user what to do when the library is empty", () => {
    const root = document.createElement("div");
    renderSidebar(root, library, new Set(), hooks().value);
    expect(root.querySelector(".empty-library")?.textContent).toContain("Drop PDFs onto a folder");
    const report = doc("d1", 1, "report.pdf");
    renderSidebar(root, { ...library, documents: [report] }, new Set(), hooks().value);
    expect(root.querySelector(".empty-library")).toBeNull();
  });
});
