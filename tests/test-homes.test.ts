import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { CROSS_DOMAIN_SUITES } from "../scripts/check-test-homes";

// `npm run lint` runs scripts/check-test-homes.ts over the real tree. This proves the check bites:
// the same script on small trees with a misplaced test, as tests/boundaries.test.ts does for imports.
const SCRIPT = path.resolve(import.meta.dirname, "../scripts/check-test-homes.ts");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A tree holding every listed cross-domain suite, minus `without`, plus `extra` files. */
function tree(extra: Record<string, string>, without: string[] = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-test-homes-"));
  dirs.push(dir);
  const files = { ...Object.fromEntries(Object.keys(CROSS_DOMAIN_SUITES).map((f) => [`tests/${f}`, ""])), ...extra };
  for (const w of without) delete files[`tests/${w}`];
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

async function check(root: string) {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", SCRIPT, root]);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, out: e.stderr };
  }
}

const webhookTest =
  'import { runRecoverJobs } from "@/server/services/webhooks";\nimport { testServer } from "@/server/testing/harness";\n';

describe("the test-homes check", () => {
  it("passes the real tree", async () => {
    const res = await check(path.resolve(import.meta.dirname, ".."));
    expect(res.code, res.out).toBe(0);
    expect(res.out).toContain(`tests/ holds only the ${Object.keys(CROSS_DOMAIN_SUITES).length} cross-domain suites`);
  });

  it("fails a one-domain test put in tests/, names the domain it imports and says where domain tests go", async () => {
    const res = await check(tree({ "tests/webhooks-new.test.ts": webhookTest }));
    expect(res.code).toBe(1);
    expect(res.out).toContain(
      "tests/webhooks-new.test.ts is not a cross-domain suite. It imports only services/webhooks: src/server/services/webhooks/ is its home.",
    );
    expect(res.out).toContain("src/server/services/<domain>/<operation>.test.ts");
  });

  it("fails a test in tests/ that imports no domain at all (driven over HTTP), and one in a subfolder", async () => {
    const res = await check(
      tree({ "tests/rotation.test.ts": 'import { client } from "@/server/testing/harness";\n', "tests/kyc/x.test.ts": "" }),
    );
    expect(res.code).toBe(1);
    expect(res.out).toContain("tests/rotation.test.ts is not a cross-domain suite.");
    expect(res.out).toContain("tests/kyc/x.test.ts is not a cross-domain suite.");
  });

  it("fails a listed suite that no longer exists", async () => {
    const res = await check(tree({}, ["locking.test.ts"]));
    expect(res.code).toBe(1);
    expect(res.out).toContain("tests/locking.test.ts is listed in CROSS_DOMAIN_SUITES but does not exist");
  });

  it("lets the same test sit beside its domain, helpers and fixtures sit in tests/", async () => {
    const res = await check(
      tree({
        "src/server/services/webhooks/recover.test.ts": webhookTest,
        "tests/docs-markdown.ts": "export const x = 1;\n",
        "tests/fixtures/a.test.ts": "",
      }),
    );
    expect(res.code, res.out).toBe(0);
  });
});
