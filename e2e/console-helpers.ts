import net from "node:net";
import path from "node:path";
import { type Browser, expect, type Locator, type Page } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
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

/** Opens the sign-in form and gives the work email (the first step of every way in). */
export async function startSignIn(page: Page, email: string, url = "/console/sign-in") {
  await page.goto(url);
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
}

/**
 * Signs in with the organization's shared console password: the bootstrap of a new organization,
 * or a member who has not set up their own sign-in. Reads the emailed code from the outbox when
 * the code step appears.
 */
export async function signIn(page: Page, org: Org, email: string) {
  const seen = await seenMail(email);
  await startSignIn(page, email);
  await page.getByRole("button", { name: "Sign in with the organization's console password" }).click();
  await page.getByLabel("Organization ID").fill(org.organizationId);
  await page.getByLabel("Console password").fill(org.consolePassword);
  await page.getByRole("button", { name: "Continue" }).click();
  const codeField = page.getByLabel("Sign-in code");
  const dashboard = page.getByRole("heading", { name: "Dashboard" });
  await expect(codeField.or(dashboard)).toBeVisible();
  if (await codeField.isVisible()) {
    const code = await emailedCode(email, seen);
    // A local sandbox shows the code on the page too, the same one the email carries.
    await expect(page.getByTestId("dev-code")).toContainText(`Sandbox code: ${code}.`);
    await codeField.fill(code);
    await page.getByRole("button", { name: "Verify and sign in" }).click();
  }
  await expect(dashboard).toBeVisible();
}

/** The token of the newest invitation emailed to `email`. */
export async function invitationToken(email: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const mails = await operator<Mail[]>("outbox:list", { to: email, limit: 5 });
    for (const m of mails) {
      const token = /\/console\/invite\/([A-Za-z0-9_-]+)/.exec(m.body)?.[1];
      if (token) return token;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no invitation reached ${email}`);
}

/** A code of the authenticator app holding `secret`, `stepsAgo` 30-second steps back. */
export const totpCode = (secret: string, stepsAgo = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30, timestamp: Date.now() - stepsAgo * 30_000 });

/**
 * The previous step's code is accepted only until the next step begins (a window of one step):
 * near the end of a step, waits for the next one, so a code sent now cannot arrive a step too late.
 */
export async function awayFromStepEnd() {
  const intoStep = Date.now() % 30_000;
  if (intoStep > 20_000) await new Promise((r) => setTimeout(r, 30_000 - intoStep + 250));
}

export const OWN_PASSWORD = "correct horse battery staple";

/**
 * Accepts the member's invitation with a password and an authenticator app, over the same calls
 * the acceptance page makes; returns the TOTP secret. The confirming code is the previous step's,
 * so the sign-in that follows (which needs a newer one) can use the current code at once.
 */
export async function acceptWithPassword(page: Page, email: string): Promise<string> {
  const token = await invitationToken(email);
  const step = (body: Record<string, unknown>) =>
    page.request.post("/api/auth/invitation", { data: { token, ...body }, headers: { "content-type": "application/json" } });
  const totp = await step({ step: "totp" });
  expect(totp.status()).toBe(200);
  const { secret } = (await totp.json()) as { secret: string };
  await awayFromStepEnd();
  expect((await step({ step: "password", password: OWN_PASSWORD, code: totpCode(secret, 1) })).status()).toBe(200);
  return secret;
}

/** Signs in through the form with the member's own password and a code from their app. */
export async function signInWithPassword(page: Page, email: string, secret: string) {
  await startSignIn(page, email);
  await page.getByRole("button", { name: "Use password and authenticator code" }).click();
  await page.getByLabel("Password", { exact: true }).fill(OWN_PASSWORD);
  await page.getByLabel("Authenticator code").fill(totpCode(secret));
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
}

/**
 * A fresh browser context (its own cookies) signed in as `email`, a member who was invited: they
 * accept the invitation with a password and authenticator app of their own and sign in with it,
 * as four-eyes approval requires.
 */
export async function memberPage(browser: Browser, _org: Org, email: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signInWithPassword(page, email, await acceptWithPassword(page, email));
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

/**
 * Waits for a dialog to close after its action; when it stays, the failure says what the dialog
 * shows (the service's refusal in words, or a form still waiting), which a run's log keeps.
 */
export async function expectClosed(dialog: Locator) {
  try {
    await expect(dialog).toHaveCount(0);
  } catch (err) {
    const shown = await dialog
      .first()
      .textContent({ timeout: 1_000 })
      .catch(() => "(unreadable)");
    throw new Error(`${(err as Error).message}\nThe dialog still shows:\n${shown}`);
  }
}
