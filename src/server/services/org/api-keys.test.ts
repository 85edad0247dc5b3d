import { describe, expect, it } from "vitest";
import { SCOPES } from "@/lib/scopes";
import { sha256Hex } from "../../crypto/hash";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { verifyChain } from "../audit/verify";

const audits = (org: TestOrg, action: string) =>
  org.db.auditEntry.findMany({ where: { orgId: org.orgId, action }, orderBy: { seq: "asc" } });
const keyCount = (org: TestOrg) => org.db.apiKey.count({ where: { orgId: org.orgId } });
const initialKey = (org: TestOrg) => org.db.apiKey.findFirstOrThrow({ where: { orgId: org.orgId }, orderBy: { createdAt: "asc" } });

describe("GET /v1/admin/api-keys", () => {
  it("lists keys by prefix only, never the key or its hash", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const row = await initialKey(org);
    const res = await client(url, org.apiKey).get("/v1/admin/api-keys");
    expect(res.status).toBe(200);
    expect(res.body.keys).toEqual([
      {
        id: row.id,
        name: "Initial key",
        prefix: row.prefix,
        scopes: [...SCOPES],
        createdAt: row.createdAt.toISOString(),
        lastUsedAt: res.body.keys[0].lastUsedAt,
        revokedAt: null,
      },
    ]);
    // Recorded off the request path, so this very call may or may not have landed yet.
    expect(res.body.keys[0].lastUsedAt === null || !Number.isNaN(Date.parse(res.body.keys[0].lastUsedAt))).toBe(true);
    expect(org.apiKey.startsWith(row.prefix)).toBe(true);
    expect(res.text).not.toContain(org.apiKey);
    expect(res.text).not.toContain(row.keyHash);
  });

  it("refuses a key without the admin scope before doing anything", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const minted = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "reader", scopes: ["read"] });
    const before = await keyCount(org);
    const res = await client(url, minted.body.apiKey).post("/v1/admin/api-keys", { name: "sneaky" });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: "FORBIDDEN", details: { reason: "missing_scope" } });
    expect(await keyCount(org)).toBe(before);
  });
});

describe("POST /v1/admin/api-keys", () => {
  it("mints a scoped key, stores only its hash and audits the creation", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "  backend  ", scopes: ["kyc_write", "read", "read"] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: "backend",
      prefix: expect.stringMatching(/^bi_test_/),
      apiKey: expect.stringMatching(/^bi_test_/),
      scopes: ["read", "kyc_write"],
      revokedKeyId: null,
      warning: expect.any(String),
    });
    const row = await org.db.apiKey.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row).toMatchObject({ orgId: org.orgId, keyHash: sha256Hex(res.body.apiKey), scopes: ["read", "kyc_write"], revokedAt: null });
    expect(JSON.stringify(row)).not.toContain(res.body.apiKey);
    const [entry] = await audits(org, "api_key.created");
    expect(entry).toMatchObject({ subject: res.body.id, actor: `api_key:${(await initialKey(org)).id}` });
    expect(JSON.stringify(entry!.data)).not.toContain(res.body.apiKey);

    const tenant = await client(url, res.body.apiKey).get("/v1/tenant");
    expect(tenant.status).toBe(200);
    const admin = await client(url, res.body.apiKey).get("/v1/admin/api-keys");
    expect(admin.status).toBe(403);
  });

  it("grants every scope when scopes are omitted, and says so", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "full" });
    expect(res.status).toBe(201);
    expect(res.body.scopes).toEqual([...SCOPES]);
    expect(res.body.scopeNotice).toMatch(/admin/);
  });

  it("rotates: revokeKeyId is revoked in the same step and then answers 401", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const old = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "old", scopes: ["read"] });
    const res = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "new", scopes: ["read"], revokeKeyId: old.body.id });
    expect(res.status).toBe(201);
    expect(res.body.revokedKeyId).toBe(old.body.id);
    expect((await org.db.apiKey.findUniqueOrThrow({ where: { id: old.body.id } })).revokedAt).not.toBeNull();
    expect((await audits(org, "api_key.revoked")).map((e) => e.subject)).toEqual([old.body.id]);
    const denied = await client(url, old.body.apiKey).get("/v1/tenant");
    expect(denied.status).toBe(401);
    expect(denied.body.error.details.reason).toBe("invalid_key");
  });

  it("answers 404 and mints nothing when revokeKeyId belongs to another organization", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const other = await createTestOrg();
    const theirs = await initialKey(other);
    const before = await keyCount(org);
    const res = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "thief", revokeKeyId: theirs.id });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect(await keyCount(org)).toBe(before);
    expect(await audits(org, "api_key.created")).toHaveLength(0);
    expect((await initialKey(other)).revokedAt).toBeNull();
  });

  it.each([
    ["a name too short", { name: "a" }, "body.name"],
    ["a name too long", { name: "x".repeat(65) }, "body.name"],
    ["a missing name", { scopes: ["read"] }, "body.name"],
    ["empty scopes", { name: "ok", scopes: [] }, "body.scopes"],
    ["an unknown scope", { name: "ok", scopes: ["read", "superuser"] }, "body.scopes.1"],
    ["a revokeKeyId that is not a uuid", { name: "ok", revokeKeyId: "nope" }, "body.revokeKeyId"],
    ["an unknown field", { name: "ok", expiresAt: "2030-01-01" }, "body"],
  ])("answers 400 for %s and writes nothing", async (_what, body, path) => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const before = await keyCount(org);
    const res = await client(url, org.apiKey).post("/v1/admin/api-keys", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(await keyCount(org)).toBe(before);
    expect(await audits(org, "api_key.created")).toHaveLength(0);
  });

  it("answers 400 for malformed JSON", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await client(url, org.apiKey).post("/v1/admin/api-keys", undefined, {
      rawBody: "{name:",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
  });
});

