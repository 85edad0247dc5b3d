// talisman ships no type declarations; these are the two functions screening uses.
declare module "talisman/metrics/jaro-winkler.js" {
  /** Jaro-Winkler similarity in [0, 1]. */
  const jaroWinkler: (a: string, b: string) => number;
  export default jaroWinkler;
}

declare module "talisman/phonetics/double-metaphone.js" {
  /** [primary, secondary] Double Metaphone codes. */
  const doubleMetaphone: (word: string) => [string, string];
  export default doubleMetaphone;
}
