import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll } from "vitest";

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
) => number | "hang" | { status: number; headers?: Record<string, string>; delayMs?: number };

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
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rec: ReceivedDelivery = {
        at: Date.now(),
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        raw: Buffer.concat(chunks),
        deliveryId: String(req.headers["x-bi-delivery-id"] ?? ""),
      };
      const n = received.length;
      received.push(rec);
      for (const w of waiters.splice(0)) w();
      const answer = behaviour(n, rec);
      if (answer === "hang") return;
      const { status, headers, delayMs } = typeof answer === "number" ? { status: answer, headers: {}, delayMs: 0 } : answer;
      const reply = () => res.writeHead(status, headers).end("ok");
      if (delayMs) setTimeout(reply, delayMs);
      else reply();
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  const receiver: Receiver = {
    url: `http://${host}:${port}/hook`,
    port,
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
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  open.push(receiver);
  return receiver;
}
