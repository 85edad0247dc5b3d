import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { resetEnvCache } from "@/env";
import { entryArgs } from "@/server/testing/built-entries";
import { getDb } from "../../db/client";
import { listenOperatorSocket } from "../../operator-socket";
import { listOutbox, outboxEmail, outboxSms } from "./dev-outbox";

const run = promisify(execFile);
const tag = () => crypto.randomBytes(4).toString("hex");
const ROOT = path.resolve(import.meta.dirname, "../../../..");

async function outboxCommand(args: string[], extraEnv: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [...entryArgs("scripts/outbox.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: "silent", ...extraEnv },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Waits until the clock has passed the stored time of message `id`: "newest first" orders by that time, to the millisecond. */
async function untilClockPasses(db: Awaited<ReturnType<typeof getDb>>, id: string) {
  const { createdAt } = await db.devOutboxMessage.findUniqueOrThrow({ where: { id } });
  while (Date.now() <= createdAt.getTime()) await new Promise((r) => setTimeout(r, 1));
}

describe("dev outbox", () => {
  it("stores an email and an SMS as rows, and listOutbox reads them back newest first", async () => {
    const db = await getDb();
    const email = `ama.${tag()}@example.com`;
    const phone = `+23324${crypto.randomInt(1_000_000, 9_999_999)}`;
    const org = await db.organization.findFirst({ select: { id: true } });

    const a = await outboxEmail(db).sendEmail({ to: email, subject: "Your code", text: "Code 111111", orgId: org?.id ?? null });
    await untilClockPasses(db, a.id);
    const b = await outboxEmail(db).sendEmail({ to: email, subject: "Your new code", text: "Code 222222\nsecond line" });
    const c = await outboxSms(db).sendSms({ to: phone, text: "Code 333333" });

    expect(a.provider).toBe("dev-outbox");
    const row = await db.devOutboxMessage.findUniqueOrThrow({ where: { id: a.id } });
    expect(row).toMatchObject({ channel: "email", to: email, subject: "Your code", body: "Code 111111", orgId: org?.id ?? null });
    expect(await db.devOutboxMessage.findUniqueOrThrow({ where: { id: c.id } })).toMatchObject({
      channel: "phone",
      to: phone,
      subject: null,
      body: "Code 333333",
      orgId: null,
    });

    const mine = await listOutbox(db, { to: email.toUpperCase(), limit: 10 });
    expect(mine.map((m) => m.id)).toEqual([b.id, a.id]);
    expect(mine[0]).toMatchObject({ subject: "Your new code", body: "Code 222222\nsecond line" });
    expect(await listOutbox(db, { to: email, limit: 1 })).toHaveLength(1);
    expect((await listOutbox(db, { to: phone })).map((m) => m.id)).toEqual([c.id]);
    expect((await listOutbox(db, { limit: 500 })).map((m) => m.id)).toEqual(expect.arrayContaining([a.id, b.id, c.id]));
    await expect(listOutbox(db, { limit: 0 })).rejects.toThrow();
  });

  it("npm run outbox prints the newest messages to an address from the app's database", { timeout: 90_000 }, async () => {
    const db = await getDb();
    const email = `kofi.${tag()}@example.com`;
    const old = await outboxEmail(db).sendEmail({ to: email, subject: "Old", text: "first 444444" });
    // Sent once the clock has passed the first's time: two messages of one millisecond tie.
    await untilClockPasses(db, old.id);
    await outboxEmail(db).sendEmail({ to: email, subject: "Sign in", text: "Your code is 555555\nIt expires soon." });

    const out = await outboxCommand(["--to", email, "--limit", "1"]);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  email  to ${email.replace(/\./g, "\\.")}\\n`));
    expect(out.stdout).toContain("  Subject: Sign in\n  Your code is 555555\n  It expires soon.\n");
    expect(out.stdout).not.toContain("444444");

    const none = await outboxCommand(["--to", `nobody.${tag()}@example.com`]);
    expect(none.stdout).toMatch(/^No messages to nobody\..+ in the dev outbox\.\n$/);
    expect((await outboxCommand(["--limit", "0"])).code).toBe(2);
  });

  it("does not open the embedded database while a service owns it", { timeout: 60_000 }, async () => {
    const db = await getDb();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bi-outbox-"));
    const previous = process.env.BI_DATA_DIR;
    process.env.BI_DATA_DIR = dataDir;
    resetEnvCache();
    const stop = listenOperatorSocket(db);
    process.env.BI_DATA_DIR = previous;
    resetEnvCache();
    try {
      const email = `efua.${tag()}@example.com`;
      await outboxEmail(db).sendEmail({ to: email, subject: "Hello", text: "via the service 777777" });
      const out = await outboxCommand(["--to", email], { DATABASE_URL: "", BI_DATA_DIR: dataDir });

      // Either the running service answers (once it serves outbox:list) or the command refuses clearly.
      if (out.code === 0) expect(out.stdout).toContain("via the service 777777");
      else {
        expect(out.code).toBe(1);
        expect(out.stderr).toContain("Stop the service, run `npm run outbox` again");
      }
      expect(fs.existsSync(path.join(dataDir, "pglite"))).toBe(false);
    } finally {
      stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
