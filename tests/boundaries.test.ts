import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The layer rules of ARCHITECTURE.md are checked by `npm run check:boundaries` over the real tree.
// This proves the rules bite: a small tree of deliberate bad imports, cruised with the same rules.
const rules = createRequire(import.meta.url)("../.dependency-cruiser.cjs") as { forbidden: IForbiddenRuleType[] };

const TREE: Record<string, string> = {
  "src/server/http/pipeline.ts": "export const pipeline = 1;\n",
  "src/server/services/demo/index.ts": 'export { work } from "./work";\n',
  "src/server/services/demo/work.ts": "export const work = 1;\n",
  // A domain importing the /v1 door.
  "src/server/services/demo/uses-http.ts": 'import { pipeline } from "../../http/pipeline";\nexport const bad = pipeline;\n',
  // Another domain reaching past demo's index into its internals.
  "src/server/services/other/index.ts": 'import { work } from "../demo/work";\nexport const other = work;\n',
  // A door doing the same, and one doing it right.
  "src/server/http/routes.ts":
    'import { work } from "../services/demo/work";\nimport { other } from "../services/other";\nexport const r = work + other;\n',
  // platform/ depending on a domain.
  "src/server/platform/helper.ts": 'import { work } from "../services/demo";\nexport const h = work;\n',
  // Browser code loading server code (a type-only import is allowed).
  "src/components/widget.ts":
    'import { work } from "../server/services/demo";\nimport type { other } from "../server/services/other";\nexport const w: typeof other = work;\n',
  // A page's own component doing the same.
  "src/app/console/demo/_components/panel.tsx": 'import { work } from "../../../../server/services/demo";\nexport const p = work;\n',
  // An import circle.
  "src/server/jobs/a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
  "src/server/jobs/b.ts": 'import { a } from "./a";\nexport const b = () => a;\n',
};

let dir: string;
let result: ICruiseResult;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-boundaries-"));
  for (const [file, text] of Object.entries(TREE)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const out = await cruise(["src"], {
      validate: true,
      ruleSet: { forbidden: rules.forbidden },
      tsPreCompilationDeps: true,
      outputType: "json",
    });
    result = (typeof out.output === "string" ? JSON.parse(out.output) : out.output) as ICruiseResult;
  } finally {
    process.chdir(cwd);
  }
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const violations = () => result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);

describe("the boundary check", () => {
  it("fails a domain that imports the http/ door", () => {
    expect(violations()).toContain("domains-never-import-doors: src/server/services/demo/uses-http.ts -> src/server/http/pipeline.ts");
  });

  it("fails imports past a domain's index, from another domain and from a door", () => {
    expect(violations()).toContain(
      "other-domain-only-through-index: src/server/services/other/index.ts -> src/server/services/demo/work.ts",
    );
    expect(violations()).toContain("domain-only-through-index: src/server/http/routes.ts -> src/server/services/demo/work.ts");
  });

  it("fails platform/ depending on a domain, and browser code loading server code", () => {
    expect(violations()).toContain("platform-imports-no-domain: src/server/platform/helper.ts -> src/server/services/demo/index.ts");
    expect(violations()).toContain("browser-code-imports-no-server: src/components/widget.ts -> src/server/services/demo/index.ts");
    expect(violations()).toContain(
      "browser-code-imports-no-server: src/app/console/demo/_components/panel.tsx -> src/server/services/demo/index.ts",
    );
  });

  it("fails an import circle", () => {
    expect(violations().some((v) => v.startsWith("no-circular: src/server/jobs/"))).toBe(true);
  });

  it("lets a door use a domain's index, and browser code import server types", () => {
    expect(violations().filter((v) => v.includes("-> src/server/services/other/index.ts"))).toEqual([]);
    expect(violations().filter((v) => v.includes("src/server/http/routes.ts -> src/server/services/other"))).toEqual([]);
  });
});
