/**
 * A webhook receiver's handler, for any server that speaks the Fetch API (Next.js route
 * handlers, Hono, Bun, Deno…). verify.ts depends on node:crypto only: copy it from
 * src/webhooks/verify.ts into your project.
 */
import { verifyWebhook, WebhookVerificationError } from "../../src/webhooks/verify";

/** Delivery ids already handled. Deliveries are at least once: keep this in your database, not in memory. */
export type SeenDeliveries = { has(id: string): Promise<boolean> | boolean; add(id: string): Promise<unknown> | unknown };

export async function handleWebhook(request: Request, secret: string, seen: SeenDeliveries): Promise<Response> {
  // The signature covers the exact bytes received: read the raw body, never re-serialised JSON.
  const rawBody = new Uint8Array(await request.arrayBuffer());
  try {
    const delivery = verifyWebhook(rawBody, request.headers, secret);
    if (!(await seen.has(delivery.deliveryId))) {
      // Your work goes here, e.g. on "account.created" look at delivery.payload.accountDid.
      // Answer within 10 seconds: hand anything slow to a queue.
      console.log(`${delivery.event} for organization ${delivery.tenantId}`, delivery.payload);
      await seen.add(delivery.deliveryId);
    }
    // Any 2xx ends the delivery; anything else, or no answer within 10 seconds, is retried with backoff.
    return new Response(null, { status: 204 });
  } catch (err) {
    if (err instanceof WebhookVerificationError) return new Response(err.reason, { status: 401 });
    throw err;
  }
}
