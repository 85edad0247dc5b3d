import { describe, expect, it } from "vitest";
import { createCaller } from "../../api/root";
import type { ServiceContext } from "../../context";
import { getDb } from "../../db/client";
import { logger } from "../../log";
import { createTestOrg } from "../../testing/harness";

async function ctxOf(orgId: string): Promise<ServiceContext> {
  const db = await getDb();
  const org = await db.organization.findUniqueOrThrow({ where: { id: orgId } });
  return {
    db,
    org,
    actor: { type: "member", email: "co@example.com", role: "compliance_officer" },
    correlationId: "t",
    clientIp: "127.0.0.1",
    log: logger(),
    now: () => new Date(),
  };
}

describe("aml.detail: the case with its stored screening", () => {
  it("answers the hit's list versions and match breakdown, and 404 for another organization's case", async () => {
    const db = await getDb();
    const { orgId } = await createTestOrg();
    const person = await db.person.create({ data: { orgId, kycStatus: "approved", pepFlag: true } });
    const result = await db.screeningResult.create({
      data: {
        orgId,
        subjectType: "person",
        subjectRef: `p:${person.id}`,
        provider: "lists",
        severity: "high",
        score: 91,
        pepHit: true,
        detail: {
          scoringVersion: 2,
          threshold: 0.82,
          listVersions: [{ id: "lv1", list: "opensanctions", versionHash: "abc123def456" }],
          matches: [
            {
              list: "opensanctions",
              name: "jane roe",
              topics: ["role.pep"],
              score: 0.91,
              breakdown: { jaroWinkler: 0.95, phonetic: 1, total: 0.91 },
            },
          ],
        },
      },
    });
    const amlCase = await db.amlCase.create({
      data: {
        orgId,
        personId: person.id,
        subjectDid: `did:web:x:people:${person.id}`,
        status: "open",
        priority: "high",
        reason: "PEP match",
        openedBy: "system:test",
      },
    });
    await db.amlCaseHit.create({ data: { orgId, caseId: amlCase.id, resultId: result.id, severity: "high", pep: true, score: 91 } });

    const detail = await createCaller({ svc: await ctxOf(orgId) }).aml.detail({ caseId: amlCase.id });
    expect(detail.case).toMatchObject({
      caseId: amlCase.id,
      status: "open",
      hits: [expect.objectContaining({ resultId: result.id, score: 91 })],
    });
    expect(detail.screenings).toEqual([
      expect.objectContaining({
        resultId: result.id,
        scoringVersion: "2",
        threshold: 0.82,
        listVersions: [{ id: "lv1", list: "opensanctions", versionHash: "abc123def456" }],
        matches: [expect.objectContaining({ name: "jane roe", score: 0.91, breakdown: { jaroWinkler: 0.95, phonetic: 1, total: 0.91 } })],
      }),
    ]);

    expect(detail.clearing.doesNotChange).toContain("A rejected KYC stays rejected unless the person is verified again.");

    const other = await createTestOrg();
    await expect(createCaller({ svc: await ctxOf(other.orgId) }).aml.detail({ caseId: amlCase.id })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(createCaller({ svc: await ctxOf(other.orgId) }).aml.detail({ caseId: "nope" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});
