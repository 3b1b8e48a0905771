// The dialog that adds a remote library: the name it goes by here, its server's address (as
// `lectern serve` prints it) and a token of that server. The server is asked with the token
// before the remote is kept; if it refuses, the dialog stays open and says why.

import { button, buttonRow, dialog, field, namingHeading } from "./dom";
import { errorMessage, type Api } from "./ipc";
import type { AddedRemote } from "./bindings";

export class RemoteDialog {
  readonly element = dialog("remote-dialog");
  private readonly form = document.createElement("form");
  private readonly name = document.createElement("input");
  private readonly url = document.createElement("input");
  private readonly token = document.createElement("input");
  private readonly add = document.createElement("button");
  /** What the server said: being asked, or why it refused. */
  private readonly result = document.createElement("output");

  constructor(
    private readonly api: Api,
    private readonly added: (added: AddedRemote) => void,
  ) {
    const title = namingHeading(this.element, "remote-dialog-title", "Add a remote library");
    const intro = document.createElement("p");
    intro.textContent =
      "Another Lectern's library, served to other programs (its settings' “Other programs”, or lectern serve), " +
      "asked beside this one with a token it gave.";
    this.name.name = "name";
    this.name.required = true;
    this.name.autocomplete = "off";
    this.url.name = "url";
    this.url.type = "url";
    this.url.required = true;
    this.url.placeholder = "http://host:8765/v1";
    this.token.name = "token";
    this.token.type = "password";
    this.token.autocomplete = "off";
    this.result.className = "remote-result";
    this.add.type = "submit";
    this.add.className = "add";
    this.add.textContent = "Add";
    const buttons = buttonRow(button("Cancel", "cancel", () => this.element.close()), this.add);
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.submit();
    });
    this.form.append(
      title,
      intro,
      field("Name here", this.name),
      field("Server address", this.url),
      field("Token", this.token),
      this.result,
      buttons,
    );
    this.element.append(this.form);
  }

  /** Opens the dialog with its fields empty. */
  show() {
    if (!this.element.isConnected) document.body.append(this.element);
    this.form.reset();
    this.say("");
    this.element.showModal();
    this.name.focus();
  }

  /** Adds the remote the fields name once its server has answered; closes, or says why not. */
  private async submit() {
    this.add.disabled = true;
    this.say("Asking the server…");
    try {
      const added = await this.api.addRemote(this.name.value.trim(), this.url.value.trim(), this.token.value);
      this.element.close();
      this.added(added);
    } catch (e) {
      this.say(errorMessage(e), true);
    } finally {
      this.add.disabled = false;
    }
  }

  private say(text: string, failed = false) {
    this.result.textContent = text;
    this.result.classList.toggle("failed", failed);
  }
}
