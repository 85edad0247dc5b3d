import { describe, expect, it } from "vitest";
import { isPipelinePath } from "./paths";
import { routes } from "./routes";

// In a whole deployment (src/server/app.ts) Next serves every path the pipeline does not claim:
// each route of the table must be claimed, or it would answer Next's 404 outside the tests.
describe("isPipelinePath", () => {
  it("claims every route of the table, with its parameters filled", () => {
    const unclaimed = routes.map((r) => r.path.replace(/\{[^}]+\}/g, "x")).filter((p) => !isPipelinePath(p));
    expect(unclaimed).toEqual([]);
  });

  it("leaves the pages to Next", () => {
    for (const page of ["/", "/pricing", "/console", "/console/settings", "/docs", "/bind", "/.well-known/security.txt", "/vctx"])
      expect(isPipelinePath(page), page).toBe(false);
  });
});
