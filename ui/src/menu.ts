// A context menu: opened at a point or under a row, walked with the arrow keys, closed by Esc, a
// click elsewhere or a choice; the focus goes back where it was. A menu of choices marks the
// one in force. With the ⋮ button that opens a tree row's menu, and where the keyboard opens it.

import { button } from "./dom";
import { EllipsisVertical, icon } from "./icons";

export interface MenuItem {
  label: string;
  /** The key that does the same in the tree, shown beside the label. */
  shortcut?: string;
  danger?: boolean;
  /** Said when the pointer rests on it. */
  title?: string;
  /** Whether it is the choice in force, for an item of a menu of choices. */
  checked?: boolean;
  run: () => void;
}

let open: { element: HTMLElement; close: () => void } | null = null;

/** Closes the open menu, if one is. */
export function closeMenu() {
  open?.close();
}

/** Shows `items` as a menu at (`x`, `y`), labelled `label`; `back` gets the focus when it closes. */
export function showMenu(label: string, items: MenuItem[], x: number, y: number, back: HTMLElement): HTMLElement {
  closeMenu();
  const menu = document.createElement("ul");
  menu.className = "context-menu";
  menu.setAttribute("role", "menu");
  menu.setAttribute("aria-label", label);
  const entries = items.map((item) => {
    const entry = document.createElement("li");
    entry.setAttribute("role", item.checked === undefined ? "menuitem" : "menuitemradio");
    if (item.checked !== undefined) entry.setAttribute("aria-checked", String(item.checked));
    entry.tabIndex = -1;
    entry.className = item.danger ? "danger" : "";
    if (item.title) entry.title = item.title;
    const text = document.createElement("span");
    text.textContent = item.label;
    entry.append(text);
    if (item.shortcut) {
      const key = document.createElement("kbd");
      key.textContent = item.shortcut;
      entry.append(key);
    }
    entry.addEventListener("click", () => {
      close();
      item.run();
    });
    return entry;
  });
  menu.append(...entries);
  const focusAt = (i: number) => entries[(i + entries.length) % entries.length]?.focus();
  menu.addEventListener("keydown", (e) => {
    const at = entries.indexOf(document.activeElement as HTMLLIElement);
    if (e.key === "ArrowDown") focusAt(at + 1);
    else if (e.key === "ArrowUp") focusAt(at - 1);
    else if (e.key === "Home") focusAt(0);
    else if (e.key === "End") focusAt(entries.length - 1);
    else if (e.key === "Enter" || e.key === " ") entries[at]?.click();
    else if (e.key === "Escape" || e.key === "Tab") close();
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
  const outside = (e: MouseEvent) => {
    if (!menu.contains(e.target as Node)) close();
  };
  function close() {
    if (open?.element !== menu) return;
    open = null;
    document.removeEventListener("mousedown", outside, true);
    menu.remove();
    back.focus();
  }
  document.body.append(menu);
  const width = menu.offsetWidth || 200;
  const height = menu.offsetHeight || items.length * 28;
  menu.style.left = `${Math.max(4, Math.min(x, window.innerWidth - width - 4))}px`;
  menu.style.top = `${Math.max(4, Math.min(y, window.innerHeight - height - 4))}px`;
  document.addEventListener("mousedown", outside, true);
  open = { element: menu, close };
  focusAt(0);
  return menu;
}

/** A tree row's ⋮ button, named "Actions for `label`", out of the tab order (the row's keys open
 *  the same menu); `open` gets the point under the button where the menu goes. */
export function menuButton(label: string, open: (x: number, y: number) => void): HTMLButtonElement {
  const b = button("", "row-menu", () => {
    const at = b.getBoundingClientRect();
    open(at.left, at.bottom);
  });
  b.tabIndex = -1;
  b.setAttribute("aria-label", `Actions for ${label}`);
  b.setAttribute("aria-haspopup", "menu");
  b.append(icon(EllipsisVertical));
  return b;
}

/** Where a tree row's menu opens from the keyboard (the menu key, Shift+F10): under its name. */
export function underRow(row: HTMLElement | null): [number, number] {
  const at = row?.getBoundingClientRect();
  return [(at?.left ?? 0) + 24, at ? at.top + 22 : 0];
}
