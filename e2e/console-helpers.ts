import net from "node:net";
import path from "node:path";
import { type Browser, expect, type Page } from "@playwright/test";
import { shoot as shootAt } from "./shoot";

/**
 * Talks to the running service over its operator socket (the embedded database admits one
 * process): provisions organizations and reads the dev outbox, where sandbox emails land.
 */
export function operator<T>(cmd: string, input: unknown): Promise<T> {
  const file = path.join(process.env.E2E_DATA_DIR!, "operator", "operator.sock");
  return new Promise((resolve, reject) => {
    const sock = net.connect(file);
    let buf = "";
    sock.on("connect", () => sock.write(`${JSON.stringify({ cmd, input })}\n`));
    sock.on("data", (c) => (buf += c.toString("utf8")));
    sock.on("error", reject);
    sock.on("end", () => {
      const msg = JSON.parse(buf) as { ok: boolean; result?: T; error?: string };
      if (msg.ok) resolve(msg.result as T);
      else reject(new Error(msg.error));
    });
  });
}

export type Org = { organizationId: string; apiKey: string; consolePassword: string };

let n = 0;
export const createOrg = (name = `Console E2E ${Date.now()}-${++n}`, plan = "builder") =>
  operator<Org>("org:create", { name, email: `ops-${Date.now()}-${n}@console-e2e.test`, plan });

type Mail = { id: string; to: string; body: string; createdAt: string };

/** The newest sign-in code emailed to `email` that was not among `seen`. */
export async function emailedCode(email: string, seen: Set<string>): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const [mail] = await operator<Mail[]>("outbox:list", { to: email, limit: 1 });
    if (mail && !seen.has(mail.id)) return /is (\d{6})\./.exec(mail.body)![1]!;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no sign-in code reached ${email}`);
}

const seenMail = async (email: string) => new Set((await operator<Mail[]>("outbox:list", { to: email, limit: 5 })).map((m) => m.id));

/** Signs in through the form; reads the emailed code from the outbox when the second step appears. */
export async function signIn(page: Page, org: Org, email: string) {
  const seen = await seenMail(email);
  await page.goto("/console/sign-in");
  await page.getByLabel("Organization ID").fill(org.organizationId);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Console password").fill(org.consolePassword);
  await page.getByRole("button", { name: "Continue" }).click();
  const codeField = page.getByLabel("Sign-in code");
  const dashboard = page.getByRole("heading", { name: "Dashboard" });
  await expect(codeField.or(dashboard)).toBeVisible();
  if (await codeField.isVisible()) {
    await codeField.fill(await emailedCode(email, seen));
    await page.getByRole("button", { name: "Verify and sign in" }).click();
  }
  await expect(dashboard).toBeVisible();
}

/** A fresh browser context (its own cookies) signed in as `email`. */
export async function memberPage(browser: Browser, org: Org, email: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, org, email);
  return page;
}

/** Console pages' screenshots are named console-<name>-desktop.png and -phone.png. */
export const shoot = (page: Page, name: string, opts: { fullPage?: boolean } = {}) => shootAt(page, `console-${name}`, opts);

/** Calls a console procedure over HTTP with the page's session, as the browser would. */
export async function callProcedure(page: Page, path: string, kind: "query" | "mutation", input?: unknown) {
  const body = input === undefined ? undefined : { json: input };
  return kind === "query"
    ? page.request.get(`/api/trpc/${path}${body ? `?input=${encodeURIComponent(JSON.stringify(body))}` : ""}`)
    : page.request.post(`/api/trpc/${path}`, { data: body ?? {}, headers: { "content-type": "application/json" } });
}

/** Sign-in attempts are budgeted per address across organizations: every test signs in with its own. */
export const uniq = (local: string) => `${local}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}@acme.test`;
