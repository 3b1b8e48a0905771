import { renderMarkdown } from "./markdown";

function render(markdown: string, clicks: number[] = []) {
  const host = document.createElement("div");
  host.append(renderMarkdown(markdown, (n) => clicks.push(n)));
  return host;
}

describe("renderMarkdown", () => {
  it("turns footnote references into buttons that report their number", () => {
    const clicks: number[] = [];
    const host = render("Paris is the capital[^1], and big[^2].", clicks);
    const buttons = host.querySelectorAll<HTMLButtonElement>("button.footnote");
    expect([...buttons].map((b) => b.textContent)).toEqual(["1", "2"]);
    buttons[1].click();
    expect(clicks).toEqual([2]);
    expect(host.querySelector("p")?.textContent).toBe("Paris is the capital1, and big2.");
  });

  it("renders model output and PDF text as text, never as markup", () => {
    const host = render(
      "<script>window.pwned = 1</script> and <img src=x onerror=\"window.pwned = 2\"> **bold** `<b>code</b>`",
    );
    expect(host.querySelector("script")).toBeNull();
    expect(host.querySelector("img")).toBeNull();
    expect(host.querySelector("b")).toBeNull();
    expect(host.textContent).toContain("<script>window.pwned = 1</script>");
    expect(host.textContent).toContain('<img src=x onerror="window.pwned = 2">');
    expect(host.querySelector("strong")?.textContent).toBe("bold");
    expect(host.querySelector("code")?.textContent).toBe("<b>code</b>");
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  it("understands quotes, lists, fenced code and escapes", () => {
    const host = render("> a quote [^1]\n\n- one\n- two\n\n```\n[^1] <x>\n```\n\n\\[not a link\\]");
    expect(host.querySelector("blockquote button.footnote")?.textContent).toBe("1");
    expect([...host.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["one", "two"]);
    expect(host.querySelector("pre code")?.textContent).toBe("[^1] <x>");
    expect(host.querySelectorAll("button").length).toBe(1);
    expect(host.lastElementChild?.textContent).toBe("[not a link]");
  });

  it("renders tables with their alignment, headings, rules and numbered lists", () => {
    const host = render(
      "## Revenue\n\n| Year | Revenue | Note |\n|:-----|--------:|:----:|\n| 2023 | 1,200 | **up** [^1] |\n| 2024 | 1,350 | a \\| pipe |\n\n---\n\n3. third\n4. fourth\n   continued",
    );
    expect(host.querySelector("h4")?.textContent).toBe("Revenue");
    const cells = [...host.querySelectorAll("tr")].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(cells).toEqual([
      ["Year", "Revenue", "Note"],
      ["2023", "1,200", "up 1"],
      ["2024", "1,350", "a | pipe"],
    ]);
    const aligns = [...host.querySelectorAll("tbody tr:first-child td")].map((td) => (td as HTMLElement).style.textAlign);
    expect(aligns).toEqual(["left", "right", "center"]);
    expect(host.querySelector("td button.footnote")?.textContent).toBe("1");
    expect(host.querySelector("hr")).not.toBeNull();
    const list = host.querySelector("ol") as HTMLOListElement;
    expect(list.start).toBe(3);
    expect([...list.children].map((li) => li.textContent)).toEqual(["third", "fourth continued"]);
  });

  it("keeps a paragraph with a pipe in it a paragraph", () => {
    const host = render("Either a | b\nor c.");
    expect(host.querySelector("table")).toBeNull();
    expect(host.querySelector("p")?.textContent).toBe("Either a | b or c.");
  });
});
