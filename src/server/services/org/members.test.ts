import { describe, expect, it } from "vitest";
import type { ServiceContext } from "../../context";
import { logger } from "../../log";
import { client, createTestOrg, type TestOrg, testServer } from "../../testing/harness";
import { appErrorOf } from "../../testing/rejection";
import { addMember, removeMember, updateMember } from "./members";
import { MemberList, MemberView } from "./members.schema";

async function setup() {
  const { url } = await testServer();
  const org = await createTestOrg();
  return { org, api: client(url, org.apiKey) };
}

const audits = (org: TestOrg, action: string) =>
  org.db.auditEntry.findMany({ where: { orgId: org.orgId, action }, orderBy: { seq: "asc" } });

async function asMember(org: TestOrg, email: string, role: string): Promise<ServiceContext> {
  const row = await org.db.organization.findUniqueOrThrow({ where: { id: org.orgId } });
  return {
    db: org.db,
    org: row,
    actor: { type: "member", email, role },
    correlationId: "t",
    clientIp: "127.0.0.1",
    log: logger(),
    now: () => new Date(),
  };
}

describe("/v1/admin/members", () => {
  it("adds, lists, re-adds (role updated, reactivated), patches and deactivates, auditing each change", async () => {
    const { org, api } = await setup();
    const added = await api.post("/v1/admin/members", { email: "Ana@Example.com", role: "viewer" });
    expect(added.status).toBe(201);
    expect(MemberView.strict().parse(added.body)).toMatchObject({ email: "ana@example.com", role: "viewer", active: true });

    const patched = await api.patch("/v1/admin/members/ana%40example.com", { role: "operator" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ role: "operator", active: true });

    const removed = await api.delete("/v1/admin/members/ana@example.com");
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ email: "ana@example.com", active: false });
    expect(await org.db.consoleMember.count({ where: { orgId: org.orgId } })).toBe(1);

    const readded = await api.post("/v1/admin/members", { email: "ana@example.com", role: "admin" });
    expect(readded.status).toBe(201);
    expect(readded.body).toMatchObject({ role: "admin", active: true });

    const list = await api.get("/v1/admin/members");
    expect(MemberList.parse(list.body).members).toEqual([
      expect.objectContaining({ email: "ana@example.com", role: "admin", active: true }),
    ]);

    const keyId = (await org.db.apiKey.findFirstOrThrow({ where: { orgId: org.orgId } })).id;
    expect((await audits(org, "member.added")).map((e) => [e.subject, e.actor])).toEqual([["ana@example.com", `api_key:${keyId}`]]);
    expect((await audits(org, "member.updated")).map((e) => e.data)).toEqual([
      { before: { role: "viewer", active: true }, after: { role: "operator", active: true } },
      { before: { role: "operator", active: false }, after: { role: "admin", active: true } },
    ]);
    expect(await audits(org, "member.deactivated")).toHaveLength(1);
  });

  it("answers 404 for another organization's member and writes nothing", async () => {
    const { api } = await setup();
    const other = await createTestOrg();
    await other.db.consoleMember.create({ data: { orgId: other.orgId, email: "theirs@example.com", role: "owner" } });
    expect((await api.patch("/v1/admin/members/theirs%40example.com", { active: false })).status).toBe(404);
    expect((await api.delete("/v1/admin/members/theirs%40example.com")).status).toBe(404);
    expect(await other.db.consoleMember.findFirstOrThrow({ where: { orgId: other.orgId } })).toMatchObject({ active: true, role: "owner" });
  });

  it("validates: a bad address or role, an empty patch and unknown fields are 400", async () => {
    const { api } = await setup();
    expect((await api.post("/v1/admin/members", { email: "not-an-address", role: "viewer" })).status).toBe(400);
    expect((await api.post("/v1/admin/members", { email: "a@example.com", role: "root" })).status).toBe(400);
    await api.post("/v1/admin/members", { email: "a@example.com", role: "viewer" });
    expect((await api.patch("/v1/admin/members/a%40example.com", {})).status).toBe(400);
    expect((await api.patch("/v1/admin/members/a%40example.com", { role: "viewer", extra: 1 })).status).toBe(400);
  });

  it("refuses to demote or deactivate the last active owner (409 last_owner), allows it once another owner exists", async () => {
    const { org, api } = await setup();
    await api.post("/v1/admin/members", { email: "own@example.com", role: "owner" });
    const demote = await api.patch("/v1/admin/members/own%40example.com", { role: "admin" });
    expect(demote.status).toBe(409);
    expect(demote.body.error.details.reason).toBe("last_owner");
    expect((await api.delete("/v1/admin/members/own%40example.com")).status).toBe(409);
    expect((await api.post("/v1/admin/members", { email: "own@example.com", role: "viewer" })).status).toBe(409);
    await api.post("/v1/admin/members", { email: "two@example.com", role: "owner" });
    expect((await api.delete("/v1/admin/members/own%40example.com")).status).toBe(200);
    expect(await org.db.consoleMember.count({ where: { orgId: org.orgId, role: "owner", active: true } })).toBe(1);
  });
});

describe("members service: console rules", () => {
  it("a member cannot grant a role above their own nor change a higher member", async () => {
    const { org } = await setup();
    const ctx = await asMember(org, "boss@example.com", "owner");
    await addMember(ctx, { email: "adm@example.com", role: "admin" });
    await addMember(ctx, { email: "co@example.com", role: "compliance_officer" });
    const admin = await asMember(org, "adm@example.com", "admin");
    expect((await appErrorOf(addMember(admin, { email: "x@example.com", role: "owner" }))).details).toMatchObject({
      reason: "console_role",
    });
    expect((await appErrorOf(updateMember(admin, "boss@example.com", { role: "viewer" }))).code).toBe("FORBIDDEN");
    expect((await appErrorOf(removeMember(admin, "boss@example.com"))).code).toBe("FORBIDDEN");
    expect(await updateMember(admin, "co@example.com", { role: "admin" })).toMatchObject({ role: "admin" });
    const co = await asMember(org, "co2@example.com", "compliance_officer");
    expect((await appErrorOf(updateMember(co, "co@example.com", { active: false }))).code).toBe("FORBIDDEN");
    expect(await org.db.consoleMember.findFirstOrThrow({ where: { orgId: org.orgId, email: "co@example.com" } })).toMatchObject({
      active: true,
    });
  });

  it("the first member added from a bootstrap session makes the signed-in address an owner too", async () => {
    const { org } = await setup();
    const ctx = await asMember(org, "founder@example.com", "owner");
    await addMember(ctx, { email: "colleague@example.com", role: "compliance_officer" });
    const rows = await org.db.consoleMember.findMany({ where: { orgId: org.orgId }, orderBy: { email: "asc" } });
    expect(rows.map((r) => [r.email, r.role, r.active])).toEqual([
      ["colleague@example.com", "compliance_officer", true],
      ["founder@example.com", "owner", true],
    ]);
    const entries = await audits(org, "member.added");
    expect(entries.map((e) => e.actor)).toEqual(["member:founder@example.com", "member:founder@example.com"]);
  });

  it("re-adding an active member with the same role changes nothing and audits nothing", async () => {
    const { org } = await setup();
    const ctx = await asMember(org, "boss@example.com", "owner");
    await addMember(ctx, { email: "boss@example.com", role: "owner" });
    const before = await org.db.auditEntry.count({ where: { orgId: org.orgId } });
    await addMember(ctx, { email: "boss@example.com", role: "owner" });
    expect(await org.db.auditEntry.count({ where: { orgId: org.orgId } })).toBe(before);
  });
});
