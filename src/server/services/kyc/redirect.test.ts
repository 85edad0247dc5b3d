import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { honouredRedirect } from "./sessions";

// BI_PUBLIC_URL is http://localhost:3000 in tests (setup-env.ts).
const PUBLIC = new URL("http://localhost:3000");

const honouredIsSafe = (given: string) => {
  const out = honouredRedirect(given);
  if (out === null) return;
  const u = new URL(out);
  expect(u.origin).toBe(PUBLIC.origin);
  expect(u.username + u.password).toBe("");
  expect(u.pathname === "/identity" || u.pathname.startsWith("/identity/")).toBe(true);
};

describe("KYC redirectUrl (generated inputs)", () => {
  it("never honours anything but a path under /identity on the public origin", () => {
    fc.assert(fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), honouredIsSafe), { numRuns: 2000 });
    fc.assert(fc.property(fc.string({ maxLength: 200 }), honouredIsSafe), { numRuns: 2000 });
    const tricky = fc.constantFrom(
      "http://localhost:3000/identity/../admin",
      "http://localhost:3000/identity/%2e%2e/admin",
      "http://localhost:3000//evil.example/identity",
      "http://localhost:3000@evil.example/identity",
      "http://evil.example\\@localhost:3000/identity",
      "http://localhost:3000\\identity",
      "http://LOCALHOST:3000/identity/x",
      "http://localhost:3000/identity",
      "http://localhost:3000/Identity",
      "http://localhost:80/identity",
      "http://localhost/identity",
    );
    fc.assert(
      fc.property(tricky, fc.string({ maxLength: 30 }), (base, tail) => honouredIsSafe(base + tail)),
      { numRuns: 2000 },
    );
  });

  it("keeps honouring real paths under /identity with any query", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { maxLength: 4 }),
        fc.stringMatching(/^[a-z0-9=&]{0,30}$/),
        (segments, query) => {
          const given = `http://localhost:3000/identity${segments.map((s) => `/${s}`).join("")}${query ? `?${query}` : ""}`;
          expect(honouredRedirect(given)).toBe(new URL(given).toString());
        },
      ),
      { numRuns: 500 },
    );
  });
});
