import { describe, expect, it } from "vitest";
import { COUNTRY_CODES } from "../../platform/countries";
import { ALPHA3_TO_ALPHA2, alpha3Of, toAlpha2 } from "./countries-alpha3";

describe("alpha-3 → alpha-2", () => {
  it("covers exactly the 249 assigned alpha-2 codes, each once", () => {
    expect(ALPHA3_TO_ALPHA2.size).toBe(249);
    expect(new Set(ALPHA3_TO_ALPHA2.values())).toEqual(new Set(COUNTRY_CODES));
  });

  it("maps both ways and refuses unassigned codes", () => {
    expect([toAlpha2("GHA"), toAlpha2("ukr"), toAlpha2("ESP"), toAlpha2("GBR"), toAlpha2("DEU")]).toEqual(["GH", "UA", "ES", "GB", "DE"]);
    expect([toAlpha2("gh"), toAlpha2("XKX"), toAlpha2("XK"), toAlpha2(""), toAlpha2(null), toAlpha2("GHAN")]).toEqual([
      "GH",
      null,
      null,
      null,
      null,
      null,
    ]);
    expect([alpha3Of("gh"), alpha3Of("CI"), alpha3Of("XK")]).toEqual(["GHA", "CIV", undefined]);
  });
});
