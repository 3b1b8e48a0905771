// Answers and passages as DOM nodes, never as HTML: text always goes in through text nodes, so
// model output and PDF text cannot inject markup. A small markdown subset is understood:
// paragraphs, block quotes, lists, fenced code, inline code, **strong**, *emphasis*, and
// footnote references [^n], which become buttons.

export type FootnoteHandler = (number: number) => void;

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
    } else if (/^\s*([-*]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const list = document.createElement(ordered ? "ol" : "ul");
      while (i < lines.length && /^\s*([-*]|\d+\.)\s+/.test(lines[i])) {
        const item = document.createElement("li");
        item.append(renderInline(lines[i++].replace(/^\s*([-*]|\d+\.)\s+/, ""), onFootnote));
        list.append(item);
      }
      fragment.append(list);
    } else if (line.trim() === "") {
      i++;
    } else {
      const paragraph: string[] = [];
      while (i < lines.length && lines[i].trim() !== "" && !/^(```|>|\s*([-*]|\d+\.)\s+)/.test(lines[i])) {
        paragraph.push(lines[i++]);
      }
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
      button.addEventListener("click", () => onFootnote(number));
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
