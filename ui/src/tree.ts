// The library tree apart from the DOM: what a folder's totals say, the rows the keyboard walks
// through as the folders stand open or closed (each with its place among its siblings), which
// folders are closed; and the rows of the remote libraries' tree, each remote with the folders
// its server said.

import type { FolderStats, LibraryDocument, Remote, RemoteScope } from "./bindings";
import type { FolderNode } from "./store";

/** A folder's totals (subfolders included, counted by the catalog) as its row's tooltip says them. */
export function totalsText(t: FolderStats | null): string {
  if (t === null || t.documents === 0) return "No documents";
  const n = (x: number) => x.toLocaleString("en");
  const parts = [`${n(t.documents)} document${t.documents === 1 ? "" : "s"}`, `${n(t.pages)} pages`];
  if (t.chunks > 0) parts.push(`${n(t.chunks)} passages`);
  if (t.pending > 0) parts.push(`${n(t.pending)} waiting or indexing`);
  if (t.needing_attention > 0) parts.push(`${n(t.needing_attention)} needing attention`);
  if (t.latest_added !== null) parts.push(`latest added ${new Date(t.latest_added).toLocaleDateString()}`);
  return parts.join(" · ");
}

/** Where a row stands among its siblings (ARIA's level, set size and position, 1-based): the
 *  tree draws only the rows in view, so each says it. */
interface Place {
  key: string;
  level: number;
  setsize: number;
  posinset: number;
}

/** One visible row of the tree. */
export type Row =
  | (Place & { kind: "folder"; node: FolderNode; parent: string | null })
  | (Place & { kind: "document"; doc: LibraryDocument; parent: string; folder: FolderNode });

export const folderKey = (id: number) => `f:${id}`;
export const documentKey = (id: string) => `d:${id}`;

/** The rows a person sees, top to bottom: a closed folder hides what it holds. */
export function visibleRows(roots: FolderNode[], closed: ReadonlySet<number>): Row[] {
  const rows: Row[] = [];
  const walk = (node: FolderNode, level: number, parent: string | null, setsize: number, posinset: number) => {
    const key = folderKey(node.folder.id);
    rows.push({ kind: "folder", key, level, setsize, posinset, node, parent });
    if (closed.has(node.folder.id)) return;
    const inside = node.children.length + node.documents.length;
    node.children.forEach((child, i) => walk(child, level + 1, key, inside, i + 1));
    node.documents.forEach((doc, i) => {
      const posinset = node.children.length + i + 1;
      const row = { kind: "document" as const, key: documentKey(doc.id), level: level + 1, setsize: inside, posinset };
      rows.push({ ...row, doc, parent: key, folder: node });
    });
  };
  roots.forEach((root, i) => walk(root, 1, null, roots.length, i + 1));
  return rows;
}

/** The documents between two rows, both included, in the tree's order (a Shift+click range). */
export function documentsBetween(rows: Row[], from: string, to: string): string[] {
  const a = rows.findIndex((r) => r.key === from);
  const b = rows.findIndex((r) => r.key === to);
  if (a < 0 || b < 0) return [];
  return rows
    .slice(Math.min(a, b), Math.max(a, b) + 1)
    .flatMap((r) => (r.kind === "document" ? [r.doc.id] : []));
}

/** What a remote library's server said of its folders: nothing yet, the folders its token sees,
 *  or why it could not be asked. */
export type RemoteFolders =
  | { state: "asking" }
  | { state: "ready"; paths: string[] }
  | { state: "unreachable"; reason: string };

/** One visible row of the remote libraries' tree: a remote, or a folder of it. */
export type RemoteRow =
  | { kind: "remote"; key: string; remote: Remote; parent: null }
  | { kind: "remote-folder"; key: string; remote: Remote; path: string; parent: string };

/** A remote's key, and one of its folders' (a remote's name has no "/": the first ends it). */
export const remoteKey = (name: string) => `r:${name}`;
export const remoteFolderKey = (name: string, path: string) => `r:${name}/${path}`;

/** The remote rows a person sees, top to bottom: an open remote shows the folders its server said. */
export function remoteRows(
  remotes: Remote[],
  folders: ReadonlyMap<string, RemoteFolders>,
  closed: ReadonlySet<string>,
): RemoteRow[] {
  return remotes.flatMap((remote): RemoteRow[] => {
    const key = remoteKey(remote.name);
    const said = folders.get(remote.name);
    const paths = said?.state === "ready" && !closed.has(remote.name) ? said.paths : [];
    const children = paths.map((path): RemoteRow => ({
      kind: "remote-folder",
      key: remoteFolderKey(remote.name, path),
      remote,
      path,
      parent: key,
    }));
    return [{ kind: "remote", key, remote, parent: null }, ...children];
  });
}

/** What a remote row puts in a scope: the whole remote, or its folder. */
export function remotePart(row: RemoteRow): RemoteScope {
  return { remote: row.remote.name, folder: row.kind === "remote" ? null : row.path };
}

const CLOSED_KEY = "lectern.closed-folders";

/** The folders a person closed, kept across starts. */
export function loadClosed(storage: Storage): Set<number> {
  try {
    const ids = JSON.parse(storage.getItem(CLOSED_KEY) ?? "[]") as unknown;
    return new Set(Array.isArray(ids) ? ids.filter((x): x is number => typeof x === "number") : []);
  } catch {
    return new Set();
  }
}

export function saveClosed(storage: Storage, closed: ReadonlySet<number>) {
  storage.setItem(CLOSED_KEY, JSON.stringify([...closed]));
}
