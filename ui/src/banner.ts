// The window's banner for a problem that holds everything up until it is fixed, such as the
// indexer having stopped: it stays until the problem goes, says what happened in words, and
// offers the action that fixes it when there is one.

import type { ErrorPayload } from "./bindings";
import { button } from "./dom";
import { errorRemedy } from "./store";

export interface BannerHooks {
  openSettings: () => void;
}

/** Shows `problem` in `banner` (hides it for none). */
export function showIndexerProblem(banner: HTMLElement, problem: ErrorPayload | null, hooks: BannerHooks) {
  banner.hidden = problem === null;
  if (problem === null) {
    banner.replaceChildren();
    return;
  }
  banner.setAttribute("role", "alert");
  const text = document.createElement("span");
  text.textContent = `Indexing has stopped, so new documents wait: ${problem.message}`;
  banner.replaceChildren(text);
  if (errorRemedy(problem) === "open_settings") {
    banner.append(" ", button("Open settings", "open-settings", () => hooks.openSettings()));
  }
}
