/**
 * A typed Bind Identity client for a tenant's backend (Node.js 20+), built on openapi-fetch and
 * the types generated from /v1/openapi.json (schema.d.ts; in your project:
 * `npx openapi-typescript https://<your service>/v1/openapi.json -o schema.d.ts`).
 */
import { createHash, createHmac } from "node:crypto";
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema.d.ts";

export type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];

export type ClientOptions = {
  /** The service's origin, e.g. "https://id.example.com" (paths already start with /v1). */
  baseUrl: string;
  /** An API key: `bi_test_…` in the sandbox, `bi_…` in production. Server-side only. */
  apiKey: string;
  /** The secret from POST /v1/admin/signing/enable, once your organization requires signed requests. */
  signingSecret?: string;
};

export function createBindIdentityClient({ baseUrl, apiKey, signingSecret }: ClientOptions) {
  const client = createClient<paths>({ baseUrl });
  client.use(bearer(apiKey));
  if (signingSecret) client.use(signRequests(signingSecret));
  return client;
}

export type BindIdentityClient = ReturnType<typeof createBindIdentityClient>;

/** Every request carries the API key. */
const bearer = (apiKey: string): Middleware => ({
  onRequest({ request }) {
    request.headers.set("Authorization", `Bearer ${apiKey}`);
    return request;
  },
});

/**
 * Request signing, version 2: X-BI-Signature is the hex HMAC-SHA256, keyed with the signing
 * secret, of `{timestamp}.{METHOD}.{path and query as sent}.{hex SHA-256 of the body bytes}`,
 * e.g. for a GET (empty body):
 *   1767225600000.GET./v1/accounts/name-available?name=alice.e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
 * The timestamp is Unix milliseconds within 5 minutes of the server's clock, and each signature
 * is accepted once: sign every request afresh, retries included.
 */
const signRequests = (secret: string): Middleware => ({
  async onRequest({ request }) {
    const { pathname, search } = new URL(request.url);
    const body = Buffer.from(await request.clone().arrayBuffer());
    const timestamp = String(Date.now());
    const bodyHash = createHash("sha256").update(body).digest("hex");
    const canonical = `${timestamp}.${request.method}.${pathname}${search}.${bodyHash}`;
    request.headers.set("X-BI-Timestamp", timestamp);
    request.headers.set("X-BI-Signature-Version", "2");
    request.headers.set("X-BI-Signature", createHmac("sha256", secret).update(canonical).digest("hex"));
    return request;
  },
});

/** The answer's data, or an Error with the envelope's code, message and correlation id (quote it to support). */
export function dataOf<T>(result: { data?: T; error?: ErrorEnvelope; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const e = result.error?.error;
  const retry = result.response.headers.get("Retry-After");
  throw new Error(
    e
      ? `${result.response.status} ${e.code}: ${e.message}${retry ? ` (retry in ${retry} s)` : ""} [${e.correlationId}]`
      : `HTTP ${result.response.status}`,
  );
}
