/**
 * The layer rules of ARCHITECTURE.md, checked on every `npm test` (`npm run check:boundaries`).
 * Paths are relative to the repository root. Test code (`*.test.ts`, `src/server/testing/`,
 * `tests/`, `bench/`, `e2e/`) may reach into a domain's internals; production code may not.
 */
const TEST_CODE = ["\\.test\\.tsx?$", "^src/server/testing/", "^tests/", "^bench/", "^e2e/"];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import circles make load order matter and hide which module depends on which: break them.",
      from: {},
      to: { circular: true },
    },
    {
      name: "domain-only-through-index",
      severity: "error",
      comment: "Outside a domain, import only its index.ts: the index is the domain's public surface.",
      from: { pathNot: ["^src/server/services/", ...TEST_CODE] },
      to: { path: "^src/server/services/[^/]+/.+", pathNot: "^src/server/services/[^/]+/index\\.ts$" },
    },
    {
      name: "other-domain-only-through-index",
      severity: "error",
      comment: "A domain reaches another domain only through that domain's index.ts.",
      from: { path: "^src/server/services/([^/]+)/", pathNot: TEST_CODE },
      to: { path: "^src/server/services/[^/]+/.+", pathNot: ["^src/server/services/$1/", "^src/server/services/[^/]+/index\\.ts$"] },
    },
    {
      name: "domains-never-import-doors",
      severity: "error",
      comment: "Business rules do not know how they are called: no http/, api/, jobs/, auth/ or app/ from a domain.",
      from: { path: "^src/server/services/", pathNot: TEST_CODE },
      to: {
        path: ["^src/server/(http|api|jobs|auth)/", "^src/app/", "^src/components/", "^src/trpc/", "^src/server/(main|app|worker)\\.ts$"],
      },
    },
    {
      name: "platform-imports-no-domain",
      severity: "error",
      comment: "platform/ is what every domain uses; it cannot depend on any of them.",
      from: { path: "^src/server/platform/", pathNot: TEST_CODE },
      to: { path: ["^src/server/services/", "^src/server/(http|api|jobs|auth)/"] },
    },
    {
      name: "browser-code-imports-no-server",
      severity: "error",
      comment:
        "Components (shared, or a page's own under _components/), the tRPC client and pages run in the browser: they may import server types, never server code (their tests, run in Node, may).",
      from: {
        path: ["^src/components/", "^src/trpc/", "^src/app/.+/page\\.tsx$", "^src/app/page\\.tsx$", "^src/app/.+/_components/"],
        pathNot: TEST_CODE,
      },
      to: { path: "^src/server/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "lib-is-self-contained",
      severity: "error",
      comment: "src/lib holds what browser and server share (roles, scopes): it imports nothing else of ours.",
      from: { path: "^src/lib/" },
      to: { path: "^src/", pathNot: "^src/lib/" },
    },
    {
      name: "no-test-code-in-production",
      severity: "error",
      comment: "Production code never loads test helpers, fakes or the test runner.",
      from: { path: "^(src|scripts)/", pathNot: TEST_CODE },
      to: { path: ["^src/server/testing/", "\\.test\\.tsx?$", "(^|/)node_modules/(vitest|@vitest|fast-check|@playwright)/"] },
    },
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import that resolves to nothing is a typo or a missing dependency.",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["^src/generated/", "^\\.next/", "^node_modules/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    skipAnalysisNotInRules: true,
  },
};
