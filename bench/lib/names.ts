/** A deterministic generator, so every run of a bench seeds the same names. */
export function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONSETS = ["b", "d", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kr", "st", "tr", "sh", "kh", "ch", "gr", "pl"];
const VOWELS = ["a", "e", "i", "o", "u", "ai", "ou", "ia"];
const CODAS = ["", "n", "r", "s", "k", "l", "v", "nko", "vic", "ski", "dis", "ani", "ez"];

/**
 * Made-up personal names of a realistic shape: a few hundred common first names and mostly rare
 * surnames, so many people share retrieval keys with some list entry.
 */
export function nameMaker(rand: () => number) {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const word = (syllables: number) => {
    let w = "";
    for (let i = 0; i < syllables; i++) w += pick(ONSETS) + pick(VOWELS);
    w += pick(CODAS);
    return w[0]!.toUpperCase() + w.slice(1);
  };
  const firstNames = Array.from({ length: 400 }, () => word(2));
  return () => `${pick(firstNames)} ${rand() < 0.3 ? `${word(2)} ` : ""}${word(2 + Math.floor(rand() * 2))}`;
}