describe("DELETE /v1/admin/api-keys/{id}", () => {
  it("revokes once: the key answers 401 afterwards and a second DELETE writes nothing", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const victim = await client(url, org.apiKey).post("/v1/admin/api-keys", { name: "victim", scopes: ["read"] });
    expect((await client(url, victim.body.apiKey).get("/v1/tenant")).status).toBe(200);

    const res = await client(url, org.apiKey).delete(`/v1/admin/api-keys/${victim.body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: victim.body.id, revoked: true, revokedAt: expect.any(String) });
    const row = await org.db.apiKey.findUniqueOrThrow({ where: { id: victim.body.id } });
    expect(row.revokedAt?.toISOString()).toBe(res.body.revokedAt);
    expect((await audits(org, "api_key.revoked")).map((e) => e.subject)).toEqual([victim.body.id]);

    const denied = await client(url, victim.body.apiKey).get("/v1/tenant");
    expect(denied.status).toBe(401);
    expect(denied.body.error).toMatchObject({ code: "UNAUTHORIZED", details: { reason: "invalid_key" } });

    const again = await client(url, org.apiKey).delete(`/v1/admin/api-keys/${victim.body.id}`);
    expect(again.status).toBe(200);
    expect(again.body.revokedAt).toBe(res.body.revokedAt);
    expect(await audits(org, "api_key.revoked")).toHaveLength(1);
    expect(await verifyChain(org.db, org.orgId)).toMatchObject({ valid: true });
  });

  it("answers 404 for another organization's key and leaves it working", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const other = await createTestOrg();
    const theirs = await initialKey(other);
    const res = await client(url, org.apiKey).delete(`/v1/admin/api-keys/${theirs.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect((await initialKey(other)).revokedAt).toBeNull();
    expect((await client(url, other.apiKey).get("/v1/tenant")).status).toBe(200);
    expect(await audits(org, "api_key.revoked")).toHaveLength(0);
  });

  it("answers 404 for an unknown id and 400 for a malformed one", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    expect((await client(url, org.apiKey).delete("/v1/admin/api-keys/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    const bad = await client(url, org.apiKey).delete("/v1/admin/api-keys/not-a-uuid");
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe("path.id");
  });
});
