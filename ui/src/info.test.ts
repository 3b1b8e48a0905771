import { InfoDialog, infoFields, sizeText } from "./info";
import { makeApi } from "./ipc";
import { EMPTY_LIBRARY } from "./store";
import { doc, fakeModalDialogs, folder } from "./test-fixtures";
import type { LibraryView } from "./bindings";

beforeAll(fakeModalDialogs);
afterEach(() => document.body.replaceChildren());

const report = doc("d1", 1, "report.pdf", {
  title: "Annual report",
  source_path: "/home/me/Downloads/report.pdf",
  mime_type: "application/pdf",
  byte_size: 2_500_000,
  page_count: 120,
  chunk_count: 480,
  pdf_created: "2024-03-01T10:00:00+01:00",
  status: "failed",
  reason: "the file is damaged",
});
const view: LibraryView = {
  ...EMPTY_LIBRARY,
  folders: [folder(1, null, "Work")],
  documents: [report],
};

describe("document info", () => {
  it("shows every stored field, saying which ones the document lacks", () => {
    const fields = new Map(infoFields(report, view));
    expect(fields.get("Imported from")).toBe("/home/me/Downloads/report.pdf");
    expect(fields.get("Folder")).toBe("Work");
    expect(fields.get("Size")).toBe("2.4 MB");
    expect(fields.get("Status")).toBe("Failed: the file is damaged");
    expect(fields.get("Written (PDF)")).toBe("2024-03-01T10:00:00+01:00");
    expect(fields.get("Modified (PDF)")).toBe("—");
    expect([sizeText(900), sizeText(20_480)]).toEqual(["900 bytes", "20 KB"]);
  });

  it("lists the log with each entry's level, and retries from the dialog", async () => {
    const calls: string[] = [];
    let refreshes = 0;
    const api = makeApi(
      async (command) => {
        calls.push(command);
        if (command === "document_log") {
          return [
            { at: 0, level: "info", message: "Added from /home/me/Downloads/report.pdf" },
            { at: 1, level: "error", message: "Failed: the file is damaged" },
          ];
        }
        return null;
      },
      () => ({ onmessage: () => {} }),
    );
    const dialog = new InfoDialog({ api, refresh: async () => void refreshes++, report: () => {}, openDocument: () => {} });
    document.body.append(dialog.element);
    await dialog.show(report, view);
    expect(dialog.element.open).toBe(true);
    const entries = [...dialog.element.querySelectorAll(".document-log li")];
    expect(entries.map((li) => [li.className, li.querySelector("span")?.textContent])).toEqual([
      ["log-info", "Added from /home/me/Downloads/report.pdf"],
      ["log-error", "Failed: the file is damaged"],
    ]);
    (dialog.element.querySelector("button.reindex") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(refreshes).toBe(1));
    expect(calls).toEqual(["document_log", "reindex_document"]);
    expect(dialog.element.open).toBe(false);
  });
});
