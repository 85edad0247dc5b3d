import { z } from "zod";
import { API_VERSION } from "../openapi";
import { reply, route } from "../route";
import type { RouteDef } from "../types";

const OpenApiDocumentView = z
  .looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "OpenApiDocument" });

/**
 * The machine-readable contract (GET /v1/openapi.json). The document describes the whole route
 * table, this route included, so the table hands it in rather than this file importing the table.
 */
export const docsRoutes = (openApiDocument: () => Record<string, unknown>): RouteDef[] => [
  route({
    method: "GET",
    path: "/v1/openapi.json",
    auth: "public",
    tag: "Documentation",
    summary: "The OpenAPI 3.1 document of this API, generated from the route table and its zod schemas.",
    response: OpenApiDocumentView,
    examples: { response: { openapi: "3.1.0", info: { title: "Bind Identity API", version: API_VERSION }, paths: {} } },
    handler: async () => reply(200, openApiDocument(), { "cache-control": "public, max-age=300" }),
  }),
];
