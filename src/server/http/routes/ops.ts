import { z } from "zod";
import { metrics } from "../../metrics";
import * as ops from "../../services/ops/index";
import { replyText, route } from "../route";

export const opsRoutes = [
  route({
    method: "GET",
    path: "/v1/health",
    auth: "public",
    tag: "Operations",
    summary: "Liveness: the process answers.",
    response: z.object({ status: z.literal("ok") }),
    handler: async () => ({ status: "ok" }),
  }),
  route({
    method: "GET",
    path: "/v1/ready",
    auth: "public",
    tag: "Operations",
    summary: "Readiness: 200 once the database answers and every migration is applied, else 503.",
    response: z.object({ status: z.literal("ready") }),
    errors: ["NOT_READY"],
    handler: () => ops.readiness(),
  }),
  route({
    method: "GET",
    path: "/v1/whoami",
    auth: "public",
    tag: "Operations",
    summary: "The client address the service attributes to the caller (what IP allowlists compare).",
    response: z.object({ clientIp: z.string() }),
    handler: async ({ state }) => ops.whoAmI(state),
  }),
  route({
    method: "GET",
    path: "/v1/metrics",
    auth: { scope: "read" },
    tag: "Operations",
    summary: "Prometheus text exposition: requests by route template and status, latency, process metrics.",
    produces: "text/plain; version=0.0.4",
    handler: async () => {
      const m = metrics();
      return replyText(await m.registry.metrics(), m.registry.contentType);
    },
  }),
];
