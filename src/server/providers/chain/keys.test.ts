import { createHash } from "node:crypto";
import { Bytes, PrivateKey } from "@wharfkit/antelope";
import { describe, expect, it } from "vitest";
import { generateAccountName, isValidAccountName, parsePublicKey, verifySignature } from "./keys";

describe("parsePublicKey", () => {
  const k1 = PrivateKey.generate("K1").toPublic();
  const r1 = PrivateKey.generate("R1").toPublic();

  it("accepts PUB_K1_, PUB_R1_ and legacy EOS keys and returns the modern form", () => {
    expect(parsePublicKey(k1.toString())).toBe(k1.toString());
    expect(parsePublicKey(k1.toLegacyString())).toBe(k1.toString());
    expect(parsePublicKey(r1.toString())).toBe(r1.toString());
    expect(parsePublicKey(`  ${k1.toString()}\n`)).toBe(k1.toString());
    expect(k1.toString()).toMatch(/^PUB_K1_/);
    expect(r1.toString()).toMatch(/^PUB_R1_/);
  });

  it("rejects junk, bad checksums and look-alikes", () => {
    const legacy = k1.toLegacyString();
    const flipped = legacy.slice(0, 10) + (legacy[10] === "a" ? "b" : "a") + legacy.slice(11);
    for (const bad of [
      "",
      "EOS123",
      "PUB_K1_abc",
      `PUB_XX_${k1.toString().slice(7)}`,
      `junk${legacy}`,
      `${legacy}x`,
      flipped,
      k1.toString().replace("PUB_K1_", "PUB_R1_"),
      "PVT_K1_2bfGi9rYsXQSXXTvJbDAPhHLQUojjaNLomdm3cEJ1XTzMqUt3V",
      42,
      null,
      undefined,
    ]) {
      expect(parsePublicKey(bad), String(bad)).toBeNull();
    }
  });
});

describe("isValidAccountName", () => {
  it("accepts 1 to 12 characters of a-z, 1-5 and inner dots", () => {
    for (const ok of ["a", "abcdefghij12", "a.b", "eosio.token", "12345", "z"]) expect(isValidAccountName(ok), ok).toBe(true);
  });
  it("rejects trailing dots, 13+ characters, upper case, 0/6-9 and other characters", () => {
    for (const bad of ["", "abc.", ".", "abcdefghij123", "Abc", "abc6", "abc0", "ab-c", "a b", "ab_c", "é", 7, null]) {
      expect(isValidAccountName(bad), String(bad)).toBe(false);
    }
  });
});

describe("generateAccountName", () => {
  it("makes valid, dotless 12-character names that differ", () => {
    const names = Array.from({ length: 200 }, generateAccountName);
    for (const n of names) {
      expect(n).toMatch(/^[a-z1-5]{12}$/);
      expect(isValidAccountName(n)).toBe(true);
    }
    expect(new Set(names).size).toBe(200);
  });
});

describe("verifySignature", () => {
  const message = "bind-identity\naction: bind\nnonce: 8f1c";

  for (const type of ["K1", "R1"] as const) {
    it(`accepts a ${type} signature over the message and refuses another key or message`, () => {
      const key = PrivateKey.generate(type);
      const other = PrivateKey.generate(type);
      const signature = key.signMessage(Bytes.from(message, "utf8")).toString();
      expect(signature.startsWith(`SIG_${type}_`)).toBe(true);
      expect(verifySignature({ message, signature, publicKey: key.toPublic().toString() })).toBe(true);
      expect(verifySignature({ message: new TextEncoder().encode(message), signature, publicKey: key.toPublic().toString() })).toBe(true);
      expect(verifySignature({ message, signature, publicKey: other.toPublic().toString() })).toBe(false);
      expect(verifySignature({ message: `${message} `, signature, publicKey: key.toPublic().toString() })).toBe(false);
      const forged = other.signMessage(Bytes.from(message, "utf8")).toString();
      expect(verifySignature({ message, signature: forged, publicKey: key.toPublic().toString() })).toBe(false);
    });
  }

  it("verifies over the SHA-256 of the UTF-8 text (what a wallet signs) and takes legacy keys", () => {
    const key = PrivateKey.generate("K1");
    const text = "payload with ünïcode";
    const digest = createHash("sha256").update(text, "utf8").digest();
    const signature = key.signDigest(digest).toString();
    expect(verifySignature({ message: text, signature, publicKey: key.toPublic().toLegacyString() })).toBe(true);
  });

  it("answers false, never throws, on junk", () => {
    const pub = PrivateKey.generate("K1").toPublic().toString();
    expect(verifySignature({ message: "x", signature: "SIG_K1_junk", publicKey: pub })).toBe(false);
    expect(verifySignature({ message: "x", signature: "", publicKey: pub })).toBe(false);
    expect(verifySignature({ message: "x", signature: "SIG_K1_junk", publicKey: "EOSjunk" })).toBe(false);
  });
});
