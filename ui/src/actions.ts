// What the tree and the indexing panel both do to a document: ask for its password until it
// opens (a wrong one asks again, saying so), index it again, stop its indexing.

import { commandError, errorMessage, type Api } from "./ipc";
import { errorRemedy } from "./store";
import type { LibraryDocument } from "./bindings";

export interface ActionHooks {
  api: Api;
  refresh: () => Promise<void>;
  report: (message: string) => void;
}

/** Runs a change, reports its failure in words, and shows the library as it now is. */
export async function run(hooks: ActionHooks, action: () => Promise<unknown>) {
  try {
    await action();
  } catch (e) {
    hooks.report(errorMessage(e));
  }
  await hooks.refresh();
}

/** Asks for a document's password until it opens or the person gives up. */
export async function unlock(hooks: ActionHooks, doc: LibraryDocument) {
  let prompt = `Password for ${doc.file_name}`;
  for (;;) {
    const password = window.prompt(prompt);
    if (!password) return;
    try {
      await hooks.api.unlockDocument(doc.id, password);
      break;
    } catch (e) {
      const error = commandError(e);
      if (errorRemedy(error) !== "enter_password") {
        hooks.report(error.message);
        break;
      }
      prompt = `${error.message}\n\nPassword for ${doc.file_name}`;
    }
  }
  await hooks.refresh();
}

export const reindex = (hooks: ActionHooks, ids: string[]) =>
  run(hooks, () => Promise.all(ids.map((id) => hooks.api.reindexDocument(id))));

export const cancelIndexing = (hooks: ActionHooks, id: string) => run(hooks, () => hooks.api.cancelIndexing(id));
