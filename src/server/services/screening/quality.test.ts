import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { getDb } from "../../db/client";
import { testListName } from "../../testing/screening-lists";
import { importListFiles } from "./import-files";
import { FIXTURE_DIR } from "./sandbox-lists";
import { MATCH_THRESHOLD } from "./score";
import { findMatches } from "./screen";

type Pair = { id: number; kind: string; query: { name: string; birthDate?: string; country?: string }; entryId: string; match: boolean };

/** The figures the documentation promises; the test fails when matching falls below them. */
function documentedFloors() {
  const doc = fs.readFileSync(path.resolve(process.cwd(), "docs/screening.md"), "utf8");
  const figure = (label: string) => {
    const m = new RegExp(`\\| ${label} \\| ([0-9.]+) \\|`).exec(doc);
    if (!m) throw new Error(`docs/screening.md has no "| ${label} | … |" row`);
    return Number(m[1]);
  };
  return { threshold: figure("Threshold"), precision: figure("Minimum precision"), recall: figure("Minimum recall") };
}

describe("matching quality on the labelled set", () => {
  it("keeps precision and recall at the threshold at or above the figures in docs/screening.md", async () => {
    const { pairs } = JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, "labelled-pairs.json"), "utf8")) as { pairs: Pair[] };
    expect(pairs.length).toBeGreaterThanOrEqual(300);
    expect(pairs.filter((p) => !p.match).length).toBeGreaterThanOrEqual(100);
    const floors = documentedFloors();
    expect(floors.threshold).toBe(MATCH_THRESHOLD);

    // Through the whole path (retrieval by key, then scoring) on a private copy of the fixture list.
    const db = await getDb();
    const imported = await importListFiles(db, {
      format: "ftm",
      list: testListName("quality"),
      paths: [path.join(FIXTURE_DIR, "entities.ftm.json")],
      importedBy: "system:test",
    });
    const versions = [{ id: imported.listVersionId, list: imported.list, versionHash: imported.versionHash }];
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const misses: string[] = [];
    for (const p of pairs) {
      const { matches } = await findMatches(db, p.query, { versions });
      const predicted = matches.some((m) => m.externalId === p.entryId);
      if (predicted && p.match) tp++;
      else if (predicted) fp++;
      else if (p.match) fn++;
      if (predicted !== p.match) misses.push(`#${p.id} ${p.kind}`);
    }
    const precision = tp / (tp + fp);
    const recall = tp / (tp + fn);
    console.info(
      `screening quality: precision ${precision.toFixed(4)}, recall ${recall.toFixed(4)} over ${pairs.length} pairs; wrong: ${misses.join(", ")}`,
    );
    expect(precision).toBeGreaterThanOrEqual(floors.precision);
    expect(recall).toBeGreaterThanOrEqual(floors.recall);
  }, 120_000);
});
