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
    b.setAttribute("aria-label", label);
  }
  b.addEventListener("click", (e) => {
    e.stopPropagation();
    onClick();
  });
  return b;
}
