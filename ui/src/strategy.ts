// The retrieval strategies (when a question searches the documents) as the chat bar and the
// folder menu name them, and the one a folder's chats take when it has none of its own.

import type { Folder, FolderId, Strategy } from "./bindings";

/** Each strategy's short name and what it does. */
export const STRATEGIES: Record<Strategy, { name: string; help: string }> = {
  always: { name: "always", help: "Search every message" },
  confidence: {
    name: "confident passages only",
    help: "Search every message; use only passages that clearly bear on it",
  },
  function: { name: "model decides", help: "The model decides whether to search" },
  smart: {
    name: "smart",
    help: "Don't search for small talk or requests about the last answer ('shorter', 'make it a table')",
  },
};

/** The strategy a folder under `parent` inherits: that of its nearest ancestor with one (as the
 *  catalog's default does), else "always". */
export function inheritedStrategy(folders: Folder[], parent: FolderId | null): Strategy {
  const byId = new Map(folders.map((f) => [f.id, f]));
  let next = parent;
  // At most one step per folder, whatever the parents say.
  for (let steps = 0; next !== null && steps < folders.length; steps++) {
    const folder = byId.get(next);
    if (!folder) break;
    if (folder.strategy) return folder.strategy;
    next = folder.parent;
  }
  return "always";
}
