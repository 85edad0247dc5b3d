import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { checkpointProofProblem } from "../audit";
import { AmlCaseExport } from "./casework.schema";

export type CaseExportVerification = { valid: true; events: number } | { valid: false; reason: string };

/**
 * Checks a signed AML case export (`bi-aml-case-export/1`, timeline.ts `exportCase`) away from the
 * service, with nothing but the issuer's public key: the checkpoint's Ed25519 signature over its
 * JCS form, that it names this organization and case, that `timelineDigest` is the SHA-256 of the
 * timeline's JCS form as received, that it counts the timeline's events, and that the timeline is
 * this case's and ends with the export itself. Pure: no I/O, no clock.
 */
export function verifyCaseExport(input: unknown, publicKeyMultibase: string): CaseExportVerification {
  const fail = (reason: string): CaseExportVerification => ({ valid: false, reason });
  const parsed = AmlCaseExport.safeParse(input);
  if (!parsed.success) return fail("the artifact does not have the bi-aml-case-export/1 shape");
  const a = parsed.data;
  // Signature and digest cover the bundle as received: parsing drops unknown keys, which must not escape them.
  const raw = input as { checkpoint: unknown; timeline: unknown };
  const proofProblem = checkpointProofProblem(raw.checkpoint, a.proof, publicKeyMultibase);
  if (proofProblem) return fail(proofProblem);
  const cp = a.checkpoint;
  if (cp.organizationId !== a.organizationId || cp.caseId !== a.caseId)
    return fail("the checkpoint describes another organization or case");
  if (sha256Hex(jcs(raw.timeline)) !== cp.timelineDigest) return fail("the timeline digest does not match the timeline");
  if (cp.events !== a.timeline.events.length) return fail("the checkpoint's event count does not match the timeline");
  if (a.timeline.case.caseId !== a.caseId) return fail("the timeline is another case's");
  if (a.timeline.events.at(-1)?.kind !== "exported") return fail("the timeline does not end with its export");
  return { valid: true, events: a.timeline.events.length };
}
