// The retrieval strategies (when a question searches the documents) as the chat bar and the
// folder menu name them.

import type { Strategy } from "./bindings";

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
