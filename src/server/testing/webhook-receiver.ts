import type http from "node:http";
import { afterAll } from "vitest";
import { startFakeServer } from "./fake-http";

export type ReceivedDelivery = {
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The exact bytes received. */
  raw: Buffer;
  deliveryId: string;
};

/** What the receiver answers to the n-th request (0-based): a status, or "hang" to never answer. */
export type ReceiverBehaviour = (
  n: number,
  req: ReceivedDelivery,
) => number | "hang" | { status: number; headers?: Record<string, string>; delayMs?: number; body?: string };

export type Receiver = {
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** Resolves once `count` requests arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
};

const open: Receiver[] = [];
afterAll(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

/** A real HTTP receiver on a loopback port, recording every request with its raw body. */
export async function startReceiver(behaviour: ReceiverBehaviour = () => 200, host = "127.0.0.1"): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const waiters: Array<() => void> = [];
  const server = await startFakeServer((r) => {
    const rec: ReceivedDelivery = {
      at: Date.now(),
      method: r.method,
      path: r.path,
      headers: r.headers,
      raw: r.bytes,
      deliveryId: String(r.headers["x-bi-delivery-id"] ?? ""),
    };
    const n = received.length;
    received.push(rec);
    for (const w of waiters.splice(0)) w();
    const answer = behaviour(n, rec);
    if (answer === "hang") return null;
    const { status, headers, delayMs, body } =
      typeof answer === "number" ? { status: answer, headers: {}, delayMs: 0, body: "ok" } : answer;
    const reply = { status, headers, body: body ?? "ok" };
    return delayMs ? new Promise<typeof reply>((done) => setTimeout(() => done(reply), delayMs)) : reply;
  }, host);
  const receiver: Receiver = {
    url: `${server.url}/hook`,
    port: server.port,
    received,
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
      return received.slice(0, count);
    },
    close: server.close,
  };
  open.push(receiver);
  return receiver;
}
