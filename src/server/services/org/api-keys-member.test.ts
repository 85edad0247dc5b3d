import { beforeAll, describe, expect, it } from "vitest";
import type { Role } from "@/lib/roles";
import { createCaller } from "@/server/api/root";
import type { Actor } from "@/server/context";
import { getDb } from "@/server/db/client";
import { flaggedPerson, serviceCtx } from "@/server/testing/aml";
import { client, createTestOrg, type TestOrg, testServer } from "@/server/testing/harness";

// A key a console member mints acts as that member: the member's role is its ceiling, and it is
// the member's second pair of eyes, not another person's. Only owners mint admin-scope keys.

let url: string;

const member = (email: string, role: Role): Actor => ({ type: "member", email, role });

async function console_(org: TestOrg, actor: Actor) {
  return createCaller({ svc: await serviceCtx(await getDb(), org.orgId, actor) });
}

async function orgWithMembers(members: [string, Role][]) {
  const org = await createTestOrg();
  const backend = client(url, org.apiKey);
  for (const [email, role] of members) expect((await backend.post("/v1/admin/members", { email, role })).status).toBe(201);
  return { org, backend };
}

beforeAll(async () => {
  url = (await testServer()).url;
});

describe("keys minted from the console", () => {
  it("only an owner mints a key with the admin scope, or with every scope", async () => {
    const { org } = await orgWithMembers([
      ["owner@example.com", "owner"],
      ["admin@example.com", "admin"],
    ]);
    const admin = await console_(org, member("admin@example.com", "admin"));
    await expect(admin.apiKeys.mint({ name: "everything" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(admin.apiKeys.mint({ name: "admin key", scopes: ["admin", "read"] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const limited = await admin.apiKeys.mint({ name: "exports", scopes: ["compliance_export"] });
    expect(limited.scopes).toEqual(["compliance_export"]);
    const owner = await console_(org, member("owner@example.com", "owner"));
    expect((await owner.apiKeys.mint({ name: "owner's admin key", scopes: ["admin"] })).scopes).toEqual(["admin"]);
    const keys = await (await getDb()).apiKey.findMany({ where: { orgId: org.orgId, name: { in: ["everything", "admin key"] } } });
    expect(keys).toEqual([]);
  });

  it("a member's key acts with the member's current role: demoted, it cannot make itself owner or mint admin keys", async () => {
    const { org, backend } = await orgWithMembers([
      ["first@example.com", "owner"],
      ["second@example.com", "owner"],
    ]);
    const first = await console_(org, member("first@example.com", "owner"));
    const minted = await first.apiKeys.mint({ name: "first's key", scopes: ["admin"] });
    const firstKey = client(url, minted.apiKey);
    // While its member is an owner, the key acts as an owner.
    expect((await firstKey.post("/v1/admin/members", { email: "third@example.com", role: "admin" })).status).toBe(201);
    // Another owner demotes the first; the key now acts as an admin.
    const second = await console_(org, member("second@example.com", "owner"));
    await second.members.update({ email: "first@example.com", patch: { role: "admin" } });
    const promote = await firstKey.patch("/v1/admin/members/first%40example.com", { role: "owner" });
    expect(promote.status).toBe(403);
    expect(promote.body.error.details.reason).toBe("console_role");
    const demote = await firstKey.patch("/v1/admin/members/second%40example.com", { role: "viewer" });
    expect(demote.status).toBe(403);
    const mint = await firstKey.post("/v1/admin/api-keys", { name: "escalate", scopes: ["admin"] });
    expect(mint.status).toBe(403);
    expect(mint.body.error.details.reason).toBe("owner_required");
    // A key minted by that key is still the same member.
    const child = await firstKey.post("/v1/admin/api-keys", { name: "child", scopes: ["read"] });
    expect(child.status).toBe(201);
    const rows = await (await getDb()).consoleMember.findMany({ where: { orgId: org.orgId }, orderBy: { email: "asc" } });
    expect(rows.map((m) => [m.email, m.role])).toEqual([
      ["first@example.com", "admin"],
      ["second@example.com", "owner"],
      ["third@example.com", "admin"],
    ]);
    // The tenant's backend key (not minted by a member) still acts for the whole organization.
    expect((await backend.patch("/v1/admin/members/first%40example.com", { role: "owner" })).status).toBe(200);
  });

  it("a member deactivated: the key they minted can no longer act on any member", async () => {
    const { org, backend } = await orgWithMembers([
      ["boss@example.com", "owner"],
      ["leaver@example.com", "owner"],
    ]);
    const leaver = await console_(org, member("leaver@example.com", "owner"));
    const key = client(url, (await leaver.apiKeys.mint({ name: "leaver's key", scopes: ["admin"] })).apiKey);
    expect((await backend.delete("/v1/admin/members/leaver%40example.com")).status).toBe(200);
    const res = await key.post("/v1/admin/members", { email: "friend@example.com", role: "viewer" });
    expect(res.status).toBe(403);
    expect(res.body.error.details.reason).toBe("console_role");
  });
});

describe("four-eyes with member keys", () => {
  async function pendingCase(org: TestOrg, proposer: Actor) {
    const db = await getDb();
    await db.organization.update({ where: { id: org.orgId }, data: { requireSecondApprovalToClearAml: true } });
    const { person, caseId } = await flaggedPerson(db, org.orgId);
    const proposed = await (await console_(org, proposer)).aml.proposeClear({ subjectDid: person.did, reason: "false positive" });
    expect(proposed.pendingApproval).toBe(true);
    return { caseId, person };
  }

  it("a proposer cannot approve with a key they minted", async () => {
    const { org } = await orgWithMembers([
      ["lead@example.com", "admin"],
      ["other@example.com", "compliance_officer"],
    ]);
    const lead = member("lead@example.com", "admin");
    const { caseId, person } = await pendingCase(org, lead);
    const key = await (await console_(org, lead)).apiKeys.mint({ name: "lead's key", scopes: ["compliance_export"] });
    const approve = await client(url, key.apiKey).post(`/v1/aml/cases/${caseId}/approve-clear`, {});
    expect(approve.status).toBe(403);
    expect(approve.body.error.details.reason).toBe("same_approver");
    const db = await getDb();
    expect((await db.person.findUniqueOrThrow({ where: { id: person.id } })).pepFlag).toBe(true);
    // Another member approves.
    const other = await console_(org, member("other@example.com", "compliance_officer"));
    expect((await other.aml.approveClear({ caseId, body: {} })).status).toBe("cleared");
  });

  it("the tenant's backend key is a person of its own", async () => {
    const { org, backend } = await orgWithMembers([["officer@example.com", "compliance_officer"]]);
    const { caseId } = await pendingCase(org, member("officer@example.com", "compliance_officer"));
    const approve = await backend.post(`/v1/aml/cases/${caseId}/approve-clear`, {});
    expect(approve.status).toBe(200);
  });

  it("with no members, two invented console addresses are one person", async () => {
    const org = await createTestOrg();
    const { caseId, person } = await pendingCase(org, member("alice@example.com", "owner"));
    const bob = await console_(org, member("bob@example.com", "owner"));
    await expect(bob.aml.approveClear({ caseId, body: {} })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const db = await getDb();
    expect((await db.person.findUniqueOrThrow({ where: { id: person.id } })).pepFlag).toBe(true);
  });
});
