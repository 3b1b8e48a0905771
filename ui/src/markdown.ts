// Answers and passages as DOM nodes, never as HTML: text always goes in through text nodes, so
// model output and PDF text cannot inject markup. The markdown answers use is understood:
// paragraphs, headings, block quotes, lists, tables (GitHub's pipe tables, with alignment),
// rules, fenced code, inline code, **strong**, *emphasis*, and footnote references [^n], which
// become buttons.

/** Called with a footnote's number and its button when it is clicked. */
export type FootnoteHandler = (number: number, button: HTMLButtonElement) => void;

const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Whether a paragraph stops before this line: it starts a block of another kind. */
function startsBlock(lines: string[], i: number): boolean {
  const line = lines[i];
  return (
    line.trim() === "" ||
    /^(```|>)/.test(line) ||
    LIST_ITEM.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    (line.includes("|") && TABLE_DELIMITER.test(lines[i + 1] ?? ""))
  );
}

/** The cells of a table row: split on pipes that are not escaped, the outer ones dropped. */
export function tableCells(row: string): string[] {
  const trimmed = row.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function table(lines: string[], onFootnote: FootnoteHandler): HTMLTableElement {
  const [head, delimiter, ...body] = lines;
  const aligns = tableCells(delimiter).map((d) =>
    d.startsWith(":") && d.endsWith(":") ? "center" : d.endsWith(":") ? "right" : d.startsWith(":") ? "left" : "",
  );
  const row = (cells: string[], tag: "th" | "td") => {
    const tr = document.createElement("tr");
    aligns.forEach((align, k) => {
      const cell = document.createElement(tag);
      if (align) cell.style.textAlign = align;
      cell.append(renderInline(cells[k] ?? "", onFootnote));
      tr.append(cell);
    });
    return tr;
  };
  const el = document.createElement("table");
  const thead = document.createElement("thead");
  thead.append(row(tableCells(head), "th"));
  const tbody = document.createElement("tbody");
  for (const line of body) tbody.append(row(tableCells(line), "td"));
  el.append(thead, tbody);
  return el;
}

/** Renders `markdown` into a new fragment; footnote buttons call `onFootnote`. */
export function renderMarkdown(markdown: string, onFootnote: FootnoteHandler): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith("```")) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i].startsWith("```")) code.push(lines[i++]);
      i++;
      const pre = document.createElement("pre");
      const el = document.createElement("code");
      el.textContent = code.join("\n");
      pre.append(el);
      fragment.append(pre);
    } else if (line.startsWith(">")) {
      const quote: string[] = [];
      while (i < lines.length && lines[i].startsWith(">")) quote.push(lines[i++].replace(/^>\s?/, ""));
      const el = document.createElement("blockquote");
      el.append(renderMarkdown(quote.join("\n"), onFootnote));
      fragment.append(el);
    } else if (HEADING.test(line)) {
      const [, hashes, text] = HEADING.exec(line) ?? ["", "#", line];
      // An answer sits under the window's own headings: its levels start at h3.
      const heading = document.createElement(`h${Math.min(6, hashes.length + 2)}`);
      heading.append(renderInline(text, onFootnote));
      fragment.append(heading);
      i++;
    } else if (RULE.test(line)) {
      fragment.append(document.createElement("hr"));
      i++;
    } else if (line.includes("|") && TABLE_DELIMITER.test(lines[i + 1] ?? "")) {
      const rows = [lines[i], lines[i + 1]];
      i += 2;
      while (i < lines.length && lines[i].includes("|") && lines[i].trim() !== "") rows.push(lines[i++]);
      fragment.append(table(rows, onFootnote));
    } else if (LIST_ITEM.test(line)) {
      const ordered = /^\s*\d+[.)]/.test(line);
      const list = document.createElement(ordered ? "ol" : "ul");
      const start = ordered ? Number(/\d+/.exec(line)?.[0] ?? 1) : 1;
      if (ordered && start !== 1) (list as HTMLOListElement).start = start;
      while (i < lines.length && LIST_ITEM.test(lines[i])) {
        const item = document.createElement("li");
        const text = [lines[i++].replace(LIST_ITEM, "")];
        // A line indented under an item continues it.
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !LIST_ITEM.test(lines[i])) text.push(lines[i++].trim());
        item.append(renderInline(text.join(" "), onFootnote));
        list.append(item);
      }
      fragment.append(list);
    } else if (line.trim() === "") {
      i++;
    } else {
      const paragraph: string[] = [];
      do paragraph.push(lines[i++]);
      while (i < lines.length && !startsBlock(lines, i));
      const p = document.createElement("p");
      p.append(renderInline(paragraph.join(" "), onFootnote));
      fragment.append(p);
    }
  }
  return fragment;
}

const INLINE = /(`[^`]+`)|(\[\^\d+\])|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\\[\\`*_[\]<>#|])/g;

/** One line of inline markdown as nodes. */
export function renderInline(text: string, onFootnote: FootnoteHandler): DocumentFragment {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const at = match.index ?? 0;
    if (at > last) fragment.append(document.createTextNode(text.slice(last, at)));
    const token = match[0];
    if (match[1]) {
      const code = document.createElement("code");
      code.textContent = token.slice(1, -1);
      fragment.append(code);
    } else if (match[2]) {
      const number = Number(token.slice(2, -1));
      const button = document.createElement("button");
      button.className = "footnote";
      button.type = "button";
      button.textContent = String(number);
      button.dataset.footnote = String(number);
      button.setAttribute("aria-label", `Source ${number}`);
      button.addEventListener("click", () => onFootnote(number, button));
      const sup = document.createElement("sup");
      sup.append(button);
      fragment.append(sup);
    } else if (match[3]) {
      const strong = document.createElement("strong");
      strong.textContent = token.slice(2, -2);
      fragment.append(strong);
    } else if (match[4]) {
      const em = document.createElement("em");
      em.textContent = token.slice(1, -1);
      fragment.append(em);
    } else {
      fragment.append(document.createTextNode(token.slice(1)));
    }
    last = at + token.length;
  }
  if (last < text.length) fragment.append(document.createTextNode(text.slice(last)));
  return fragment;
}
