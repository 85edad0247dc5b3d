#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded on these machines.
# `prisma generate` only needs the path to exist; migrations go through
# scripts/prisma-offline-migrate.mjs (create) and src/server/db/migrate.ts (apply).
echo "The native Prisma schema engine is not available here; see docs/decisions.md (migrations)." >&2
exit 1
