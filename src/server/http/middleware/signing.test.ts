import { describe, expect, it } from "vitest";
import { hmacSha256Hex } from "../../crypto/hash";
import { open } from "../../crypto/secret-box";
import { call, client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { canonicalString, canonicalStringV2, SIGNATURE_SKEW_MS } from "./signing";

const orgRow = (org: TestOrg) => org.db.organization.findUniqueOrThrow({ where: { id: org.orgId } });
const audits = (org: TestOrg, action: string) =>
  org.db.auditEntry.findMany({ where: { orgId: org.orgId, action }, orderBy: { seq: "asc" } });

/** Headers for a request signed over `signedBody`, whatever body is then actually sent. */
function signedHeaders(secret: string, method: string, path: string, signedBody: string, ts = Date.now()) {
  return { "x-bi-timestamp": String(ts), "x-bi-signature": hmacSha256Hex(secret, canonicalString(String(ts), method, path, signedBody)) };
}

async function withSigning() {
  const { url } = await testServer();
  const org = await createTestOrg();
  const api = client(url, org.apiKey);
  const res = await api.post("/v1/admin/signing/enable");
  expect(res.status).toBe(200);
  return { url, org, api, secret: res.body.signingSecret as string, enabled: res.body };
}

const expectRefused = (res: { status: number; body: any }, reason: string) => {
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: "UNAUTHORIZED", details: { reason } });
  expect(typeof res.body.error.correlationId).toBe("string");
};

describe("POST /v1/admin/signing/enable", () => {
  it("returns the secret once, stores it only sealed, and audits without it", async () => {
    const { org, secret, enabled } = await withSigning();
    expect(enabled).toEqual({ signingEnabled: true, signingSecret: secret, warning: expect.any(String) });
    const row = await orgRow(org);
    expect(row.signingEnabled).toBe(true);
    expect(row.signingSecretEnc).not.toContain(secret);
    expect(open(row.signingSecretEnc!)).toBe(secret);
    const entries = await audits(org, "signing.enabled");
    expect(entries).toHaveLength(1);
    expect(entries[0]!.data).toEqual({ rotated: false });
    expect(entries[0]).toMatchObject({ subjectType: "organization", subject: org.orgId, actor: expect.stringMatching(/^api_key:/) });
    expect(JSON.stringify(entries[0])).not.toContain(secret);
  });

  it("rotates when enabled again: the old secret stops working at once", async () => {
    const { org, api, secret } = await withSigning();
    const rotated = await api.post("/v1/admin/signing/enable", undefined, { signWith: secret });
    expect(rotated.status).toBe(200);
    const next = rotated.body.signingSecret as string;
    expect(next).not.toBe(secret);
    expect(open((await orgRow(org)).signingSecretEnc!)).toBe(next);
    expect((await audits(org, "signing.enabled")).map((e) => e.data)).toEqual([{ rotated: false }, { rotated: true }]);
    expectRefused(await api.get("/v1/tenant", { signWith: secret }), "invalid_signature");
    expect((await api.get("/v1/tenant", { signWith: next })).status).toBe(200);
  });
});

