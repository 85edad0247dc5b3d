import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/hash";
import { apiKeyView, insertApiKey } from "../../services/org/api-keys";
import { call, createTestOrg, testServer } from "../../testing/harness";
import { authCacheEnabled } from "./api-key";

const tenant = async (authorization?: string) => {
  const { url } = await testServer();
  return call(url, "GET", "/v1/tenant", { headers: authorization === undefined ? {} : { authorization } });
};

describe("bearer API key authentication", () => {
  it("answers a missing or malformed Authorization header with 401 missing_key saying a bearer key is missing", async () => {
    const org = await createTestOrg();
    for (const header of [
      undefined,
      "",
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer ",
      `Token ${org.apiKey}`,
      org.apiKey,
      `Bearer ${org.apiKey} extra`,
    ]) {
      const res = await tenant(header);
      expect(res.status, String(header)).toBe(401);
      expect(res.body.error.code).toBe("UNAUTHORIZED");
      expect(res.body.error.details.reason).toBe("missing_key");
      expect(res.body.error.message).toMatch(/bearer API key is missing/i);
      expect(res.text).not.toContain(org.apiKey);
    }
  });

  it("accepts the scheme in any case and surrounding whitespace", async () => {
    const org = await createTestOrg();
    expect((await tenant(`bearer ${org.apiKey}`)).status).toBe(200);
    expect((await tenant(`Bearer   ${org.apiKey}  `)).status).toBe(200);
  });

  it("refuses a production key on sandbox with a message naming both environments, without looking it up", async () => {
    const org = await createTestOrg();
    const raw = `bi_${randomBytes(24).toString("hex")}`;
    // Even a stored production key with this exact hash must not be honoured here.
    await org.db.apiKey.create({
      data: {
        orgId: org.orgId,
        name: "prod",
        prefix: raw.slice(0, 11),
        keyHash: sha256Hex(raw),
        environment: "production",
        scopes: ["read"],
        createdBy: "test",
      },
    });
    const res = await tenant(`Bearer ${raw}`);
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe("wrong_environment");
    expect(res.body.error.message).toMatch(/production key/);
    expect(res.body.error.message).toMatch(/sandbox environment/);
    expect(res.body.error.message).not.toContain(raw);
  });

  it("refuses an unknown key, and a key that is not one of ours, with 401 invalid_key", async () => {
    for (const raw of [`bi_test_${randomBytes(24).toString("base64url")}`, "sk_live_abcdef"]) {
      const res = await tenant(`Bearer ${raw}`);
      expect(res.status).toBe(401);
      expect(res.body.error.details.reason).toBe("invalid_key");
    }
  });

  it("refuses a revoked key with 401 from the moment it is revoked", async () => {
    const org = await createTestOrg();
    const { key, raw } = await org.db.$transaction((tx) =>
      insertApiKey(tx, org.orgId, { name: "to revoke", scopes: ["read"], createdBy: "test" }),
    );
    expect((await tenant(`Bearer ${raw}`)).status).toBe(200);
    await org.db.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    const res = await tenant(`Bearer ${raw}`);
    expect(res.status).toBe(401);
    expect(res.body.error.details.reason).toBe("invalid_key");
    expect(res.body.error.message).toMatch(/revoked/);
  });

  it("stores only the hash, and never returns it (nor the console password hash) in any answer", async () => {
    const org = await createTestOrg();
    const hash = sha256Hex(org.apiKey);
    const row = await org.db.apiKey.findFirstOrThrow({ where: { orgId: org.orgId } });
    const orgRow = await org.db.organization.findUniqueOrThrow({ where: { id: org.orgId } });
    expect(row.keyHash).toBe(hash);
    expect(JSON.stringify(row)).not.toContain(org.apiKey);
    expect(apiKeyView(row)).not.toHaveProperty("keyHash");
    expect(JSON.stringify(apiKeyView(row))).not.toContain(hash);
    const { url } = await testServer();
    const answers = [
      await call(url, "GET", "/v1/tenant", { key: org.apiKey }),
      await call(url, "GET", "/v1/admin/api-keys", { key: org.apiKey }),
      await call(url, "GET", "/v1/admin/tenant", { key: org.apiKey }),
      await call(url, "GET", "/v1/tenant", { key: `${org.apiKey}x` }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 401]);
    for (const a of answers) {
      expect(a.text).not.toContain(hash);
      expect(a.text).not.toContain(orgRow.consolePasswordHash);
      expect(a.text).not.toContain(org.apiKey);
    }
  });
});

describe("BI_AUTH_CACHE", () => {
  it("is on by default, off on request, and refuses anything else", () => {
    expect(authCacheEnabled({})).toBe(true);
    expect(authCacheEnabled({ BI_AUTH_CACHE: "on" })).toBe(true);
    expect(authCacheEnabled({ BI_AUTH_CACHE: "off" })).toBe(false);
    expect(() => authCacheEnabled({ BI_AUTH_CACHE: "maybe" })).toThrow(/BI_AUTH_CACHE/);
  });
});
