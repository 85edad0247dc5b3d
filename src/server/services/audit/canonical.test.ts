import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jcs } from "../../crypto/jcs";
import { entryCanonical, type HashFields } from "./chain";

// entryCanonical writes the hashed fields out in JCS key order by hand; it must give exactly the
// bytes of the general canonicaliser for every entry, or old chains would stop verifying.

const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: "binary" }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: "binary" }), tie("value"), { maxKeys: 5 }),
  ),
})).value;

const entry: fc.Arbitrary<HashFields> = fc.record({
  orgId: fc.uuid(),
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  actor: fc.string({ unit: "binary" }),
  action: fc.string({ unit: "binary" }),
  subjectType: fc.option(fc.string({ unit: "binary" })),
  subject: fc.option(fc.string({ unit: "binary" })),
  data: fc.dictionary(fc.string({ unit: "binary" }), json, { maxKeys: 6 }),
  createdAt: fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }),
  prevHash: fc.string({ unit: "binary" }),
});

describe("entryCanonical", () => {
  it("is byte for byte the JCS form of the hashed fields, for any entry", () => {
    fc.assert(
      fc.property(entry, (e) => {
        const general = jcs({
          v: 1,
          orgId: e.orgId,
          seq: e.seq,
          actor: e.actor,
          action: e.action,
          subjectType: e.subjectType ?? null,
          subject: e.subject ?? null,
          data: e.data ?? {},
          createdAt: e.createdAt.toISOString(),
          prevHash: e.prevHash,
        });
        expect(entryCanonical(e)).toBe(general);
      }),
      { numRuns: 2000 },
    );
  });
});
