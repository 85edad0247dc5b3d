import { spawnSync } from "node:child_process";
import { hash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChunkLayout, chunkHolds } from "./chunk-holds";
import { NATIVE_DIGESTS_PATH, type NativeDigests, nativeDigests } from "./native-digests";

const compilerHere = spawnSync(process.env.CC || "cc", ["--version"]).status === 0;

/** The native module, which `npm install` builds wherever a C compiler is (scripts/build-native.mjs). */
function native(): NativeDigests {
  const loaded = nativeDigests();
  if (!loaded) throw new Error(`${NATIVE_DIGESTS_PATH} was not built or does not load: run node scripts/build-native.mjs`);
  return loaded;
}

/** A chunk laid out as a COPY row holds it, after `pad` bytes, from its entries' texts and their stored hashes. */
function layOut(texts: string[], hashes: string[], pad: number): { bytes: Buffer; layout: ChunkLayout } {
  const c = Buffer.from(texts.join("\n"));
  const h = Buffer.from(hashes.join(","));
  const p = Buffer.from(["0".repeat(64), ...hashes.slice(0, -1)].join(","));
  const bytes = Buffer.concat([Buffer.alloc(pad, 10), c, Buffer.alloc(4), h, Buffer.alloc(4), p]);
  const cEnd = pad + c.length;
  const hEnd = cEnd + 4 + h.length;
  return { bytes, layout: { entries: texts.length, c: pad, cEnd, h: cEnd + 4, hEnd, p: hEnd + 4, pEnd: bytes.length } };
}

const sha = (text: string) => hash("sha256", text, "hex");

describe("the native digest module", () => {
  it.skipIf(!compilerHere)("is built by the install wherever a C compiler is, and loads", () => {
    expect(fs.existsSync(path.resolve(NATIVE_DIGESTS_PATH))).toBe(true);
    expect(typeof native().holds).toBe("function");
  });

  it.skipIf(!compilerHere)("answers as node:crypto does for generated chunks, intact or changed anywhere", () => {
    const digests = native();
    let intact = 0;
    fc.assert(
      fc.property(
        // Entries as the database stores them: text without newlines (JSON escapes them), any characters.
        fc.array(
          fc.string({ unit: "grapheme", maxLength: 600 }).map((s) => s.replaceAll("\n", " ")),
          { minLength: 1, maxLength: 40 },
        ),
        fc.nat(40),
        fc.constantFrom(
          "none",
          "byte of an entry",
          "byte of a hash",
          "first or last digit of a hash",
          "separator",
          "entry dropped",
          "hash case",
          "hash dropped",
        ),
        fc.nat(),
        (texts, pad, change, at) => {
          const hashes = texts.map(sha);
          let { bytes, layout } = layOut(texts, hashes, pad);
          const flip = (i: number) => void (bytes[i] = bytes[i]! ^ (1 + (at % 127)));
          if (change === "byte of an entry" && layout.cEnd > layout.c) flip(layout.c + (at % (layout.cEnd - layout.c)));
          if (change === "byte of a hash") flip(layout.h + (at % (layout.hEnd - layout.h)));
          if (change === "first or last digit of a hash") flip(layout.h + 65 * (at % texts.length) + (at % 2 ? 63 : 0));
          if (change === "separator" && texts.length > 1) bytes[layout.h + 64] = 0x3b;
          if (change === "entry dropped" && texts.length > 1) ({ bytes, layout } = layOut(texts.slice(1), hashes.slice(0, -1), pad));
          if (change === "hash case")
            ({ bytes, layout } = layOut(
              texts,
              hashes.map((h) => h.toUpperCase()),
              pad,
            ));
          if (change === "hash dropped" && texts.length > 1) {
            ({ bytes, layout } = layOut(texts, hashes.slice(1), pad));
            layout.entries = texts.length;
          }
          const expected = chunkHolds(hash, bytes, layout);
          expect(chunkHolds(hash, bytes, layout, digests)).toBe(expected);
          // Without the length checks before it, the module's own comparison still refuses.
          if (layout.hEnd - layout.h === 65 * layout.entries - 1)
            expect(digests.holds(bytes, layout.c, layout.cEnd, layout.entries, layout.h)).toBe(expected);
          if (expected) intact++;
        },
      ),
      { numRuns: 300 },
    );
    // Intact chunks were among them: the comparison above is not only of refusals.
    expect(intact).toBeGreaterThan(20);
  });

  it.skipIf(!compilerHere)("refuses ranges outside the bytes and arguments of the wrong kind, and reads only its own view", () => {
    const digests = native();
    const { bytes, layout } = layOut(["a", "b"], [sha("a"), sha("b")], 3);
    expect(digests.holds(bytes, layout.c, layout.cEnd, 2, layout.h)).toBe(true);
    expect(() => digests.holds(bytes, layout.c, bytes.length + 1, 2, layout.h)).toThrow(RangeError);
    expect(() => digests.holds(bytes, layout.cEnd, layout.c, 2, layout.h)).toThrow(RangeError);
    expect(() => digests.holds(bytes, layout.c, layout.cEnd, 0, layout.h)).toThrow(RangeError);
    expect(() => digests.holds(bytes, layout.c, layout.cEnd, 2, bytes.length - 128)).toThrow(RangeError);
    expect(() => digests.holds(bytes, layout.c, layout.cEnd, 1 << 30, layout.h)).toThrow(RangeError);
    expect(() => (digests.holds as (...a: unknown[]) => boolean)("text", 0, 1, 1, 0)).toThrow(TypeError);
    expect(() => (digests.holds as (...a: unknown[]) => boolean)(bytes, 0, 1)).toThrow(TypeError);
    // A view that ends before the hashes: they are outside it, though inside the memory behind it.
    const view = bytes.subarray(0, layout.h + 10);
    expect(() => digests.holds(view, layout.c, layout.cEnd, 2, layout.h)).toThrow(RangeError);
    // A view that starts later: offsets count from its start.
    const shifted = bytes.subarray(3);
    expect(digests.holds(shifted, layout.c - 3, layout.cEnd - 3, 2, layout.h - 3)).toBe(true);
  });

  it.skipIf(!compilerHere)("is built by the install script, which skips without failing where it cannot compile", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "bi-native-"));
    try {
      fs.mkdirSync(path.join(root, "scripts"));
      fs.mkdirSync(path.join(root, "native"));
      fs.copyFileSync("scripts/build-native.mjs", path.join(root, "scripts/build-native.mjs"));
      fs.copyFileSync("native/chunk-digests.c", path.join(root, "native/chunk-digests.c"));
      const run = (cc: string) =>
        spawnSync(process.execPath, [path.join(root, "scripts/build-native.mjs")], { env: { ...process.env, CC: cc }, encoding: "utf8" });
      const built = path.join(root, NATIVE_DIGESTS_PATH);

      const ok = run("cc");
      expect([ok.status, ok.stdout.trim()]).toEqual([0, `native digests built: ${NATIVE_DIGESTS_PATH}`]);
      const module = { exports: {} as NativeDigests };
      process.dlopen(module, built);
      const { bytes, layout } = layOut(["x"], [sha("x")], 0);
      expect(module.exports.holds(bytes, layout.c, layout.cEnd, 1, layout.h)).toBe(true);

      // A compiler that fails: the install goes on, and no stale module is left to load.
      const failed = run("false");
      expect(failed.status).toBe(0);
      expect(failed.stdout).toMatch(/^native digests not built \(.+\): audit verification hashes with node:crypto/);
      expect(fs.existsSync(built)).toBe(false);
      expect(fs.readdirSync(path.dirname(built))).toEqual([]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
