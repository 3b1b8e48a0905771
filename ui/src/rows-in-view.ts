// A long list drawn only where it is in view (the library's tree: 10,000 documents scroll as ten
// do). Its rows are of a few shapes, each shape of one height (guessed, then measured once one is
// drawn); the rows in view and a screen more above and below are drawn, and one row wherever it
// is (the focused one, so the focus stays in the list), with spacers of the others' height
// between, so the box scrolls as if every row were there.

/** What the list's owner does for it. */
export interface Drawing<R> {
  /** A row's shape: rows of one shape are of one height. */
  shape(row: R): string;
  /** A row's element, drawn anew. */
  draw(row: R): HTMLElement;
  /** A row's element as drawn before, taken again (only the view moved). */
  keep(row: R, element: HTMLElement): void;
  /** The place of the row drawn wherever it is; -1 for none. */
  pinned(): number;
  /** Runs `draw`, which puts the rows in the list anew (the owner keeps its focus across it). */
  around(draw: () => void): void;
}

export class RowsInView<R extends { key: string }> {
  private rows: readonly R[] = [];
  /** Each row's top in the list, in pixels, and last the list's height. */
  private tops: number[] = [0];
  /** The rows drawn, first and last (the pinned one aside), and the elements drawn by key. */
  private drawn: [number, number] = [0, -1];
  private elements = new Map<string, HTMLElement>();
  /** The frame awaited to draw the rows scrolled into view, if one is. */
  private frame = 0;

  /** `list` shows the rows inside `scroller`, the box that scrolls; `heights` holds a first
   *  guess at each shape's height. */
  constructor(
    private readonly scroller: HTMLElement,
    private readonly list: HTMLElement,
    private readonly drawing: Drawing<R>,
    private readonly heights: Record<string, number>,
  ) {
    scroller.addEventListener("scroll", () => this.moved(), { passive: true });
    // A taller window, or another interface size, shows more rows.
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => this.moved()).observe(scroller);
  }

  /** Takes `rows` as the list's and draws those in view anew. */
  show(rows: readonly R[]) {
    this.rows = rows;
    this.place();
    this.draw();
  }

  /** Draws the rows in view and a screen's worth around them, and the pinned row; with `moved`,
   *  only the view has changed, and the rows drawn before are taken again. Every row where the
   *  box is not laid out (hidden, or in tests). */
  draw(moved = false) {
    const [first, last] = this.inView(this.scroller.clientHeight);
    this.drawn = [first, last];
    const kept = moved ? this.elements : new Map<string, HTMLElement>();
    this.elements = new Map();
    const drawn: [R, HTMLElement][] = [];
    this.drawing.around(() => {
      const pinned = this.drawing.pinned();
      const runs: [number, number][] = [[first, last]];
      if (pinned >= 0 && (pinned < first || pinned > last)) runs.push([pinned, pinned]);
      runs.sort((a, b) => a[0] - b[0]);
      const items: HTMLElement[] = [];
      let end = 0;
      for (const [from, to] of runs) {
        items.push(this.spacer(this.tops[from] - this.tops[end]));
        for (let i = from; i <= to; i++) {
          const row = this.rows[i];
          let item = kept.get(row.key);
          if (item) this.drawing.keep(row, item);
          else item = this.drawing.draw(row);
          this.elements.set(row.key, item);
          drawn.push([row, item]);
          items.push(item);
        }
        end = to + 1;
      }
      items.push(this.spacer(this.tops[this.rows.length] - this.tops[end]));
      this.list.replaceChildren(...items);
    });
    this.measure(drawn);
  }

  /** Scrolls the row at place `i` into view, drawn. */
  reveal(i: number) {
    const height = this.scroller.clientHeight;
    if (i < 0 || i >= this.rows.length || height === 0) return;
    const box = this.scroller;
    const offset = this.list.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    const [top, bottom] = [offset + this.tops[i], offset + this.tops[i + 1]];
    if (top < box.scrollTop) box.scrollTop = top;
    else if (bottom > box.scrollTop + height) box.scrollTop = bottom - height;
    this.draw(true);
  }

  /** Each row's top, from the heights of the shapes. */
  private place() {
    const tops = new Array<number>(this.rows.length + 1);
    let y = 0;
    this.rows.forEach((row, i) => {
      tops[i] = y;
      y += this.heights[this.drawing.shape(row)];
    });
    tops[this.rows.length] = y;
    this.tops = tops;
  }

  /** The first and last rows the box shows, with `margin` pixels more above and below. */
  private inView(margin: number): [number, number] {
    const height = this.scroller.clientHeight;
    const count = this.rows.length;
    if (height === 0 || count === 0) return [0, count - 1];
    const top = this.scroller.getBoundingClientRect().top - this.list.getBoundingClientRect().top;
    // The last row that starts above `y` (the tops ascend).
    const rowAt = (y: number) => {
      let [lo, hi] = [0, count - 1];
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.tops[mid] <= y) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    };
    return [rowAt(top - margin), rowAt(top + height + margin)];
  }

  /** Learns the heights of the shapes drawn; places and draws the rows again if one was not as
   *  thought. */
  private measure(drawn: [R, HTMLElement][]) {
    let changed = false;
    for (const [row, item] of drawn) {
      const height = item.offsetHeight;
      const shape = this.drawing.shape(row);
      if (height === 0 || this.heights[shape] === height) continue;
      this.heights[shape] = height;
      changed = true;
    }
    if (changed) {
      this.place();
      this.draw();
    }
  }

  private spacer(height: number): HTMLElement {
    const spacer = document.createElement("li");
    spacer.className = "spacer";
    spacer.setAttribute("role", "none");
    spacer.style.height = `${height}px`;
    return spacer;
  }

  /** Once a frame, while the box scrolls or changes size: draws the rows come into view. */
  private moved() {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const [first, last] = this.inView(0);
      if (first < this.drawn[0] || last > this.drawn[1]) this.draw(true);
    });
  }
}
