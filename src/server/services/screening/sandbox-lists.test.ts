import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { describe, expect, it } from "vitest";
import { PrismaClient } from "@/generated/prisma/client.ts";
import { applyMigrations } from "../../db/migrate";
import { nameTokens } from "./normalize";
import { retrieveCandidates } from "./retrieval";
import { resetSandboxListsMemo } from "./sandbox-lists";
import { MATCH_THRESHOLD } from "./score";
import { screenPerson } from "./screen";

describe("sandbox fixture lists on the embedded database", () => {
  it("load inside the caller's transaction at the first screen (one connection: no second transaction), and roll back with it", async () => {
    const lite = new PGlite();
    await applyMigrations({
      query: async (t, p) => (await lite.query(t, p as unknown[])).rows as never[],
      exec: async (t) => void (await lite.exec(t)),
    });
    const db = new PrismaClient({ adapter: new PrismaPGlite(lite) });
    try {
      resetSandboxListsMemo();
      const orgId = "00000000-0000-4000-8000-000000000001";
      const ivan = { orgId, subjectRef: "did:test:ivan", name: "Ivan Testovich Petrenko", birthDate: "1961-04-12", country: "UA" };
      let screenedInside = false;
      await db
        .$transaction(async (tx) => {
          expect((await screenPerson(tx, ivan)).severity).toBe("critical");
          screenedInside = true;
          throw new Error("approval rolled back");
        })
        .catch((e: Error) => {
          if (e.message !== "approval rolled back") throw e;
        });
      expect(screenedInside).toBe(true);
      expect(await db.screeningListVersion.count()).toBe(0);
      const out = await db.$transaction((tx) => screenPerson(tx, ivan), { timeout: 60_000 });
      expect(out).toMatchObject({ sanctions: true, severity: "critical" });
      const lists = await db.screeningListVersion.findMany({ where: { active: true }, orderBy: { list: "asc" } });
      expect(lists.map((l) => [l.list, l.importedBy])).toEqual([
        ["account-labels", "system:sandbox-fixtures"],
        ["ofac-sdn", "system:sandbox-fixtures"],
        ["opensanctions", "system:sandbox-fixtures"],
      ]);
      // The narrow read (retrieval.ts: the reach test in SQL) on the embedded database too.
      const read = await db.$transaction((tx) =>
        retrieveCandidates(tx, {
          versionIds: lists.filter((l) => l.list !== "account-labels").map((l) => l.id),
          tokens: nameTokens("Ivan Testovich Petrenko"),
          threshold: MATCH_THRESHOLD,
          readAllUpTo: 0,
        }),
      );
      expect(read.map((r) => r.externalId)).toContain("fx-ivan-petrenko");
      expect(read.map((r) => r.name).every((n) => /petrenko/i.test(n))).toBe(true);
    } finally {
      await db.$disconnect();
      await lite.close();
    }
  }, 60_000);
});
