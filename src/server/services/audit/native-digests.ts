import { hash } from "node:crypto";
import fs from "node:fs";
import { checkoutFile } from "../../platform/checkout-file";

/**
 * The native digest module (native/chunk-digests.c, built by scripts/build-native.mjs when the
 * dependencies are installed): `holds` checks a chunk's entries' SHA-256 against their stored
 * hashes in one call, with the SHA-256 of the OpenSSL that Node.js carries, called directly
 * rather than through OpenSSL 3's EVP layer as node:crypto does (about half the time for an
 * entry of 400 bytes; docs/performance.md, "Digests taken without OpenSSL's per-call dispatch").
 */
export type NativeDigests = {
  /**
   * Whether bytes[c, cEnd) splits on newlines into exactly `entries` pieces whose SHA-256, in
   * lowercase hex, are the 64 bytes at h + 65k, with a comma after each but the last.
   */
  holds(bytes: Buffer, c: number, cEnd: number, entries: number, h: number): boolean;
};

/** Where the build writes the module, from the checkout's or the image's root. */
export const NATIVE_DIGESTS_PATH = "native/build/chunk-digests.node";

let loaded: NativeDigests | null | undefined;
let loadedFrom: string | null = null;

/**
 * The native digest module, or null where it was not built (no C compiler, or Node's headers
 * missing) or does not answer a known chunk right: verification then hashes with node:crypto,
 * with the same answers. Loaded once per thread, from where checkoutFile finds it (beside the
 * sources, else under the working directory, by a path no bundler sees).
 */
export function nativeDigests(): NativeDigests | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  const file = checkoutFile(import.meta.url, NATIVE_DIGESTS_PATH);
  if (!fs.existsSync(file)) return loaded;
  try {
    const module = { exports: {} as Partial<NativeDigests> };
    process.dlopen(module, file);
    if (typeof module.exports.holds === "function" && answersRight(module.exports as NativeDigests)) {
      loaded = module.exports as NativeDigests;
      loadedFrom = file;
    }
  } catch {
    // Built for another Node.js or another machine: node:crypto hashes.
  }
  return loaded;
}

/** The file nativeDigests loaded, for a thread to load too (hash-thread.ts); null where there is none. */
export function nativeDigestsFile(): string | null {
  return nativeDigests() ? loadedFrom : null;
}

/** Whether `native` holds a chunk of two entries and fails the same chunk with one digest changed. */
function answersRight(native: NativeDigests): boolean {
  const entries = ['{"seq":1}', '{"seq":2}'];
  const digests = entries.map((e) => hash("sha256", e, "hex")).join(",");
  const good = Buffer.from(`${entries.join("\n")}${digests}`);
  const bad = Buffer.from(`${entries.join("\n")}${digests.replace(/^./, (d) => (d === "0" ? "1" : "0"))}`);
  const cEnd = entries.join("\n").length;
  return native.holds(good, 0, cEnd, 2, cEnd) && !native.holds(bad, 0, cEnd, 2, cEnd);
}
