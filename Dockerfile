# syntax=docker/dockerfile:1
# One image for every role, chosen by command (docs/operations.md, "Running several instances"):
#   app:       node --import tsx src/server/main.ts   (the default; /v1, DID documents and the console)
#   worker:    node --import tsx src/server/worker.ts (background jobs; app instances get BI_RUN_JOBS=false)
#   migration: node --import tsx scripts/db-migrate.ts (pending migrations, once, before a rollout)
# These are `npm run serve`, `npm run worker` and `npm run db:migrate` without npm and tsx's own
# wrapper processes in between, so SIGTERM reaches the service itself (docs/operations.md,
# "Starting and stopping").
# Settings and secrets come from the platform at run time; nothing secret is built into the image.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# What `npm ci`'s postinstall (prisma generate) needs, before the rest of the tree, so the layer
# is reused until the dependencies or the schema change.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts/no-schema-engine.sh ./scripts/
RUN npm ci --no-audit --no-fund

FROM deps AS build
# A C compiler for the native digest module that audit verification hashes with
# (scripts/build-native.mjs, against this Node's headers); the runtime image needs none.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
COPY . .
RUN node scripts/build-native.mjs && npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    BI_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    BI_DATA_DIR=/tmp/bi-data
WORKDIR /app
COPY --from=build --chown=root:root /app /app
# The service runs as the unprivileged `node` user and cannot write to its own code.
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/v1/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "tsx", "src/server/main.ts"]
