import { defineConfig } from "prisma/config";

// Prisma 7 reads the connection from here, not from the schema. The URL only matters to
// CLI commands that connect; the app builds its own adapter (src/server/db/client.ts).
export default defineConfig({
  schema: "prisma/schema",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres" },
});
