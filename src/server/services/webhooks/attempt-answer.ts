/** How much of a receiver's answer is kept per attempt. */
export const ANSWER_KEEP_BYTES = 2048;
/** How much is read: twice what is kept, so a secret or signature across the cut is scrubbed whole first. */
export const ANSWER_READ_BYTES = 2 * ANSWER_KEEP_BYTES;

const REDACTED = "[redacted]";
/** Shapes of what must never be stored even when the receiver echoes it: our secrets, hex signatures, email addresses. */
const SCRUB = [/whsec_[A-Za-z0-9_-]*/g, /\b[0-9a-fA-F]{64}\b/g, /[^\s@"'<>()[\]{},;:]+@[^\s@"'<>()[\]{},;:]+\.[A-Za-z]{2,}/g];

/**
 * What is stored of an answer: nothing for a redirect (its body usually names the target, which
 * may be an internal address), otherwise the first 2 KB as text with every secret and signature
 * of this attempt, anything shaped like one, and email addresses replaced by "[redacted]".
 */
export function storedAnswer(status: number, head: Buffer, sent: string[]): string | null {
  if (status >= 300 && status < 400) return null;
  if (head.length === 0) return null;
  let text = head.toString("utf8");
  for (const s of sent) if (s) text = text.split(s).join(REDACTED);
  for (const re of SCRUB) text = text.replace(re, REDACTED);
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= ANSWER_KEEP_BYTES) return text;
  // Cut on a character boundary: drop a trailing partial character rather than store a broken one.
  return bytes
    .subarray(0, ANSWER_KEEP_BYTES)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
}
