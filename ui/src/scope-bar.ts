// Above the chat: what the next question is asked about, as chips that can be removed one by
// one (folders, documents, remote libraries or their folders: "bob" or "bob: Other"), "Whole
// library" in one click, and the metadata filters the CLI has (author, name, when the PDF was
// written, when it was added).

import { button, buttonRow } from "./dom";
import { Filter, LibraryBig, X, icon } from "./icons";
import { chips, hasFilters, isWholeLibrary, localDay, prune, WHOLE_LIBRARY } from "./scope";
import { EMPTY_LIBRARY, type Store } from "./store";
import type { LibraryView, Scope, ScopeFilters } from "./bindings";

/** The filter fields: name, label, input type, and how the box's value becomes the filter's. */
const FIELDS: { key: keyof ScopeFilters; label: string; type: string; read: (v: string) => string | number | null }[] = [
  { key: "author", label: "Author has", type: "text", read: (v) => v.trim() || null },
  { key: "name", label: "Title or file name has", type: "text", read: (v) => v.trim() || null },
  { key: "created_from", label: "Written from (year or date)", type: "text", read: (v) => v.trim() || null },
  { key: "created_to", label: "Written until (year or date)", type: "text", read: (v) => v.trim() || null },
  { key: "added_after", label: "Added on or after", type: "date", read: (v) => (v ? Date.parse(`${v}T00:00:00`) : null) },
  { key: "added_before", label: "Added before", type: "date", read: (v) => (v ? Date.parse(`${v}T00:00:00`) : null) },
];

/** A filter's value as its box shows it. */
function shown(value: string | number | null): string {
  if (value === null) return "";
  return typeof value === "string" ? value : localDay(value);
}

export class ScopeBar {
  readonly element = document.createElement("div");
  private view: LibraryView = EMPTY_LIBRARY;
  private readonly list = document.createElement("ul");
  private readonly filters = document.createElement("form");
  private readonly filterButton: HTMLButtonElement;

  constructor(private readonly scope: Store<Scope>) {
    this.element.className = "scope-bar";
    const label = document.createElement("span");
    label.className = "scope-label";
    label.id = "scope-label";
    label.textContent = "Ask about";
    this.list.className = "chips";
    this.list.setAttribute("aria-labelledby", label.id);
    this.filterButton = button("Filters", "toggle-filters", () => this.toggleFilters(), "Filter by author, name or date");
    this.filterButton.prepend(icon(Filter));
    this.filterButton.setAttribute("aria-expanded", "false");
    this.filters.className = "filters";
    this.filters.hidden = true;
    this.filters.setAttribute("aria-label", "Filters");
    this.filters.addEventListener("submit", (e) => {
      e.preventDefault();
      this.applyFilters();
    });
    this.element.append(label, this.list, this.filterButton, this.filters);
    scope.subscribe(() => this.render());
  }

  /** Takes documents and folders the library lost out of the scope, and names the chips anew. */
  updateLibrary(view: LibraryView) {
    this.view = view;
    const pruned = prune(this.scope.value, view);
    if (pruned !== this.scope.value) this.scope.set(pruned);
    else this.render();
  }

  private render() {
    const scope = this.scope.value;
    const items = chips(scope, this.view).map((chip) => {
      const item = document.createElement("li");
      item.className = "chip";
      item.dataset.chip = chip.key;
      const text = document.createElement("span");
      text.textContent = chip.label;
      const remove = button("", "remove-chip", () => this.scope.update(chip.remove), `Remove ${chip.label}`);
      remove.append(icon(X));
      item.append(text, remove);
      return item;
    });
    if (isWholeLibrary(scope)) {
      const whole = document.createElement("li");
      whole.className = "chip whole-library";
      whole.append(icon(LibraryBig));
      const text = document.createElement("span");
      text.textContent = "Whole library";
      whole.append(text);
      items.unshift(whole);
    } else {
      const item = document.createElement("li");
      item.append(button("Whole library", "whole-library", () => this.scope.set(WHOLE_LIBRARY), "Ask about every document"));
      items.push(item);
    }
    this.list.replaceChildren(...items);
    this.filterButton.classList.toggle("active", hasFilters(scope.filters));
  }

  private toggleFilters() {
    this.filters.hidden = !this.filters.hidden;
    this.filterButton.setAttribute("aria-expanded", String(!this.filters.hidden));
    if (!this.filters.hidden) {
      this.fillFilters();
      this.filters.querySelector("input")?.focus();
    }
  }

  private fillFilters() {
    const filters = this.scope.value.filters;
    const rows = FIELDS.map(({ key, label, type }) => {
      const row = document.createElement("label");
      const text = document.createElement("span");
      text.textContent = label;
      const input = document.createElement("input");
      input.name = key;
      input.type = type;
      input.value = shown(filters[key]);
      row.append(text, input);
      return row;
    });
    const apply = document.createElement("button");
    apply.type = "submit";
    apply.className = "apply-filters";
    apply.textContent = "Apply";
    const clear = button("Clear", "clear-filters", () => {
      this.scope.update((s) => ({ ...s, filters: WHOLE_LIBRARY.filters }));
      this.fillFilters();
    });
    this.filters.replaceChildren(...rows, buttonRow(clear, apply));
  }

  private applyFilters() {
    const filters = { ...this.scope.value.filters };
    for (const { key, read } of FIELDS) {
      const input = this.filters.querySelector<HTMLInputElement>(`input[name="${key}"]`);
      (filters as Record<string, string | number | null>)[key] = read(input?.value ?? "");
    }
    this.scope.update((s) => ({ ...s, filters }));
    this.toggleFilters();
    this.filterButton.focus();
  }
}
