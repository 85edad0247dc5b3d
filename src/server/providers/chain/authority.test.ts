import { Bytes, Checksum256, PrivateKey, Signature } from "@wharfkit/antelope";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keySigner, webAuthnSigner } from "../../testing/wallet-proofs";
import type { AuthorityJson } from "./abi";
import { k1Recovery, MAX_AUTHORITY_DEPTH, normaliseAuthorityKey, recoverSigners, SignatureProblem, satisfies } from "./authority";

const key = () => keySigner(PrivateKey.generate("K1"));
const auth = (threshold: number, keys: [string, number][], accounts: [string, number][] = [], waits: number[] = []): AuthorityJson => ({
  threshold,
  keys: keys.map(([k, weight]) => ({ key: k, weight })),
  accounts: accounts.map(([level, weight]) => {
    const [actor, permission] = level.split("@");
    return { permission: { actor: actor!, permission: permission! }, weight };
  }),
  waits: waits.map((weight) => ({ wait_sec: 3600, weight })),
});
const none = async () => null;

describe("satisfies: an authority as the chain's checker evaluates it", () => {
  it("sums the signing keys' weights against the threshold, each key once, and never counts waits", async () => {
    const [a, b] = [key().publicKey, key().publicKey];
    const twoOfThree = auth(2, [
      [a, 1],
      [b, 1],
      [key().publicKey, 1],
    ]);
    expect(await satisfies(twoOfThree, [a], none)).toMatchObject({ satisfied: false, weight: 1, threshold: 2 });
    expect(await satisfies(twoOfThree, [a, a], none)).toMatchObject({ satisfied: false, weight: 1 });
    expect(await satisfies(twoOfThree, [a, b], none)).toMatchObject({ satisfied: true, weight: 2, keysUsed: [a, b] });
    expect(await satisfies(auth(2, [[a, 1]], [], [1]), [a], none)).toMatchObject({ satisfied: false, weight: 1 });
    expect(await satisfies(auth(3, [[a, 3]]), [a], none)).toMatchObject({ satisfied: true });
  });

  it("follows delegated permissions to the chain's depth and no further; an unknown delegate adds nothing", async () => {
    const k = key().publicKey;
    // x0@active → x1@active → … → xN@active, whose key is k.
    const chainOf = (n: number) => async (actor: string) => {
      const i = Number(actor.slice(1));
      if (i === n) return auth(1, [[k, 1]]);
      return i < n ? auth(1, [], [[`x${i + 1}@active`, 1]]) : null;
    };
    const top = auth(1, [], [["x1@active", 1]]);
    expect((await satisfies(top, [k], chainOf(MAX_AUTHORITY_DEPTH))).satisfied).toBe(true);
    expect((await satisfies(top, [k], chainOf(MAX_AUTHORITY_DEPTH + 1))).satisfied).toBe(false);
    expect((await satisfies(top, [k], none)).satisfied).toBe(false);
  });
});

describe("recoverSigners and keys", () => {
  it("recovers K1, R1 and WebAuthn signers and names what is wrong with a signature that gives none", () => {
    const digest = Checksum256.hash(new TextEncoder().encode("challenge")).array;
    const signers = [key(), keySigner(PrivateKey.generate("R1")), webAuthnSigner()];
    expect(
      recoverSigners(
        digest,
        signers.map((s) => s.signDigest(digest)),
      ),
    ).toEqual(signers.map((s) => s.publicKey));
    expect(() => recoverSigners(digest, ["SIG_XX_abc"])).toThrow(SignatureProblem);
    const wa = signers[2]!.signDigest(Checksum256.hash(new TextEncoder().encode("another")).array);
    expect(() => recoverSigners(digest, [wa])).toThrow(/challenge is not the digest/);
  });

  it("normalises K1, R1, legacy and WebAuthn keys, and refuses what is not a key", () => {
    const k1 = PrivateKey.generate("K1").toPublic();
    expect(normaliseAuthorityKey(k1.toLegacyString())).toBe(k1.toString());
    expect(normaliseAuthorityKey(webAuthnSigner().publicKey)).toMatch(/^PUB_WA_/);
    for (const bad of ["PUB_WA_notbase58!", "junkEOS6MRyAjQq8ud7hVNYcfnVPJqcVpscN5So8BhtHuGYqET5GDW5CV", 42])
      expect(normaliseAuthorityKey(bad)).toBeNull();
  });
});

describe("recoverSigners against wharfkit's own recovery", () => {
  // The fast recovery must name the key wharfkit's recoverDigest names, or refuse where it throws,
  // for valid signatures of both curves and for signatures with damaged bytes.
  const wharfkit = (digest: Uint8Array, sig: Signature) => {
    try {
      return sig.recoverDigest(Checksum256.from(digest)).toString();
    } catch {
      return "refused";
    }
  };
  const ours = (digest: Uint8Array, sig: Signature) => {
    try {
      return recoverSigners(digest, [sig.toString()])[0]!;
    } catch {
      return "refused";
    }
  };
  it("names the same key or refuses alike, K1 and R1, intact and with one byte changed", async () => {
    // K1 goes through libsecp256k1 here, as in the service (noble answers only until it loads).
    expect(await k1Recovery).toBe("libsecp256k1");
    const keys = [PrivateKey.generate("K1"), PrivateKey.generate("R1")];
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.nat(1),
        fc.nat(64),
        fc.integer({ min: 1, max: 255 }),
        (digest, k, at, flip) => {
          const sig = keys[k]!.signDigest(Checksum256.from(digest));
          expect(ours(digest, sig)).toBe(keys[k]!.toPublic().toString());
          const bytes = sig.data.array.slice();
          bytes[at] = bytes[at]! ^ flip;
          const damaged = new Signature(sig.type, Bytes.from(bytes));
          expect(ours(digest, damaged)).toBe(wharfkit(digest, damaged));
        },
      ),
      { numRuns: 100 },
    );
  });
});
