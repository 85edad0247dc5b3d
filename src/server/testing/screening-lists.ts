import { randomUUID } from "node:crypto";
import { afterAll } from "vitest";
import { getDb } from "../db/client";

const made = new Set<string>();

/**
 * A list name of its own for one test, so test files running at the same time never see each
 * other's versions. The lists are switched off after the file: other files screen every active
 * list of the shared test database and should meet only the sandbox fixtures there.
 */
export function testListName(prefix = "test"): string {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  made.add(name);
  return name;
}

afterAll(async () => {
  if (made.size === 0) return;
  const db = await getDb();
  await db.screeningListVersion.updateMany({ where: { list: { in: [...made] }, active: true }, data: { active: false } });
});
