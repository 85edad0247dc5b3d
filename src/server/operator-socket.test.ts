import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "./db/client";
import { listenOperatorSocket, operatorSocketPath } from "./operator-socket";

let stop: () => void;

beforeAll(async () => {
  // A data folder as a fresh checkout has it: readable by others.
  fs.chmodSync(process.env.BI_DATA_DIR!, 0o755);
  stop = listenOperatorSocket(await getDb());
  await new Promise((r) => setTimeout(r, 100));
});
afterAll(() => stop());

describe("the operator socket", () => {
  it("lives in a directory only its owner can enter, so nobody else can connect even before its own mode is set", () => {
    const dir = path.dirname(operatorSocketPath());
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(operatorSocketPath()).mode & 0o777).toBe(0o600);
  });

  it("runs a command once, whatever arrives after its line", async () => {
    const name = `Operator once ${Date.now()}`;
    const line = `${JSON.stringify({ cmd: "org:create", input: { name, email: "ops@example.com" } })}\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(operatorSocketPath());
      let buf = "";
      sock.on("data", (c) => (buf += c.toString("utf8")));
      sock.on("end", () => resolve(buf));
      sock.on("error", reject);
      sock.on("connect", () => {
        sock.write(line);
        // More bytes in a later packet: the first command must not run again.
        setTimeout(() => sock.write("trailing bytes\n"), 5);
      });
    });
    expect(JSON.parse(answer).ok).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(await (await getDb()).organization.count({ where: { name } })).toBe(1);
  });
});
