import { randomBytes, randomInt } from "node:crypto";
import { expect } from "vitest";
import { resetEnvCache } from "@/env";
import { client } from "./harness";

/**
 * Billing tests call the public routes from many client addresses (the per-IP limits would
 * otherwise couple the tests): the loopback peer is made a trusted proxy, and each flow sends
 * its own X-Forwarded-For. Call before the file's first testServer().
 */
export function trustLoopbackProxy(): void {
  process.env.TRUSTED_PROXIES = "127.0.0.1/32,::1/128";
  resetEnvCache();
}

export const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
export const workAddress = (tag = "buyer") => `${tag}-${randomBytes(5).toString("hex")}@acme-${randomBytes(3).toString("hex")}.test`;

/** A public client that appears to come from `ip` (through the trusted loopback proxy). */
export function fromIp(url: string, ip = randomIp()) {
  const c = client(url);
  const headers = { "x-forwarded-for": ip };
  return {
    ip,
    get: (path: string, o: { headers?: Record<string, string> } = {}) => c.get(path, { ...o, headers: { ...headers, ...o.headers } }),
    post: (path: string, body?: unknown, o: { headers?: Record<string, string>; rawBody?: string } = {}) =>
      c.post(path, body, { ...o, headers: { ...headers, ...o.headers } }),
  };
}

/** Email OTP start + confirm over HTTP, as a prospect's browser does; returns the proof token. */
export async function emailProof(url: string, email = workAddress()): Promise<{ token: string; email: string }> {
  const api = fromIp(url);
  const start = await api.post("/v1/billing/email/otp/start", { email });
  expect(start.status, start.text).toBe(200);
  const confirm = await api.post("/v1/billing/email/otp/confirm", { challengeId: start.body.challengeId, code: start.body.devCode });
  expect(confirm.status, confirm.text).toBe(200);
  return { token: confirm.body.emailProofToken, email };
}

/** A Growth checkout awaiting payment, with the email proof it spent (the only thing that unlocks its key). */
export async function growthCheckout(url: string) {
  const proof = await emailProof(url);
  const res = await fromIp(url).post("/v1/billing/checkout", {
    emailProofToken: proof.token,
    plan: "growth",
    organizationName: "Growth Buyer Ltd",
  });
  expect(res.status, res.text).toBe(200);
  return { ...res.body, email: proof.email, emailProofToken: proof.token } as {
    sessionId: string;
    checkoutUrl: string;
    chainPayment: { treasury: string; memo: string; amount: string };
    email: string;
    emailProofToken: string;
  };
}
