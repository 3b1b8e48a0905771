// The one tab stop of an ARIA tree (a "roving tabindex"), shared by the library's tree and the
// remote libraries': which row has it, the row elements drawn by key, giving a row the tab stop
// (and the focus), the clamped step to the i-th row, and the focus kept across a redraw. What
// each key does stays with its tree.

/** The tab stop of the tree `tree`, whose rows, in order, are what `rows` says. */
export class RovingFocus<R extends { key: string }> {
  /** The row with the tree's tab stop. */
  private focused: string | null = null;
  /** The rows drawn, by key. */
  private items = new Map<string, HTMLElement>();

  /** A row focused in `tree` (by a click or by a script) takes the tab stop. */
  constructor(
    private readonly tree: HTMLElement,
    private readonly rows: () => readonly R[],
  ) {
    tree.addEventListener("focusin", (e) => {
      const item = (e.target as HTMLElement).closest<HTMLElement>("[data-key]");
      if (item?.dataset.key) this.focus(item.dataset.key, false);
    });
  }

  /** The row with the tab stop, if any. */
  get key(): string | null {
    return this.focused;
  }

  /** The place of the row with the tab stop among the rows; -1 if there is none. */
  get at(): number {
    return this.rows().findIndex((r) => r.key === this.focused);
  }

  /** How many rows have been drawn since the last redraw. */
  get size(): number {
    return this.items.size;
  }

  /** The row `key` as drawn, if it is. */
  item(key: string | null): HTMLElement | null {
    return key === null ? null : (this.items.get(key) ?? null);
  }

  /** Takes `element` as the row `key`, in the tab order if it has the tab stop. */
  add(key: string, element: HTMLElement) {
    element.tabIndex = key === this.focused ? 0 : -1;
    this.items.set(key, element);
  }

  /** Gives `key` the tree's tab stop (and the focus, if `move`). */
  focus(key: string, move = true) {
    this.item(this.focused)?.setAttribute("tabindex", "-1");
    this.focused = key;
    const item = this.item(key);
    item?.setAttribute("tabindex", "0");
    if (move) item?.focus();
  }

  /** Goes to the `i`-th row (the first or last when `i` is beyond them): `land` on it, which
   *  gives it the tab stop and the focus unless told otherwise. */
  move(i: number, land: (row: R) => void = (row) => this.focus(row.key)) {
    const rows = this.rows();
    const next = rows[Math.max(0, Math.min(rows.length - 1, i))];
    if (next) land(next);
  }

  /** Runs `draw`, which draws the rows (as they now are) again with `add`; the tab stop stays on
   *  its row if it is still there (else goes to the first), and so does the focus if the tree
   *  had it (without scrolling to it: a tree redrawn as it scrolls keeps its scroll). */
  redraw(draw: () => void) {
    const hadFocus = this.tree.contains(document.activeElement);
    const rows = this.rows();
    if (!rows.some((r) => r.key === this.focused)) this.focused = rows[0]?.key ?? null;
    this.items = new Map();
    draw();
    if (hadFocus) this.item(this.focused)?.focus({ preventScroll: true });
  }
}