describe("signed requests once signing is on", () => {
  it("refuses an unsigned request", async () => {
    const { api } = await withSigning();
    expectRefused(await api.get("/v1/tenant"), "signature_required");
  });

  it("refuses a request carrying only one of the two headers", async () => {
    const { api, secret } = await withSigning();
    const h = signedHeaders(secret, "GET", "/v1/tenant", "");
    expectRefused(await api.get("/v1/tenant", { headers: { "x-bi-signature": h["x-bi-signature"] } }), "signature_required");
  });

  it("accepts a good signature", async () => {
    const { org, api, secret } = await withSigning();
    const res = await api.get("/v1/tenant", { signWith: secret });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organizationId: org.orgId, signingEnabled: true });
  });

  it("refuses a tampered body: signed over one body, sent with another", async () => {
    const { org, url, secret } = await withSigning();
    const path = "/v1/admin/tenant/policy";
    const headers = signedHeaders(secret, "PATCH", path, JSON.stringify({ requireKycBeforeFreeCreate: false }));
    const res = await call(url, "PATCH", path, { key: org.apiKey, body: { requireKycBeforeFreeCreate: true }, headers });
    expectRefused(res, "invalid_signature");
    expect((await orgRow(org)).requireKycBeforeFreeCreate).toBe(false);
  });

  it("refuses a signature made for another path or method", async () => {
    const { api, secret } = await withSigning();
    expectRefused(await api.get("/v1/tenant", { headers: signedHeaders(secret, "GET", "/v1/admin/tenant", "") }), "invalid_signature");
    expectRefused(await api.get("/v1/tenant", { headers: signedHeaders(secret, "POST", "/v1/tenant", "") }), "invalid_signature");
  });

  it("refuses a stale timestamp (6 minutes old) and one from the future", async () => {
    const { api, secret } = await withSigning();
    expectRefused(await api.get("/v1/tenant", { signWith: secret, timestampMs: Date.now() - 6 * 60 * 1000 }), "timestamp_skew");
    expectRefused(
      await api.get("/v1/tenant", { signWith: secret, timestampMs: Date.now() + SIGNATURE_SKEW_MS + 60_000 }),
      "timestamp_skew",
    );
  });

  it.each(["yesterday", "1.7e12", "-5", ""])("refuses an unparseable timestamp %j", async (ts) => {
    const { api, secret } = await withSigning();
    const h = signedHeaders(secret, "GET", "/v1/tenant", "");
    const res = await api.get("/v1/tenant", { headers: { ...h, "x-bi-timestamp": ts } });
    // An empty header counts as missing.
    expectRefused(res, ts === "" ? "signature_required" : "invalid_timestamp");
  });

  it("refuses the same signed request sent twice", async () => {
    const { org, api, secret } = await withSigning();
    const headers = signedHeaders(secret, "GET", "/v1/tenant", "");
    expect((await api.get("/v1/tenant", { headers })).status).toBe(200);
    expectRefused(await api.get("/v1/tenant", { headers }), "signature_replayed");
    expect(await org.db.usedSignature.count({ where: { orgId: org.orgId, signature: headers["x-bi-signature"] } })).toBe(1);
  });

  it("accepts a POST whose JSON body is signed over the exact bytes sent", async () => {
    const { org, url, secret } = await withSigning();
    const path = "/v1/admin/tenant/policy";
    // Unusual spacing and key order: the signature covers these bytes, not a re-serialisation.
    const raw = '{ "requireSecondApprovalToClearAml" :true }';
    const res = await call(url, "PATCH", path, { key: org.apiKey, rawBody: raw, headers: signedHeaders(secret, "PATCH", path, raw) });
    expect(res.status).toBe(200);
    expect(res.body.requireSecondApprovalToClearAml).toBe(true);
    expect((await orgRow(org)).requireSecondApprovalToClearAml).toBe(true);

    const minted = await call(url, "POST", "/v1/admin/api-keys", {
      key: org.apiKey,
      body: { name: "signed", scopes: ["read"] },
      signWith: secret,
    });
    expect(minted.status).toBe(201);
  });

  it("ignores the query string in the signed path", async () => {
    const { api, secret } = await withSigning();
    expect((await api.get("/v1/tenant?x=1", { signWith: secret })).status).toBe(200);
  });
});

describe("POST /v1/admin/signing/disable", () => {
  it("turns signing off and forgets the secret: unsigned requests work again", async () => {
    const { org, api, secret } = await withSigning();
    expectRefused(await api.post("/v1/admin/signing/disable"), "signature_required");
    const res = await api.post("/v1/admin/signing/disable", undefined, { signWith: secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ signingEnabled: false });
    expect(await orgRow(org)).toMatchObject({ signingEnabled: false, signingSecretEnc: null });
    expect(await audits(org, "signing.disabled")).toHaveLength(1);
    expect((await api.get("/v1/tenant")).status).toBe(200);

    const again = await api.post("/v1/admin/signing/disable");
    expect(again.body).toEqual({ signingEnabled: false });
    expect(await audits(org, "signing.disabled")).toHaveLength(1);
  });
});

