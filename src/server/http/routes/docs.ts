import { z } from "zod";
import { openApiDocument } from "../openapi";
import { reply, route } from "../route";
import type { RouteDef } from "../types";

const OpenApiDocumentView = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});

/** The machine-readable contract (GET /v1/openapi.json) and the DID documents. */
export const docsRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/openapi.json",
    auth: "public",
    tag: "Documentation",
    summary: "The OpenAPI 3.1 document of this API, generated from the route table and its zod schemas.",
    response: OpenApiDocumentView,
    handler: async () => reply(200, await openApiDocument(), { "cache-control": "public, max-age=300" }),
  }),
];
