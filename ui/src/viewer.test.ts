import { highlightedItems } from "./viewer";

describe("passage highlighting", () => {
  it("marks the page's text items that are part of the cited passage", () => {
    const items = ["Annual Report", "The Eiffel Tower is 330", "metres tall and was", "a", "finished in 1889.", "Next section"];
    expect(highlightedItems(items, "The Eiffel   Tower is 330 metres tall and was finished in 1889.")).toEqual([
      false,
      true,
      true,
      false,
      true,
      false,
    ]);
  });
});
