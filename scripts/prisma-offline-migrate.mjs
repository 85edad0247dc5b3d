// Offline stand-in for `prisma migrate dev|deploy|status|reset` and `prisma db push`.
// Prisma's CLI downloads a native schema engine that cannot be fetched on these machines; this
// drives the WebAssembly schema engine that ships in npm packages, through @prisma/adapter-pg.
// It reads and writes ordinary Prisma migration folders and the `_prisma_migrations` table, so
// the result is the same as the CLI's. Run it from the project root:
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/mydb node scripts/prisma-offline-migrate.mjs dev --name add_cases
//   ... deploy | dev --name X [--create-only] | push [--force] | status | reset
// The project needs these devDependencies, pinned exactly to its prisma version, e.g. for 7.10.0:
//   @prisma/migrate@7.10.0 @prisma/internals@7.10.0 @prisma/driver-adapter-utils@7.10.0
//   @prisma/schema-engine-wasm@<the version @prisma/internals depends on> pg @prisma/adapter-pg
// Options: --schema prisma/schema (the folder of .prisma files, or one file) --migrations prisma/migrations
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

// Resolve every package from the project in the current folder, not from this file's folder.
const require = createRequire(path.join(process.cwd(), "package.json"));
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);
const runtime = await load("@prisma/schema-engine-wasm/schema_engine_bg");
const { bindMigrationAwareSqlAdapterFactory } = await load("@prisma/driver-adapter-utils");
const internals = (await load("@prisma/internals")).default ?? (await load("@prisma/internals"));
const prismaMigrate = (await load("@prisma/migrate")).default ?? (await load("@prisma/migrate"));
const { loadSchemaContext, createSchemaPathInput } = internals;
const { Migrate, SchemaEngineWasm } = prismaMigrate;

let SchemaEngineClass;
async function loadWasmSchemaEngine() {
  if (SchemaEngineClass) return SchemaEngineClass;
  const pkgDir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
  const bytes = await fs.readFile(path.join(pkgDir, "schema_engine_bg.wasm"));
  const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
    "./schema_engine_bg.js": runtime,
  });
  runtime.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  SchemaEngineClass = runtime.SchemaEngine;
  return SchemaEngineClass;
}

/**
 * @param {object} opts
 * @param {import('@prisma/driver-adapter-utils').SqlMigrationAwareDriverAdapterFactory} opts.adapterFactory
 * @param {string} [opts.schemaPath]
 * @param {string} [opts.migrationsDir]
 */
export async function createMigrate({ adapterFactory, schemaPath = "prisma/schema", migrationsDir = "prisma/migrations" }) {
  const schemaContext = await loadSchemaContext({
    schemaPath: createSchemaPathInput({ schemaPathFromArgs: schemaPath, baseDir: process.cwd() }),
    printLoadMessage: false,
  });
  const bound = bindMigrationAwareSqlAdapterFactory(adapterFactory);
  const Engine = await loadWasmSchemaEngine();
  const debug = process.env.DEBUG_SCHEMA_ENGINE ? (m) => console.error("[schema-engine]", m) : () => {};
  const wasm = await Engine.new({ datamodels: schemaContext.schemaFiles }, debug, bound);
  const engine = new SchemaEngineWasm({ engine: wasm, errorRegistry: bound.errorRegistry });
  const migrate = new Migrate({
    engine,
    schemaContext,
    migrationsDirPath: path.resolve(migrationsDir),
    schemaFilter: { externalTables: [], externalEnums: [] },
  });
  return migrate;
}

// The Postgres schema describer reads catalog columns of the internal type "char"
// (oid 18, e.g. pg_constraint.contype) which @prisma/adapter-pg cannot map; the engine wants
// ColumnType.Character for them. We report them to adapter-pg as text and fix the column type afterwards.
const CHAR_OID = 18;
const TEXT_OID = 25;
const CHARACTER = 6; // ColumnTypeEnum.Character
const charColumnsByRows = new WeakMap();

