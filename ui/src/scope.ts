// What a question is asked about: folders (with their subfolders), documents, remote libraries
// (or folders of them) and metadata filters, chosen in the tree and shown above the chat as
// chips. Empty means the whole library; remote parts alone, only those remotes.

import type { LibraryView, RemoteScope, Scope, ScopeFilters } from "./bindings";

export const NO_FILTERS: ScopeFilters = {
  author: null,
  name: null,
  created_from: null,
  created_to: null,
  added_after: null,
  added_before: null,
};

export const WHOLE_LIBRARY: Scope = { folders: [], documents: [], filters: NO_FILTERS };

/** One chip above the chat: what it shows, what removing it takes out of the scope. */
export interface Chip {
  key: string;
  label: string;
  remove: (scope: Scope) => Scope;
}

/** Whether a scope is the whole library, with no filter. */
export function isWholeLibrary(scope: Scope): boolean {
  const local = scope.folders.length === 0 && scope.documents.length === 0;
  return local && (scope.remotes ?? []).length === 0 && !hasFilters(scope.filters);
}

/** The parts "Ask about this …" narrows a scope to. */
export interface Parts {
  folders?: number[];
  documents?: string[];
  remotes?: RemoteScope[];
}

/** The scope narrowed to `parts` alone, its filters kept: what "Ask about this …" asks about. */
export function askingOnly(scope: Scope, parts: Parts): Scope {
  const local = { ...scope, folders: parts.folders ?? [], documents: parts.documents ?? [] };
  return withRemotes(local, parts.remotes ?? []);
}

/** The scope with `remotes`; without the field when there are none, as the core leaves it. */
function withRemotes(scope: Scope, remotes: RemoteScope[]): Scope {
  const { remotes: _, ...rest } = scope;
  return remotes.length > 0 ? { ...rest, remotes } : rest;
}

const samePart = (a: RemoteScope, b: RemoteScope) => a.remote === b.remote && a.folder === b.folder;

/** Whether the remote part itself is in the scope (not only with its library or a folder). */
export function remoteChosen(scope: Scope, part: RemoteScope): boolean {
  return (scope.remotes ?? []).some((r) => samePart(r, part));
}

/** The scope with the remote part added, or taken out if it was in. */
export function toggleRemote(scope: Scope, part: RemoteScope): Scope {
  const remotes = scope.remotes ?? [];
  return withRemotes(scope, remoteChosen(scope, part) ? remotes.filter((r) => !samePart(r, part)) : [...remotes, part]);
}

/** The scope without the parts of the remote `name` (a remote forgotten); itself if it has none. */
export function withoutRemote(scope: Scope, name: string): Scope {
  const remotes = scope.remotes ?? [];
  const kept = remotes.filter((r) => r.remote !== name);
  return kept.length === remotes.length ? scope : withRemotes(scope, kept);
}

/** Whether a remote part is asked about: itself, or with its library or a folder above it. */
export function remoteIncluded(scope: Scope, part: RemoteScope): boolean {
  const within = (folder: string | null) =>
    folder === null || folder === part.folder || (part.folder?.startsWith(`${folder}/`) ?? false);
  return (scope.remotes ?? []).some((r) => r.remote === part.remote && within(r.folder));
}

/** A remote part as its chip names it: "bob" for the whole library, "bob: Other" for a folder. */
export function remoteLabel(part: RemoteScope): string {
  return part.folder === null ? part.remote : `${part.remote}: ${part.folder}`;
}

export function hasFilters(filters: ScopeFilters): boolean {
  return Object.values(filters).some((v) => v !== null && v !== "");
}

/** The scope with the folder `id` added, or taken out if it was in. */
export function toggleFolder(scope: Scope, id: number): Scope {
  const folders = scope.folders.includes(id) ? scope.folders.filter((f) => f !== id) : [...scope.folders, id];
  return { ...scope, folders };
}

/** The scope with the document `id` added, or taken out if it was in. */
export function toggleDocument(scope: Scope, id: string): Scope {
  const documents = scope.documents.includes(id)
    ? scope.documents.filter((d) => d !== id)
    : [...scope.documents, id];
  return { ...scope, documents };
}

/** The scope without folders and documents the library no longer has. */
export function prune(scope: Scope, view: LibraryView): Scope {
  const folders = scope.folders.filter((id) => view.folders.some((f) => f.id === id));
  const documents = scope.documents.filter((id) => view.documents.some((d) => d.id === id));
  if (folders.length === scope.folders.length && documents.length === scope.documents.length) return scope;
  return { ...scope, folders, documents };
}

/** Whether `folder` (or a folder above it) is chosen: its documents are asked about. */
export function folderIncluded(scope: Scope, view: LibraryView, folder: number): boolean {
  const parents = new Map(view.folders.map((f) => [f.id, f.parent]));
  for (let at: number | null | undefined = folder; at != null; at = parents.get(at)) {
    if (scope.folders.includes(at)) return true;
  }
  return false;
}

const FILTER_LABELS: Record<keyof ScopeFilters, string> = {
  author: "author",
  name: "name",
  created_from: "written from",
  created_to: "written until",
  added_after: "added from",
  added_before: "added before",
};

/** The local day of an instant, as `YYYY-MM-DD` (what a date box shows). */
export function localDay(ms: number): string {
  const day = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/** A filter's value as its chip shows it (filters hold milliseconds or ISO dates). */
function filterValue(key: keyof ScopeFilters, value: string | number): string {
  if (typeof value === "number") return localDay(value);
  return key === "author" || key === "name" ? `“${value}”` : value;
}

/** The chips for a scope, in the tree's names: folders, documents, remote parts, then filters. */
export function chips(scope: Scope, view: LibraryView): Chip[] {
  const out: Chip[] = [];
  for (const id of scope.folders) {
    const folder = view.folders.find((f) => f.id === id);
    if (!folder) continue;
    out.push({ key: `f:${id}`, label: folder.path, remove: (s) => toggleFolder(s, id) });
  }
  for (const id of scope.documents) {
    const doc = view.documents.find((d) => d.id === id);
    if (!doc) continue;
    out.push({ key: `d:${id}`, label: doc.display_name, remove: (s) => toggleDocument(s, id) });
  }
  for (const part of scope.remotes ?? []) {
    const key = `r:${part.remote}/${part.folder ?? ""}`;
    out.push({ key, label: remoteLabel(part), remove: (s) => toggleRemote(s, part) });
  }
  for (const key of Object.keys(FILTER_LABELS) as (keyof ScopeFilters)[]) {
    const value = scope.filters[key];
    if (value === null || value === "") continue;
    out.push({
      key: `filter:${key}`,
      label: `${FILTER_LABELS[key]} ${filterValue(key, value)}`,
      remove: (s) => ({ ...s, filters: { ...s.filters, [key]: null } }),
    });
  }
  return out;
}
