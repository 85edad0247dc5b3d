import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import type { MemberRole } from "@/generated/prisma/enums.ts";
import { ROLES, roleRank } from "@/lib/roles";
import type { ServiceContext } from "../context";
import { getDb } from "../db/client";
import { logger } from "../log";
import { createTestOrg } from "../testing/harness";
import { appRouter, createCaller } from "./root";
import type { ConsoleMeta } from "./trpc";

/**
 * The weakest role of every console procedure. A procedure missing here fails the test, so a new
 * router cannot ship without its role being decided and checked.
 */
const EXPECTED: Record<string, MemberRole> = {
  "tenant.get": "viewer",
  "tenant.updatePolicy": "admin",
  "session.me": "viewer",
  "session.credentials": "viewer",
  "session.list": "viewer",
  "session.revoke": "viewer",
  "session.setUpOwnCredentials": "viewer",
  "session.ownCredentials": "viewer",
  "session.removeCredential": "viewer",
  "members.list": "admin",
  "members.add": "admin",
  "members.update": "admin",
  "members.remove": "admin",
  "members.resendInvitation": "admin",
  "members.endSessions": "admin",
  "apiKeys.list": "admin",
  "apiKeys.get": "admin",
  "apiKeys.mint": "admin",
  "apiKeys.revoke": "admin",
  "tenant.settings": "admin",
  "tenant.clientIp": "admin",
  "tenant.enableSigning": "admin",
  "tenant.disableSigning": "admin",
  "tenant.setIpAllowlist": "admin",
  "tenant.setCountryPolicy": "admin",
  "tenant.acceptDpa": "admin",
  "tenant.attestations": "admin",
  "tenant.setAttestations": "admin",
  "tenant.changePassword": "owner",
  "audit.list": "compliance_officer",
  "audit.verify": "compliance_officer",
  "audit.exports": "compliance_officer",
  "audit.requestExport": "compliance_officer",
  "audit.getExport": "compliance_officer",
  "accounts.list": "viewer",
  "accounts.get": "viewer",
  "accounts.detail": "viewer",
  "accounts.suspend": "admin",
  "accounts.revokeBinding": "compliance_officer",
  "dashboard.get": "viewer",
  "aml.queue": "compliance_officer",
  "aml.overview": "compliance_officer",
  "aml.detail": "compliance_officer",
  "aml.proposeClear": "compliance_officer",
  "aml.approveClear": "compliance_officer",
  "aml.confirm": "compliance_officer",
  "aml.timeline": "compliance_officer",
  "aml.exportCase": "compliance_officer",
  "aml.assign": "compliance_officer",
  "aml.reassign": "compliance_officer",
  "aml.unassign": "compliance_officer",
  "aml.next": "compliance_officer",
  "aml.comment": "compliance_officer",
  "aml.sla": "compliance_officer",
  "aml.updateSla": "admin",
  "webhooks.list": "operator",
  "webhooks.deliveries": "operator",
  "webhooks.replay": "operator",
  "webhooks.register": "admin",
  "webhooks.deactivate": "admin",
  "webhooks.rotateSecret": "admin",
  "webhooks.recover": "operator",
  "webhooks.attempts": "operator",
  "webhooks.sendTest": "operator",
  "webhooks.disable": "admin",
  "webhooks.enable": "admin",
  "webhooks.recoverJobs": "operator",
  "webhooks.recoverJob": "operator",
  "people.list": "operator",
  "people.get": "operator",
  "people.erase": "admin",
  "people.erasure": "admin",
  "people.exportData": "compliance_officer",
  "people.withdrawErasure": "admin",
  "organizations.list": "operator",
  "risk.overview": "compliance_officer",
  "billing.overview": "admin",
  "billing.history": "admin",
  "billing.upgrade": "admin",
  "billing.portal": "admin",
  "billing.invoices": "admin",
  "screening.listVersions": "compliance_officer",
  "screening.listDiff": "compliance_officer",
  "screening.uploadList": "compliance_officer",
  "screening.runs": "compliance_officer",
  "screening.run": "compliance_officer",
  "screening.monitoring": "compliance_officer",
  "screening.setMonitoring": "admin",
};

const below = (r: MemberRole) => ROLES[roleRank(r) - 1];

type Proc = { _def: { meta?: ConsoleMeta; type: "query" | "mutation" | "subscription" } };
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, Proc>);

async function ctxFor(role: MemberRole): Promise<ServiceContext> {
  const db = await getDb();
  const { orgId } = await createTestOrg();
  const org = await db.organization.findUniqueOrThrow({ where: { id: orgId } });
  return {
    db,
    org,
    actor: { type: "member", email: `${role}@roles.test`, role },
    correlationId: "t",
    clientIp: "127.0.0.1",
    log: logger(),
    now: () => new Date(),
  };
}

function call(svc: ServiceContext | null, path: string) {
  const caller = createCaller({ svc }) as unknown as Record<string, Record<string, (input?: unknown) => Promise<unknown>>>;
  const [ns, name] = path.split(".") as [string, string];
  return caller[ns]![name]!(undefined);
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "OK",
    (e: unknown) => (e instanceof TRPCError ? e.code : `not a TRPCError: ${String(e)}`),
  );

describe("every console procedure is gated by role", () => {
  it("lists exactly the procedures whose roles are decided here", () => {
    expect(Object.fromEntries(procedures.map(([path, p]) => [path, p._def.meta?.minRole]))).toEqual(EXPECTED);
  });

  it("refuses a caller with no session (401)", async () => {
    for (const [path] of procedures) expect([path, await codeOf(call(null, path))]).toEqual([path, "UNAUTHORIZED"]);
  });

  it("refuses the role just below each procedure's minimum (403) and admits the minimum", async () => {
    const ctx: Partial<Record<MemberRole, ServiceContext>> = {};
    for (const r of ROLES) ctx[r] = await ctxFor(r);
    for (const [path, p] of procedures) {
      const min = p._def.meta!.minRole;
      const weaker = below(min);
      if (weaker) expect([path, weaker, await codeOf(call(ctx[weaker]!, path))]).toEqual([path, weaker, "FORBIDDEN"]);
      // With no input the minimum role gets past the gate: a query may answer, anything else fails validation.
      if (p._def.type === "query") {
        expect([path, min, await codeOf(call(ctx[min]!, path))]).toSatisfy(
          ([, , code]: string[]) => code === "OK" || code === "BAD_REQUEST",
        );
      }
    }
  });
});
