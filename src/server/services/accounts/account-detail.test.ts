import { describe, expect, it } from "vitest";
import type { Actor } from "../../context";
import { serviceCtx } from "../../testing/aml";
import { client, createTestOrg, testServer } from "../../testing/harness";
import { boundAccount } from "../../testing/kyc-flow";
import { recordScreeningHit } from "../aml/hits";
import { getPersonDetail } from "../people";
import { getAccountDetail } from "./account-detail";
import { getAccount } from "./accounts";

// Why a binding is held is AML work. A console member below compliance officer sees that an
// account's binding is suspended, never that a sanctions match is why (tipping-off), and no AML
// entries in its audit trail; compliance officers, admins and API keys see everything.

const member = (role: string): Actor => ({ type: "member", email: `${role}@acme.test`, role });

async function heldAccount() {
  const { url, db } = await testServer();
  const org = await createTestOrg({ plan: "institutional" });
  const bound = await boundAccount(url, client(url, org.apiKey));
  const personId = bound.personDid.split(":").pop()!;
  await db.$transaction((tx) =>
    recordScreeningHit(tx, {
      orgId: org.orgId,
      personId,
      subjectDid: bound.personDid,
      outcome: { sanctions: true, pep: false, severity: "critical", score: 97, resultId: null },
      actor: "system:screening",
    }),
  );
  const as = (actor: Actor) => serviceCtx(db, org.orgId, actor);
  return { ...bound, personId, as };
}

const reasonsIn = (entries: { action: string; data: unknown; summary: string }[]) =>
  entries.filter((e) => /^(aml|screening)\./.test(e.action) || /sanction/i.test(`${JSON.stringify(e.data)} ${e.summary}`));

describe("AML detail on the account and person pages", () => {
  it("shows a viewer the suspension but not its reason, and no AML entries; a compliance officer sees both", async () => {
    const a = await heldAccount();
    const officer = await getAccountDetail(await a.as(member("compliance_officer")), a.accountDid);
    expect(officer.allBindings[0]).toMatchObject({ status: "suspended", suspendedFor: ["sanctions_flag"] });
    expect(officer.bindings[0]!.suspendedFor).toEqual(["sanctions_flag"]);
    expect(reasonsIn(officer.audit).length).toBeGreaterThan(0);

    for (const role of ["viewer", "operator"]) {
      const seen = await getAccountDetail(await a.as(member(role)), a.accountDid);
      expect(seen.allBindings[0], role).toMatchObject({ status: "suspended", suspendedFor: [], revocationReason: null });
      expect(seen.bindings[0]!.suspendedFor).toEqual([]);
      expect(reasonsIn(seen.audit), role).toEqual([]);
      expect(
        seen.audit.some((e) => e.action === "identity.binding_suspended"),
        role,
      ).toBe(true);
      const read = await getAccount(await a.as(member(role)), a.accountDid);
      expect(read.bindings[0]!.suspendedFor).toEqual([]);
    }

    const operatorPerson = await getPersonDetail(await a.as(member("operator")), a.personId);
    expect(reasonsIn(operatorPerson.audit)).toEqual([]);
    const key = await getAccount(await a.as({ type: "api_key", id: "k", label: "backend" }), a.accountDid);
    expect(key.bindings[0]!.suspendedFor).toEqual(["sanctions_flag"]);
  });
});
