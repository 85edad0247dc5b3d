// An examiner's checker of audit exports, written from the export recipe in docs/decisions.md
// ("Audit and exports", "Export recipe") alone: Ed25519 from @noble/curves, JCS from canonicalize,
// SHA-256 from Node, and nothing of ours. Tests hold it against real exports.
import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import canonicalize from "canonicalize";

type Entry = {
  id: string;
  seq: number;
  actor: string;
  action: string;
  subjectType: string | null;
  subject: string | null;
  data: unknown;
  createdAt: string;
  prevHash: string;
  hash: string;
};
export type Artifact = {
  format: string;
  organizationId: string;
  from: string;
  to: string;
  entries: Entry[];
  checkpoint: Record<string, unknown>;
  proof: { alg: string; canonicalization: string; verificationMethod: string; signatureMultibase: string };
};
export type DidDocument = { id: string; verificationMethod: { id: string; publicKeyMultibase: string }[]; assertionMethod: string[] };

const BASE58_BTC = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58btc(text: string): Uint8Array {
  let n = 0n;
  for (const c of text) {
    const digit = BASE58_BTC.indexOf(c);
    if (digit < 0) throw new Error(`not base58btc: ${c}`);
    n = n * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  for (; n > 0n; n /= 256n) bytes.unshift(Number(n % 256n));
  for (const c of text) {
    if (c !== "1") break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

/** Multibase `z` + base58btc. */
const multibase = (text: string) => {
  if (!text.startsWith("z")) throw new Error("not multibase base58btc");
  return base58btc(text.slice(1));
};
const jcs = (value: unknown) => {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("not canonicalisable");
  return text;
};
const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The recipe, step by step; the first step that fails is the answer. */
export function checkByRecipe(a: Artifact, did: DidDocument): string | null {
  // 1. Key.
  const method = a.proof.verificationMethod;
  if (!did.assertionMethod.includes(method) || !method.startsWith(`${did.id}#`)) return "key not an assertion method";
  const vm = did.verificationMethod.find((m) => m.id === method);
  if (!vm) return "key not in the document";
  const key = multibase(vm.publicKeyMultibase);
  if (key.length !== 34 || key[0] !== 0xed || key[1] !== 0x01) return "key is not an Ed25519 Multikey";
  // 2. Signature over the JCS form of the checkpoint as received.
  if (a.proof.alg !== "Ed25519" || a.proof.canonicalization !== "JCS") return "unknown proof";
  const signature = multibase(a.proof.signatureMultibase);
  if (signature.length !== 64) return "signature is not 64 bytes";
  if (!ed25519.verify(signature, new TextEncoder().encode(jcs(a.checkpoint)), key.slice(2))) return "signature";
  // 3. Checkpoint.
  const cp = a.checkpoint;
  const first = a.entries[0];
  const last = a.entries[a.entries.length - 1];
  if (cp.type !== "bi-audit-checkpoint/1") return "checkpoint type";
  if (cp.organizationId !== a.organizationId || cp.from !== a.from || cp.to !== a.to) return "checkpoint range";
  if (cp.count !== a.entries.length) return "count";
  if (cp.firstSeq !== (first?.seq ?? null) || cp.lastSeq !== (last?.seq ?? null) || cp.headHash !== (last?.hash ?? null)) return "bounds";
  for (const [i, e] of a.entries.entries()) {
    // 4. Range, half-open.
    const at = Date.parse(e.createdAt);
    if (!(Date.parse(a.from) <= at && at < Date.parse(a.to))) return `entry ${e.seq} outside [from, to)`;
    // 5. Links.
    const prev = a.entries[i - 1];
    if (prev && (e.seq !== prev.seq + 1 || e.prevHash !== prev.hash)) return `entry ${e.seq} link`;
    if (e.seq === 1 && e.prevHash !== "0".repeat(64)) return "genesis link";
    // 6. Entry hash.
    const hashed = {
      v: 1,
      orgId: a.organizationId,
      seq: e.seq,
      actor: e.actor,
      action: e.action,
      subjectType: e.subjectType ?? null,
      subject: e.subject ?? null,
      data: e.data,
      createdAt: e.createdAt,
      prevHash: e.prevHash,
    };
    if (sha256Hex(jcs(hashed)) !== e.hash) return `entry ${e.seq} hash`;
  }
  // 3, last: the digest covers what the hashes leave out (ids); checked after them so a changed entry is named.
  if (cp.entriesDigest !== sha256Hex(jcs(a.entries))) return "entriesDigest";
  return null;
}
