import { z } from "zod";
import { metrics, tenantMetricsText } from "../../metrics";
import * as ops from "../../services/ops/index";
import { replyText, route } from "../route";

export const opsRoutes = [
  route({
    method: "GET",
    path: "/v1/health",
    auth: "public",
    tag: "Operations",
    summary: "Liveness: the process answers.",
    response: z.object({ status: z.literal("ok") }).meta({ id: "Health" }),
    handler: async () => ({ status: "ok" }),
  }),
  route({
    method: "GET",
    path: "/v1/ready",
    auth: "public",
    tag: "Operations",
    summary: "Readiness: 200 once the database answers and every migration is applied, else 503.",
    response: z.object({ status: z.literal("ready") }).meta({ id: "Readiness" }),
    errors: ["NOT_READY"],
    handler: ({ state }) => ops.readiness({ draining: !!state.draining }),
  }),
  route({
    method: "GET",
    path: "/v1/whoami",
    auth: "public",
    tag: "Operations",
    summary: "The client address the service attributes to the caller (what IP allowlists compare).",
    response: z.object({ clientIp: z.string() }).meta({ id: "WhoAmI" }),
    handler: async ({ state }) => ops.whoAmI(state),
  }),
  route({
    method: "GET",
    path: "/v1/metrics",
    auth: { scope: "read" },
    tag: "Operations",
    summary:
      "Prometheus text exposition of the calling organization's own requests: counts by route template and status, and latency. The platform's metrics are the operator's (BI_METRICS_PORT).",
    produces: "text/plain; version=0.0.4",
    handler: async ({ ctx }) => replyText(await tenantMetricsText(ctx.org.id), metrics().registry.contentType),
  }),
];
