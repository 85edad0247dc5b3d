#!/usr/bin/env bash
# Prepares a checkout of earlier code (default commit e5740a5, before the read-path work of docs/performance.md) in a temporary folder,
# so `npm run bench -- --dir <folder> --label before` measures it on the same machine, database
# server and load generator as the current code. Its plan and per-IP limits are lifted by a patch
# (the old code has no BI_RATE_LIMIT_FACTOR), so every answer is a 200 as in the figures of docs/performance.md.
set -euo pipefail
rev="${1:-e5740a5}"
out="${2:-/tmp/bi-before-$rev}"
here="$(cd "$(dirname "$0")/.." && pwd)"
rm -rf "$out"
mkdir -p "$out"
git -C "$here" archive "$rev" | tar -x -C "$out"
ln -s "$here/node_modules" "$out/node_modules"
(cd "$out" && PRISMA_SCHEMA_ENGINE_BINARY=./scripts/no-schema-engine.sh npx prisma generate >/dev/null)
# Code that already reads BI_RATE_LIMIT_FACTOR (as the bench sets it) needs no patch.
if ! grep -rqs "BI_RATE_LIMIT_FACTOR" "$out/src/server/http/middleware/rate-limit.ts"; then
  sed -i 's/export const IP_BACKSTOP_PER_MINUTE = 6000;/export const IP_BACKSTOP_PER_MINUTE = 6000 * 100000;/' "$out/src/server/http/pipeline.ts"
  sed -i 's/PLANS\[plan\].limits.requestsPerMinute;/PLANS[plan].limits.requestsPerMinute * 100000;/' "$out/src/server/plans.ts"
  grep -q "6000 \* 100000" "$out/src/server/http/pipeline.ts"
  grep -q "requestsPerMinute \* 100000" "$out/src/server/plans.ts"
fi
echo "$out"