function wrapQueryable(q) {
  return new Proxy(q, {
    get(target, prop, receiver) {
      if (prop === "queryRaw") {
        return async (query) => {
          const res = await target.queryRaw(query);
          const cols = charColumnsByRows.get(res.rows);
          if (cols) for (const i of cols) res.columnTypes[i] = CHARACTER;
          if (process.env.DEBUG_WASM_MIGRATE)
            console.error(
              query.sql.slice(0, 80).replace(/\s+/g, " "),
              JSON.stringify(res.columnTypes),
              JSON.stringify(res.rows.slice(0, 2)),
            );
          return res;
        };
      }
      // adapter-pg's executeScript splits the script on every ";", which breaks a migration
      // with a ";" inside a comment or a function body ($$ … $$). PostgreSQL's simple query
      // protocol runs a whole multi-statement script as one string, as the native engine does.
      if (prop === "executeScript" && typeof target.underlyingDriver === "function") {
        return async (script) => {
          try {
            await target.underlyingDriver().query(script);
          } catch (error) {
            if (typeof target.onError === "function") target.onError(error);
            throw error;
          }
        };
      }
      if (prop === "startTransaction") {
        return async (...a) => wrapQueryable(await target.startTransaction(...a));
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

export async function createMigrationPgAdapter(connectionString) {
  const { PrismaPg } = await load("@prisma/adapter-pg");
  const pg = (await load("pg")).default;
  const fix = (res) => {
    const cols = [];
    (res?.fields ?? []).forEach((f, i) => {
      if (f.dataTypeID === CHAR_OID) {
        f.dataTypeID = TEXT_OID;
        cols.push(i);
      }
    });
    if (cols.length && res.rows) charColumnsByRows.set(res.rows, cols);
    return res;
  };
  class RemappingClient extends pg.Client {
    query(...args) {
      const cb = args[args.length - 1];
      if (typeof cb === "function") {
        // pg-pool calls client.query(config, values, callback)
        args[args.length - 1] = (err, res) => cb(err, err ? res : fix(res));
        return super.query(...args);
      }
      const r = super.query(...args);
      return r && typeof r.then === "function" ? r.then(fix) : r;
    }
  }
  // Pass discrete fields, not connectionString: adapter-pg builds the shadow DB pool as
  // { ...pool.options, database }, and pg lets connectionString override `database`.
  const u = new URL(connectionString);
  const pool = new pg.Pool({
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || "postgres"),
    password: u.password ? decodeURIComponent(u.password) : undefined,
    database: decodeURIComponent(u.pathname.slice(1) || "postgres"),
    Client: RemappingClient,
    max: 2,
    idleTimeoutMillis: 1000,
    allowExitOnIdle: true,
  });
  const factory = new PrismaPg(pool, { disposeExternalPool: true });
  return {
    pool,
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => wrapQueryable(await factory.connect()),
    connectToShadowDb: async () => wrapQueryable(await factory.connectToShadowDb()),
  };
}

async function defaultAdapterFactory() {
  if (!process.env.DATABASE_URL) throw new Error("DATABASE_URL is not set");
  return createMigrationPgAdapter(process.env.DATABASE_URL);
}

async function main() {
  const [cmd = "deploy", ...rest] = process.argv.slice(2);
  const nameIdx = rest.indexOf("--name");
  const name = nameIdx >= 0 ? rest[nameIdx + 1] : "migration";
  const adapterFactory = await defaultAdapterFactory();
  const opt = (flag, dflt) => (rest.includes(flag) ? rest[rest.indexOf(flag) + 1] : dflt);
  const migrate = await createMigrate({
    adapterFactory,
    schemaPath: opt("--schema", "prisma/schema"),
    migrationsDir: opt("--migrations", "prisma/migrations"),
  });
  try {
    switch (cmd) {
      case "deploy": {
        const { appliedMigrationNames } = await migrate.applyMigrations();
        console.log(appliedMigrationNames.length ? `applied: ${appliedMigrationNames.join(", ")}` : "No pending migrations to apply.");
        break;
      }
      case "dev": {
        // like `prisma migrate dev`: apply pending, then create (and apply) a new migration if the schema changed
        const diag = await migrate.devDiagnostic();
        if (diag.action.tag === "reset") throw new Error(`migrate dev needs a reset: ${diag.action.reason}`);
        const { appliedMigrationNames } = await migrate.applyMigrations();
        if (appliedMigrationNames.length) console.log(`applied: ${appliedMigrationNames.join(", ")}`);
        const { generatedMigrationName } = await migrate.createMigration({
          draft: rest.includes("--create-only"),
          schema: migrate.getPrismaSchema(),
          migrationName: name,
        });
        if (!generatedMigrationName) console.log("Already in sync, no schema change.");
        else if (rest.includes("--create-only")) console.log(`created: ${generatedMigrationName}`);
        else console.log(`created and applied: ${(await migrate.applyMigrations()).appliedMigrationNames.join(", ")}`);
        break;
      }
      case "push": {
        const r = await migrate.push({ force: rest.includes("--force") });
        console.log(`db push: ${r.executedSteps} steps`, r.warnings.length ? r.warnings : "", r.unexecutable.length ? r.unexecutable : "");
        break;
      }
      case "status": {
        console.log(JSON.stringify(await migrate.diagnoseMigrationHistory({ optInToShadowDatabase: false }), null, 2));
        break;
      }
      case "reset": {
        await migrate.reset();
        const { appliedMigrationNames } = await migrate.applyMigrations();
        console.log(`reset; applied: ${appliedMigrationNames.join(", ")}`);
        break;
      }
      default:
        throw new Error(`unknown command ${cmd}`);
    }
  } finally {
    await migrate.stop().catch(() => {});
    await adapterFactory.pool?.end().catch(() => {});
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
