// `npm run check:test-homes` (part of `npm run lint`): a test of one domain sits beside that domain
// (src/server/services/<domain>/<operation>.test.ts, or beside the module it tests); tests/ keeps
// only the suites that cross domains, listed here each with why. A test file in tests/ that is not
// listed fails, and so does a listed one that no longer exists.
// Usage: tsx scripts/check-test-homes.ts [root]   (root defaults to the working directory)
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The whole-service suites that live in tests/, relative to it, and what they cross. */
export const CROSS_DOMAIN_SUITES: Record<string, string> = {
  "alert-rules.test.ts": "the alert rules over the metrics of every domain, through promtool",
  "boundaries.test.ts": "the layer rules of every domain (dependency-cruiser on a bad tree)",
  "test-homes.test.ts": "this check, on a tree with a misplaced test",
  "console-details.test.ts": "one tenant's actions read back through the detail reads of people, accounts, API keys, audit and dashboard",
  "console-isolation.test.ts": "security: every console procedure that names a record, with another organization's record",
  "crash.test.ts": "reliability: SIGKILL under mixed writes of accounts, org, kyc and aml",
  "deploy-files.test.ts": "the Dockerfile, compose and Kubernetes files against the topology's roles",
  "docs-guides.test.ts": "the API guides: quoted files, links and examples",
  "docs-quickstart.test.ts": "the quickstart run as written",
  "examples.test.ts": "the TypeScript examples tenants copy, against the whole /v1 API",
  "generated-input-1.test.ts": "reliability: generated input on every other operation and console procedure (tests/generated-input.ts)",
  "generated-input-2.test.ts": "reliability: generated input on the other half (tests/generated-input.ts)",
  "kyc-bind.test.ts": "a tenant's whole path: KYC, create, bind, credential, unlock",
  "locking.test.ts": "reliability: org and accounts writers on one audit chain at once",
  "metrics.test.ts": "the request metrics of every route, tenant and operator",
  "openapi.test.ts": "the OpenAPI document of every route, byte for byte",
  "openapi-lint.test.ts": "the OpenAPI document through Redocly's rules",
  "races.test.ts": "reliability: every single-use thing of every domain under 20 concurrent requests",
  "refused-text.test.ts": "text PostgreSQL refuses, in every kind of input and on the console",
  "response-shapes.test.ts": "answers of routes of several domains against their documented schemas",
  "restore-drill.test.ts": "operations: pg_dump and pg_restore of the whole database",
  "secrets-scan.test.ts": "reliability: secrets and personal data of a whole run in logs, errors and metrics",
  "security.test.ts": "security: every route with every wrong credential and another organization's ids",
  "smoke.test.ts": "the service started as the README says",
  "topology/topology.test.ts": "several instances, a worker and a proxy (npm run test:topology)",
};

const WHERE =
  "A test of one domain goes beside it: src/server/services/<domain>/<operation>.test.ts (routes included), " +
  "src/server/platform/ or the module it tests; a script's test goes beside the code it checks. " +
  "A suite that really crosses domains is added, with why, to CROSS_DOMAIN_SUITES in scripts/check-test-homes.ts.";

function testFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const file = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (file !== "fixtures") out.push(...testFiles(dir, file));
    } else if (/\.test\.tsx?$/.test(entry.name)) out.push(file);
  }
  return out;
}

/** The domains whose code a test file imports (a hint of where it belongs). */
function domainsImported(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/from\s+["'](?:@\/|(?:\.\.\/)+src\/)server\/services\/([^/"']+)/g)) found.add(m[1]!);
  return [...found];
}

export function checkTestHomes(root: string): string[] {
  const testsDir = path.join(root, "tests");
  const problems: string[] = [];
  const present = fs.existsSync(testsDir) ? testFiles(testsDir) : [];
  for (const file of present.sort()) {
    if (Object.hasOwn(CROSS_DOMAIN_SUITES, file)) continue;
    const domains = domainsImported(fs.readFileSync(path.join(testsDir, file), "utf8"));
    const hint = domains.length === 1 ? ` It imports only services/${domains[0]}: src/server/services/${domains[0]}/ is its home.` : "";
    problems.push(`tests/${file} is not a cross-domain suite.${hint}`);
  }
  for (const file of Object.keys(CROSS_DOMAIN_SUITES)) {
    if (!present.includes(file))
      problems.push(`tests/${file} is listed in CROSS_DOMAIN_SUITES but does not exist: remove it from the list.`);
  }
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const problems = checkTestHomes(path.resolve(process.argv[2] ?? "."));
  if (problems.length) {
    for (const p of problems) console.error(`✘ ${p}`);
    console.error(`\n${WHERE}`);
    process.exit(1);
  }
  console.log(`✔ tests/ holds only the ${Object.keys(CROSS_DOMAIN_SUITES).length} cross-domain suites`);
}
