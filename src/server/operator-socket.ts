import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { env } from "@/env";
import type { Db } from "./db/client";
import { listOutbox, OutboxQuery } from "./providers/messaging/dev-outbox";
import { eraseOrganization, type ProvisionInput, provisionOrganization } from "./services/org";
import { replayErasures } from "./services/people";

/**
 * The embedded database can be opened by one process only. While the service runs on it, operator
 * commands (org:create, org:delete) reach the running process over a Unix socket instead of opening the
 * database a second time. The socket sits in a folder of its own with mode 0700, so only the same
 * OS user can reach it, from the moment it exists (its own 0600 is set only once it listens).
 */
export const operatorSocketPath = () => path.resolve(env().BI_DATA_DIR, "operator", "operator.sock");

export function listenOperatorSocket(db: Db): () => void {
  const file = operatorSocketPath();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.chmodSync(path.dirname(file), 0o700);
  fs.rmSync(file, { force: true });
  const server = net.createServer((sock) => {
    let buf = "";
    let taken = false;
    sock.on("data", async (chunk) => {
      if (taken) return;
      buf += chunk.toString("utf8");
      if (!buf.includes("\n")) return;
      // One command per connection: bytes after its line never run it again.
      taken = true;
      try {
        const msg = JSON.parse(buf.slice(0, buf.indexOf("\n"))) as { cmd: string; input: unknown };
        let result: unknown;
        if (msg.cmd === "org:create")
          result = await provisionOrganization(db, msg.input as ProvisionInput, { type: "system", label: "org-create" });
        else if (msg.cmd === "org:delete") result = await eraseOrganization(db, msg.input as Parameters<typeof eraseOrganization>[1]);
        else if (msg.cmd === "erasure:replay") result = await replayErasures(db, (msg.input as { personDids: string[] }).personDids);
        else if (msg.cmd === "outbox:list") result = await listOutbox(db, OutboxQuery.parse(msg.input));
        else throw new Error("unknown command");
        sock.end(`${JSON.stringify({ ok: true, result })}\n`);
      } catch (err) {
        sock.end(`${JSON.stringify({ ok: false, error: (err as Error).message })}\n`);
      }
    });
  });
  server.listen(file, () => fs.chmodSync(file, 0o600));
  server.unref();
  return () => {
    server.close();
    fs.rmSync(file, { force: true });
  };
}

/** Sends one command to a running instance; null when none is listening. */
export function callOperatorSocket<T>(cmd: string, input: unknown): Promise<T | null> {
  const file = operatorSocketPath();
  if (!fs.existsSync(file)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const sock = net.connect(file);
    let buf = "";
    sock.on("connect", () => sock.write(`${JSON.stringify({ cmd, input })}\n`));
    sock.on("data", (c) => (buf += c.toString("utf8")));
    sock.on("end", () => {
      try {
        const msg = JSON.parse(buf) as { ok: boolean; result?: T; error?: string };
        if (msg.ok) resolve(msg.result as T);
        else reject(new Error(msg.error));
      } catch (err) {
        reject(err);
      }
    });
    sock.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNREFUSED" || err.code === "ENOENT" ? resolve(null) : reject(err)));
  });
}
