// DOM builders the panes share. Text goes in as text, never as HTML.

/** A button showing `text`, of class `className`, that runs `onClick` (the click goes no
 *  further up the page); `label`, when given, is its tooltip and its accessible name. */
export function button(text: string, className: string, onClick: () => void, label?: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.textContent = text;
  if (label) {
    b.title = label;
    // A button named by its words keeps them as its name (what a voice user says to press it);
    // the label names one shown as an icon or a symbol.
    if (!/[\p{L}\p{N}]/u.test(text)) b.setAttribute("aria-label", label);
  }
  b.addEventListener("click", (e) => {
    e.stopPropagation();
    onClick();
  });
  return b;
}

/** A modal dialog of class `className` (its frame, backdrop, heading and button row are styled
 *  for every dialog alike); its content and its heading (`namingHeading`) are its own. */
export function dialog(className: string): HTMLDialogElement {
  const element = document.createElement("dialog");
  element.className = className;
  return element;
}

/** A row of buttons, at the end of a dialog or a panel. */
export function buttonRow(...buttons: HTMLElement[]): HTMLDivElement {
  const row = document.createElement("div");
  row.className = "buttons";
  row.append(...buttons);
  return row;
}

/** A heading (`h2`) showing `text`, with id `id`, that names `element` for assistive technology. */
export function namingHeading(element: HTMLElement, id: string, text: string): HTMLHeadingElement {
  const heading = document.createElement("h2");
  heading.id = id;
  heading.textContent = text;
  element.setAttribute("aria-labelledby", id);
  return heading;
}

/** A tree row's check box that puts it in the question's scope, named "Ask about `label`", out of
 *  the tab order (Space on the row does the same); a click runs `toggle` and goes no further. */
export function scopeBox(label: string, checked: boolean, toggle: () => void): HTMLInputElement {
  const box = document.createElement("input");
  box.type = "checkbox";
  box.className = "in-scope";
  box.tabIndex = -1;
  box.checked = checked;
  box.setAttribute("aria-label", `Ask about ${label}`);
  box.addEventListener("click", (e) => {
    e.stopPropagation();
    toggle();
  });
  return box;
}

/** A form's field: `control` under its visible label. */
export function field(label: string, control: HTMLElement): HTMLLabelElement {
  const element = document.createElement("label");
  const text = document.createElement("span");
  text.textContent = label;
  element.append(text, control);
  return element;
}

/** A box that edits `value` in place, focused with its text selected: Enter or leaving it keeps
 *  the text, Esc goes back. `done` is called once, with the trimmed text kept (null: Esc, or
 *  nothing new). Keys and clicks in the box go no further up the page. */
export function inlineEdit(
  value: string,
  className: string,
  label: string,
  done: (kept: string | null) => void,
): HTMLInputElement {
  const input = document.createElement("input");
  input.className = className;
  input.value = value;
  input.setAttribute("aria-label", label);
  let finished = false;
  const finish = (keep: boolean) => {
    if (finished) return;
    finished = true;
    const text = input.value.trim();
    done(keep && text && text !== value ? text : null);
  };
  input.addEventListener("keydown", (e) => {
    e.stopPropagation();
    if (e.key === "Enter") finish(true);
    else if (e.key === "Escape") finish(false);
  });
  input.addEventListener("blur", () => finish(true));
  input.addEventListener("click", (e) => e.stopPropagation());
  queueMicrotask(() => {
    input.focus();
    input.select();
  });
  return input;
}

/** Runs `rebuild`, which redraws `container`, and puts the focus back on the control it was on
 *  inside it: the one of the same class, in the row (an element with `data-<key>`) of the same
 *  value, so a keyboard user is not thrown out by a redraw. */
export function keepingFocus(container: HTMLElement, key: string, rebuild: () => void) {
  const active = document.activeElement;
  const control = active instanceof HTMLElement && container.contains(active) ? active : null;
  const attribute = `data-${key}`;
  const row = control?.closest(`[${attribute}]`)?.getAttribute(attribute);
  const className = control?.className;
  rebuild();
  if (!control || !className || container.contains(control)) return;
  const rows = row == null ? [container] : [...container.querySelectorAll(`[${attribute}]`)].filter((r) => r.getAttribute(attribute) === row);
  const again = rows
    .flatMap((r) => [...r.getElementsByClassName(className.split(" ")[0])])
    .find((e): e is HTMLElement => e instanceof HTMLElement && e.className === className);
  again?.focus();
}
