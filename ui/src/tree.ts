// The library tree apart from the DOM: a folder's totals with its subfolders, the rows the
// keyboard walks through as the folders stand open or closed, and which folders are closed; and
// the rows of the remote libraries' tree, each remote with the folders its server said.

import type { LibraryDocument, Remote, RemoteScope } from "./bindings";
import type { FolderNode } from "./store";

/** What a folder holds, its subfolders included. */
export interface Totals {
  documents: number;
  pages: number;
  chunks: number;
  /** When the latest of its documents was added (milliseconds since the epoch). */
  latest: number | null;
}

export function totals(node: FolderNode): Totals {
  const sum: Totals = { documents: 0, pages: 0, chunks: 0, latest: null };
  const add = (doc: LibraryDocument) => {
    sum.documents += 1;
    sum.pages += doc.page_count ?? 0;
    sum.chunks += doc.chunk_count ?? 0;
    sum.latest = Math.max(sum.latest ?? 0, doc.added_at);
  };
  const walk = (n: FolderNode) => {
    n.documents.forEach(add);
    n.children.forEach(walk);
  };
  walk(node);
  return sum;
}

/** A folder's totals as its row's tooltip says them. */
export function totalsText(t: Totals): string {
  if (t.documents === 0) return "No documents";
  const n = (x: number) => x.toLocaleString("en");
  const parts = [`${n(t.documents)} document${t.documents === 1 ? "" : "s"}`, `${n(t.pages)} pages`];
  if (t.chunks > 0) parts.push(`${n(t.chunks)} passages`);
  if (t.latest !== null) parts.push(`latest added ${new Date(t.latest).toLocaleDateString()}`);
  return parts.join(" · ");
}

/** One visible row of the tree. */
export type Row =
  | { kind: "folder"; key: string; level: number; node: FolderNode; parent: string | null }
  | { kind: "document"; key: string; level: number; doc: LibraryDocument; parent: string };

export const folderKey = (id: number) => `f:${id}`;
export const documentKey = (id: string) => `d:${id}`;

/** The rows a person sees, top to bottom: a closed folder hides what it holds. */
export function visibleRows(roots: FolderNode[], closed: ReadonlySet<number>): Row[] {
  const rows: Row[] = [];
  const walk = (node: FolderNode, level: number, parent: string | null) => {
    const key = folderKey(node.folder.id);
    rows.push({ kind: "folder", key, level, node, parent });
    if (closed.has(node.folder.id)) return;
    for (const child of node.children) walk(child, level + 1, key);
    for (const doc of node.documents) {
      rows.push({ kind: "document", key: documentKey(doc.id), level: level + 1, doc, parent: key });
    }
  };
  for (const root of roots) walk(root, 1, null);
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
