// The window's banner for a problem that holds everything up until it is fixed, such as the
// indexer having stopped: it stays until the problem goes, says what happened in words, and
// offers the action that fixes it when there is one.

import type { ErrorPayload } from "./bindings";
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
    const fix = document.createElement("button");
    fix.type = "button";
    fix.className = "open-settings";
    fix.textContent = "Open settings";
    fix.addEventListener("click", () => hooks.openSettings());
    banner.append(" ", fix);
  }
}
