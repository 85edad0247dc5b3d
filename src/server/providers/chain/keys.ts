import { randomBytes, randomInt } from "node:crypto";
import { Bytes, KeyType, PublicKey, Signature } from "@wharfkit/antelope";
import { AppError, conflict } from "../../errors";

const BASE58 = "[1-9A-HJ-NP-Za-km-z]";
// wharfkit reads any string of 50+ characters as a legacy key from its last 50, so the shape is
// checked here first: "junkEOS6…" must not pass as a key.
const LEGACY_KEY = new RegExp(`^EOS${BASE58}{50}$`);
const MODERN_KEY = new RegExp(`^PUB_(K1|R1)_${BASE58}+$`);

/**
 * Normalises an Antelope public key (`PUB_K1_…`, `PUB_R1_…` or legacy `EOS…`) to its modern
 * form, or null when it is not one: the keys a new account is created with. Keys already in an
 * account's authority may also be WebAuthn (`PUB_WA_`): authority.ts reads those.
 */
export function parsePublicKey(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const s = value.trim();
  if (!LEGACY_KEY.test(s) && !MODERN_KEY.test(s)) return null;
  try {
    const key = PublicKey.from(s);
    if (key.type !== KeyType.K1 && key.type !== KeyType.R1) return null;
    return key.toString();
  } catch {
    return null;
  }
}

const NAME = /^[a-z1-5.]{1,12}$/;

/** An account name as the contract allows it: `^[a-z1-5.]{1,12}$`, never ending in a dot. */
export function isValidAccountName(name: unknown): name is string {
  return typeof name === "string" && NAME.test(name) && !name.endsWith(".");
}

const NAME_CHARS = "abcdefghijklmnopqrstuvwxyz12345";

/** A random 12-character name without dots: 12 characters is what any account may create. */
export function generateAccountName(): string {
  let out = "";
  for (let i = 0; i < 12; i++) out += NAME_CHARS[randomInt(NAME_CHARS.length)];
  return out;
}

/**
 * True when `signature` (`SIG_K1_…`/`SIG_R1_…`) was made by `publicKey` over the SHA-256 of
 * `message` (a string is taken as UTF-8, not hex as `Bytes.from` would). Never throws. A proof of
 * an account's consent is checked against its whole authority instead (platform/wallet-proof.ts).
 */
export function verifySignature(input: { message: Uint8Array | string; signature: string; publicKey: string }): boolean {
  const key = parsePublicKey(input.publicKey);
  if (!key || typeof input.signature !== "string") return false;
  try {
    const bytes = typeof input.message === "string" ? Bytes.from(input.message, "utf8") : Bytes.from(input.message);
    const sig = Signature.from(input.signature.trim());
    if (sig.type !== KeyType.K1 && sig.type !== KeyType.R1) return false;
    return sig.verifyMessage(bytes, PublicKey.from(key));
  } catch {
    return false;
  }
}

/** A 64-hex transaction id, as a chain prints one. */
export function randomTransactionId(): string {
  return randomBytes(32).toString("hex");
}

export const invalidChainInput = (path: string, message: string) =>
  new AppError("VALIDATION_ERROR", "The chain request is not valid.", { issues: [{ path, message }] });

export function requireName(name: string, path: string): string {
  if (!isValidAccountName(name)) throw invalidChainInput(path, "must be an account name (^[a-z1-5.]{1,12}$, no trailing dot)");
  return name;
}

export function requireKey(key: string, path: string): string {
  const parsed = parsePublicKey(key);
  if (!parsed) throw invalidChainInput(path, "must be a PUB_K1_, PUB_R1_ or EOS public key");
  return parsed;
}

/** Both chains answer a taken name the same way, so the accounts service can hand back its KYC token. */
export const nameTaken = () => conflict("name_taken", "The account name is already taken on the chain.");
