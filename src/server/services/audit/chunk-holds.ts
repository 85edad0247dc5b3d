import type { hash } from "node:crypto";
import type { NativeDigests } from "./native-digests";

// What a chunk of audit entries must hold (hash-thread.ts and segment.ts use it), with no imports
// beyond types: a thread loads it, and the hash thread runs it from its source text.

/**
 * Where a chunk's three values lie in its bytes, each from its first byte to the byte after its
 * last: `entries` entries' stored bytes joined by newlines (c), their stored hashes joined by commas
 * (h), and their prevHashes joined by commas (p).
 */
export type ChunkLayout = { entries: number; c: number; cEnd: number; h: number; hEnd: number; p: number; pEnd: number };

/**
 * Whether a chunk's entries hold (chunkSql in segment.ts): the newlines split `c` into exactly
 * `entries` pieces, each piece's SHA-256 (lowercase hex) is the stored hash at its place in `h`, and
 * `p` is a first prevHash without a comma followed by every stored hash of `h` but the last. The
 * values written by the database contain neither the separators they are joined with nor, but for
 * the first prevHash, anything but hex digests, so when these hold each entry's bytes, hash and
 * prevHash are exactly the pieces: a value holding a separator adds one, which no comparison
 * survives. The digests are joined as the database joined the stored hashes and compared with
 * those bytes read one character per byte (latin1), so that any byte outside the digests' own
 * characters differs: joining 512 strings once costs less than writing each digest into a buffer
 * (docs/performance.md, "Digests compared as one text"). Given the native digest module
 * (native-digests.ts), the pieces are hashed and compared with `h` there, in one call. The hash
 * thread runs this function from its source text, so it uses nothing but its arguments (the hash
 * function and the native module are among them).
 */
export function chunkHolds(sha256: typeof hash, bytes: Buffer, at: ChunkLayout, native?: NativeDigests | null): boolean {
  const n = at.entries;
  if (n < 1 || at.hEnd - at.h !== 65 * n - 1 || at.pEnd - at.p !== 65 * n - 1) return false;
  if (native) {
    if (!native.holds(bytes, at.c, at.cEnd, n, at.h)) return false;
  } else {
    const digests: string[] = new Array(n);
    // Hashed through a plain view: a Buffer's subarray costs more to make.
    const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
    let from = at.c;
    for (let k = 0; k < n; k++) {
      const newline = bytes.indexOf(10, from);
      const end = newline >= 0 && newline < at.cEnd ? newline : at.cEnd;
      if ((end === at.cEnd) !== (k === n - 1)) return false;
      digests[k] = sha256("sha256", view.subarray(from, end), "hex");
      from = end + 1;
    }
    if (digests.join(",") !== bytes.toString("latin1", at.h, at.hEnd)) return false;
  }
  const comma = bytes.indexOf(44, at.p);
  if (comma >= 0 && comma < at.p + 64) return false;
  return n === 1 || (bytes[at.p + 64] === 44 && bytes.compare(bytes, at.h, at.hEnd - 65, at.p + 65, at.pEnd) === 0);
}
