import { ScopeBar } from "./scope-bar";
import { chips, isWholeLibrary, prune, remoteIncluded, toggleRemote, WHOLE_LIBRARY, withoutRemote } from "./scope";
import { Store } from "./store";
import { doc, folder, libraryView } from "./test-fixtures";
import type { LibraryView, Scope } from "./bindings";

const view: LibraryView = libraryView(
  [folder(1, null, "Work"), folder(2, 1, "Work/taxes")],
  [doc("d1", 1, "report.pdf", { title: "Annual report" })],
);

afterEach(() => document.body.replaceChildren());

describe("scope", () => {
  it("names its chips after the tree, and a chip's removal takes only it out", () => {
    const scope: Scope = { folders: [2], documents: ["d1"], filters: { ...WHOLE_LIBRARY.filters, author: "Ng", added_after: new Date(2026, 0, 2).getTime() } };
    const all = chips(scope, view);
    expect(all.map((c) => c.label)).toEqual(["Work/taxes", "Annual report", "author “Ng”", "added from 2026-01-02"]);
    expect(all[0].remove(scope)).toEqual({ ...scope, folders: [] });
    expect(all[2].remove(scope).filters.author).toBeNull();
  });

  it("holds remote libraries and folders of them, the field left out when there are none", () => {
    const bob = { remote: "bob", folder: null };
    const other = { remote: "bob", folder: "Other" };
    const scope = toggleRemote(toggleRemote(WHOLE_LIBRARY, other), bob);
    expect(scope.remotes).toEqual([other, bob]);
    expect(isWholeLibrary(scope)).toBe(false);
    expect(chips(scope, view).map((c) => [c.key, c.label])).toEqual([
      ["r:bob/Other", "bob: Other"],
      ["r:bob/", "bob"],
    ]);
    expect(remoteIncluded(toggleRemote(WHOLE_LIBRARY, other), { remote: "bob", folder: "Other/old" })).toBe(true);
    expect(remoteIncluded(toggleRemote(WHOLE_LIBRARY, other), { remote: "bob", folder: "Otherwise" })).toBe(false);
    expect(toggleRemote(toggleRemote(WHOLE_LIBRARY, bob), bob)).toEqual(WHOLE_LIBRARY);
    expect("remotes" in withoutRemote(scope, "bob")).toBe(false);
    expect(withoutRemote(WHOLE_LIBRARY, "bob")).toBe(WHOLE_LIBRARY);
  });

  it("forgets folders and documents the library no longer has", () => {
    const scope: Scope = { ...WHOLE_LIBRARY, folders: [2, 9], documents: ["gone"] };
    expect(prune(scope, view)).toEqual({ ...WHOLE_LIBRARY, folders: [2] });
    const kept = { ...WHOLE_LIBRARY, folders: [1] };
    expect(prune(kept, view)).toBe(kept);
  });

  it("shows chips above the chat, goes back to the whole library in one click, and sets filters", () => {
    const store = new Store<Scope>({ ...WHOLE_LIBRARY, folders: [1] });
    const bar = new ScopeBar(store);
    document.body.append(bar.element);
    bar.updateLibrary(view);
    const labels = () => [...bar.element.querySelectorAll(".chip")].map((c) => c.textContent);
    expect(labels()).toEqual(["Work"]);
    (bar.element.querySelector("button.whole-library") as HTMLButtonElement).click();
    expect(store.value).toEqual(WHOLE_LIBRARY);
    expect(labels()).toEqual(["Whole library"]);

    (bar.element.querySelector("button.toggle-filters") as HTMLButtonElement).click();
    const form = bar.element.querySelector("form.filters") as HTMLFormElement;
    expect(form.hidden).toBe(false);
    (form.querySelector('input[name="author"]') as HTMLInputElement).value = " Ng ";
    (form.querySelector('input[name="created_from"]') as HTMLInputElement).value = "2020";
    (form.querySelector('input[name="added_before"]') as HTMLInputElement).value = "2026-03-01";
    form.requestSubmit();
    expect(store.value.filters).toEqual({
      ...WHOLE_LIBRARY.filters,
      author: "Ng",
      created_from: "2020",
      added_before: new Date(2026, 2, 1).getTime(),
    });
    expect(form.hidden).toBe(true);
    expect(labels()).toEqual(["author “Ng”", "written from 2020", "added before 2026-03-01"]);
    (bar.element.querySelector('[data-chip="filter:author"] button') as HTMLButtonElement).click();
    expect(store.value.filters.author).toBeNull();
  });
});
