import type { RouteDef } from "../types";

/** The machine-readable contract (GET /v1/openapi.json) and the DID documents. */
export const docsRoutes: RouteDef[] = [];
