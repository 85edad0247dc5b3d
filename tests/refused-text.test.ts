import { beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/api/root";
import { hmacSha256Hex } from "@/server/crypto/hash";
import { deriveKey } from "@/server/crypto/secret-box";
import { getDb } from "@/server/db/client";
import { logger } from "@/server/log";
import { client, createTestOrg, testServer } from "@/server/testing/harness";

// PostgreSQL refuses NUL in text and unpaired surrogates in jsonb. Such input anywhere (path,
// query, body) must be a 400 in the envelope, never a 500 and never a write.

let api: ReturnType<typeof client>;
let orgId: string;

beforeAll(async () => {
  const { url } = await testServer();
  const org = await createTestOrg();
  orgId = org.orgId;
  api = client(url, org.apiKey);
});

const refused = (res: { status: number; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe("VALIDATION_ERROR");
  expect(res.body.error.correlationId).toEqual(expect.any(String));
};

describe("characters PostgreSQL refuses", () => {
  it("a NUL in a path parameter is 400, for e-mails, hashes and DIDs alike", async () => {
    refused(await api.delete("/v1/admin/members/%00"));
    refused(await api.delete("/v1/aml/denylist/%00"));
    refused(await api.get("/v1/accounts/did%3Aantelope%3Asandbox%3Aab%00c"));
    refused(await api.get("/v1/accounts/ab%00c/contact"));
    refused(await api.patch("/v1/admin/members/a%00%40example.com", { active: false }));
  });

  it("a NUL in the query is 400", async () => {
    refused(await api.get("/v1/accounts/name-available?name=ab%00"));
    refused(await api.get("/v1/admin/people?before=%00"));
  });

  it("a NUL or an unpaired surrogate anywhere in a JSON body is 400, and nothing is written", async () => {
    const db = await getDb();
    const before = await db.auditEntry.count({ where: { orgId } });
    refused(await api.post("/v1/aml/clear", { subjectDid: "did:web:x", reason: "cleared\u0000 by hand" }));
    refused(await api.post("/v1/aml/clear", { subjectDid: "did:web:x", reason: "ok", extra: { deep: ["\u0000"] } }));
    refused(await api.post("/v1/admin/members", undefined, { rawBody: '{"email":"a@example.com","role":"viewer","\\u0000":1}' }));
    refused(await api.post("/v1/aml/clear", undefined, { rawBody: '{"subjectDid":"did:web:x","reason":"half \\ud800 a pair"}' }));
    refused(await api.put("/v1/admin/ip-allowlist", { cidrs: ["10.0.0.0/8\u0000"] }));
    expect(await db.auditEntry.count({ where: { orgId } })).toBe(before);
  });

  it("a body that is not UTF-8 is 400", async () => {
    const { url } = await testServer();
    const org = await createTestOrg();
    const res = await fetch(`${url}/v1/aml/clear`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json" },
      body: Buffer.concat([Buffer.from('{"subjectDid":"did:web:x","reason":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    });
    refused({ status: res.status, body: await res.json() });
  });

  it("a correctly signed provider callback whose body cannot be read is 400, not 500", async () => {
    const { url } = await testServer();
    // A review callback that lacks the applicant: signed, but nothing to apply.
    const raw = '{"type":"sandbox.applicantReviewed","eventId":"e-1"}';
    const res = await fetch(`${url}/v1/kyc/callbacks/sandbox`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-payload-digest": hmacSha256Hex(deriveKey("kyc-sandbox-webhook"), raw) },
      body: raw,
    });
    refused({ status: res.status, body: await res.json() });
  });

  it("the console's procedures refuse the same input as a bad request", async () => {
    const db = await getDb();
    const org = await db.organization.findUniqueOrThrow({ where: { id: orgId } });
    const svc = {
      db,
      org,
      actor: { type: "member" as const, email: "officer@example.com", role: "owner" },
      correlationId: "t",
      clientIp: "127.0.0.1",
      log: logger(),
      now: () => new Date(),
    };
    const caller = createCaller({ svc });
    await expect(caller.aml.proposeClear({ subjectDid: "did:web:x", reason: "nul \u0000 here" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(caller.members.remove({ email: "a\u0000@example.com" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
