import { describe, expect, it } from "vitest";
import { z } from "zod";
import { routes } from "../../http/routes";

// The OpenID4VC libraries change zod's global error map when they load; the wallet domain puts
// zod's own messages back (openid4vc.ts), so every other domain answers in the words it always did.
describe("the OpenID4VC libraries loaded with the routes", () => {
  it("leave zod's validation messages as zod words them", () => {
    expect(routes.some((r) => r.path === "/oid4vci/token")).toBe(true);
    expect(z.url().safeParse("not a url").error?.issues[0]?.message).toBe("Invalid URL");
    expect(z.object({ a: z.string() }).safeParse({}).error?.issues[0]?.message).toBe("Invalid input: expected string, received undefined");
  });
});
