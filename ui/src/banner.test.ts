import { showIndexerProblem } from "./banner";

describe("indexer banner", () => {
  it("says why indexing stopped, offers the settings when they fix it, and goes when it is fixed", () => {
    const banner = document.createElement("div");
    let opened = 0;
    const hooks = { openSettings: () => void opened++ };
    showIndexerProblem(
      banner,
      { code: "unavailable", message: "no embedding model is installed", hint: { kind: "check_settings" } },
      hooks,
    );
    expect(banner.hidden).toBe(false);
    expect(banner.getAttribute("role")).toBe("alert");
    expect(banner.textContent).toContain("no embedding model is installed");
    (banner.querySelector("button.open-settings") as HTMLButtonElement).click();
    expect(opened).toBe(1);

    showIndexerProblem(banner, { code: "internal", message: "disk <b>full</b>", hint: null }, hooks);
    expect(banner.querySelector("button")).toBeNull();
    expect(banner.querySelector("b")).toBeNull();
    showIndexerProblem(banner, null, hooks);
    expect(banner.hidden).toBe(true);
  });
});
