import { disconnectDb, migrateDatabase } from "../src/server/db/client";

// `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database.
const applied = await migrateDatabase();
console.log(applied.length ? `Applied: ${applied.join(", ")}` : "Database is up to date.");
await disconnectDb();
