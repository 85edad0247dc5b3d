import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { sha256Hex } from "../../crypto/hash";
import { jcs } from "../../crypto/jcs";
import { ExportArtifact } from "./audit.schema";
import { entryHash } from "./chain";

export type ArtifactVerification = { valid: true; entries: number } | { valid: false; reason: string; entryId?: string };

const fail = (reason: string, entryId?: string): ArtifactVerification => ({ valid: false, reason, ...(entryId ? { entryId } : {}) });

function ed25519PublicKey(multibase: string): Uint8Array | null {
  try {
    const bytes = base58.decode(multibase.startsWith("z") ? multibase.slice(1) : "!");
    return bytes.length === 34 && bytes[0] === 0xed && bytes[1] === 0x01 ? bytes.slice(2) : null;
  } catch {
    return null;
  }
}

function signatureOk(message: string, signatureMultibase: string, publicKey: Uint8Array): boolean {
  try {
    if (!signatureMultibase.startsWith("z")) return false;
    return ed25519.verify(base58.decode(signatureMultibase.slice(1)), new TextEncoder().encode(message), publicKey);
  } catch {
    return false;
  }
}

/**
 * The proof of a signed checkpoint (audit exports, AML case exports): the proof names the key
 * whose Multikey is given, and its Ed25519 signature verifies over the JCS form of the checkpoint
 * exactly as received. The reason it fails, or null. Pure.
 */
export function checkpointProofProblem(
  checkpoint: unknown,
  proof: { verificationMethod: string; signatureMultibase: string },
  publicKeyMultibase: string,
): string | null {
  const publicKey = ed25519PublicKey(publicKeyMultibase);
  if (!publicKey) return "the public key is not an Ed25519 Multikey";
  if (!proof.verificationMethod.endsWith(`#${publicKeyMultibase}`)) return "the proof names a different verification method";
  if (!signatureOk(jcs(checkpoint), proof.signatureMultibase, publicKey)) return "the checkpoint signature does not verify";
  return null;
}

/**
 * Checks an export artifact away from the service, with nothing but the issuer's public key (the
 * `publicKeyMultibase` of the verification method in /.well-known/did.json): every entry hash is
 * recomputed, every link inside the range and every time inside [from, to) is checked, the
 * checkpoint must describe exactly these entries, and its Ed25519 signature must verify.
 * Pure: no I/O, no clock.
 */
export function verifyExportArtifact(input: unknown, publicKeyMultibase: string): ArtifactVerification {
  const parsed = ExportArtifact.safeParse(input);
  if (!parsed.success) return fail("the artifact does not have the bi-audit-export/1 shape");
  const a = parsed.data;
  const cp = a.checkpoint;
  // Signature and digest cover the artifact as received: parsing drops unknown keys, which must not escape them.
  const raw = input as { checkpoint: unknown; entries: unknown };
  const proofProblem = checkpointProofProblem(raw.checkpoint, a.proof, publicKeyMultibase);
  if (proofProblem) return fail(proofProblem);

  if (cp.organizationId !== a.organizationId || cp.from !== a.from || cp.to !== a.to) {
    return fail("the checkpoint describes another organization or range");
  }
  const from = Date.parse(a.from);
  const to = Date.parse(a.to);
  const last = a.entries[a.entries.length - 1];
  if (cp.count !== a.entries.length) return fail("the checkpoint count does not match the entries");
  if ((cp.firstSeq ?? null) !== (a.entries[0]?.seq ?? null) || (cp.lastSeq ?? null) !== (last?.seq ?? null)) {
    return fail("the checkpoint sequence bounds do not match the entries");
  }

  for (const [i, e] of a.entries.entries()) {
    const prev = a.entries[i - 1];
    const at = Date.parse(e.createdAt);
    if (prev && e.seq !== prev.seq + 1) return fail("the entry does not follow the previous one in sequence", e.id);
    if (prev && e.prevHash !== prev.hash) return fail("prevHash does not match the previous entry's hash", e.id);
    if (at < from || at >= to) return fail("the entry lies outside the exported range", e.id);
    if (entryHash({ ...e, orgId: a.organizationId, createdAt: new Date(at) }) !== e.hash) {
      return fail("hash does not match the entry's contents", e.id);
    }
  }
  if ((cp.headHash ?? null) !== (last?.hash ?? null)) return fail("the checkpoint head hash is not the last entry's hash");
  if (sha256Hex(jcs(raw.entries)) !== cp.entriesDigest) return fail("the entries digest does not match the entries");
  return { valid: true, entries: a.entries.length };
}
