import { describe, expect, it } from "vitest";
import type { ServiceContext } from "../context";
import { getDb } from "../db/client";
import { logger } from "../log";
import { createTestOrg } from "../testing/harness";
import { createCaller } from "./root";

async function memberContext(role: string) {
  const db = await getDb();
  const { orgId } = await createTestOrg();
  const org = (await db.organization.findUnique({ where: { id: orgId } }))!;
  const svc: ServiceContext = {
    db,
    org,
    actor: { type: "member", email: `${role}@acme.test`, role },
    correlationId: "t",
    clientIp: "127.0.0.1",
    log: logger(),
    now: () => new Date(),
  };
  return { db, orgId, caller: createCaller({ svc }) };
}

describe("the console door calls the same services as /v1", () => {
  it("reads the tenant and updates the policy as a member, audited under the member's address", async () => {
    const { db, orgId, caller } = await memberContext("admin");
    expect((await caller.tenant.get()).organizationId).toBe(orgId);
    const policy = await caller.tenant.updatePolicy({ requireSecondApprovalToClearAml: true });
    expect(policy.requireSecondApprovalToClearAml).toBe(true);
    const entry = await db.auditEntry.findFirst({ where: { orgId, action: "policy.updated" } });
    expect(entry?.actor).toBe("member:admin@acme.test");
  });

  it("refuses a role below the procedure's, and a caller with no session, writing nothing", async () => {
    const { db, orgId, caller } = await memberContext("viewer");
    await expect(caller.tenant.updatePolicy({ requireSecondApprovalToClearAml: true })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(createCaller({ svc: null }).tenant.get()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect(await db.auditEntry.count({ where: { orgId, action: "policy.updated" } })).toBe(0);
  });

  it("validates input with the same zod schema as the /v1 route", async () => {
    const { caller } = await memberContext("owner");
    await expect(caller.tenant.updatePolicy({} as never)).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("webhook events in the console", () => {
  it("registers names picked from the catalog and refuses one outside it, writing nothing", async () => {
    const { db, orgId, caller } = await memberContext("admin");
    await expect(
      caller.webhooks.register({ url: "https://hooks.example.com/a", events: ["account.created", "acount.created"] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await db.webhook.count({ where: { orgId } })).toBe(0);
    await expect(caller.webhooks.register({ url: "https://hooks.example.com/a", events: [] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });
});