describe("a key without the route's scope", () => {
  it("is refused before any side effect: its signature stays unspent and its plan quota untouched", async () => {
    const { url, org, api, secret } = await withSigning();
    const minted = await api.post(
      "/v1/admin/api-keys",
      { name: "reader", scopes: ["read"] },
      { headers: signedHeaders(secret, "POST", "/v1/admin/api-keys", JSON.stringify({ name: "reader", scopes: ["read"] })) },
    );
    expect(minted.status, minted.text).toBe(201);
    const reader = minted.body.apiKey as string;
    const read = await call(url, "GET", "/v1/tenant", { key: reader, headers: signedHeaders(secret, "GET", "/v1/tenant", "") });
    expect(read.status).toBe(200);
    const remaining = Number(read.headers.get("x-ratelimit-plan-remaining"));
    const used = await org.db.usedSignature.count({ where: { orgId: org.orgId } });

    const headers = signedHeaders(secret, "POST", "/v1/admin/dpa/accept", "");
    for (let i = 0; i < 2; i++) {
      // The same signed request twice: 403 both times, never 401 signature_replayed.
      const refused = await call(url, "POST", "/v1/admin/dpa/accept", { key: reader, headers });
      expect(refused.status).toBe(403);
      expect(refused.body.error.details.reason).toBe("missing_scope");
      expect(Number(refused.headers.get("x-ratelimit-plan-remaining"))).toBe(remaining);
    }
    expect(await org.db.usedSignature.count({ where: { orgId: org.orgId } })).toBe(used);
    const next = await call(url, "GET", "/v1/tenant", { key: reader, headers: signedHeaders(secret, "GET", "/v1/tenant", "") });
    expect(Number(next.headers.get("x-ratelimit-plan-remaining"))).toBe(remaining - 1);
  });
});

describe("signature version 2: the query string signed too", () => {
  it("accepts a v2 signature over path and query, and refuses it when the query is changed", async () => {
    const { url, org, secret } = await withSigning();
    const target = "/v1/accounts/name-available?name=abcde";
    const v2 = (signed: string) => {
      const ts = String(Date.now());
      return {
        "x-bi-timestamp": ts,
        "x-bi-signature-version": "2",
        "x-bi-signature": hmacSha256Hex(secret, canonicalStringV2(ts, "GET", signed, "")),
      };
    };
    const good = await call(url, "GET", target, { key: org.apiKey, headers: v2(target) });
    expect(good.status, good.text).toBe(200);
    expect(good.body.name).toBe("abcde");
    // Signed for one query, sent with another: refused.
    expectRefused(
      await call(url, "GET", "/v1/accounts/name-available?name=zzzzz", { key: org.apiKey, headers: v2(target) }),
      "invalid_signature",
    );
    // An unknown version is refused rather than guessed.
    expectRefused(
      await call(url, "GET", target, { key: org.apiKey, headers: { ...v2(target), "x-bi-signature-version": "9" } }),
      "invalid_signature_version",
    );
  });

  it("keeps accepting the contract's v1 signature, which covers the path only", async () => {
    const { url, org, secret } = await withSigning();
    const ts = String(Date.now());
    const headers = {
      "x-bi-timestamp": ts,
      "x-bi-signature": hmacSha256Hex(secret, canonicalString(ts, "GET", "/v1/accounts/name-available", "")),
    };
    const res = await call(url, "GET", "/v1/accounts/name-available?name=abcde", { key: org.apiKey, headers });
    expect(res.status, res.text).toBe(200);
  });
});
