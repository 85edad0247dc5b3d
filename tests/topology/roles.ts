/**
 * The processes of a multi-instance deployment, as every way of running it starts them: the
 * Dockerfile, compose.yaml and the Kubernetes manifests in deploy/k8s (checked against this by
 * tests/deploy-files.test.ts), and the loopback topology the tests start.
 */
export const ROLES = {
  migrate: { command: ["node", "--import", "tsx", "scripts/db-migrate.ts"], script: "db:migrate", env: {} },
  app: {
    command: ["node", "--import", "tsx", "src/server/main.ts"],
    script: "serve",
    env: { BI_RUN_JOBS: "false", BI_SHUTDOWN_DELAY_MS: "5000", BI_SHUTDOWN_GRACE_MS: "20000" },
  },
  worker: { command: ["node", "--import", "tsx", "src/server/worker.ts"], script: "worker", env: {} },
} as const;

export type Role = keyof typeof ROLES;
