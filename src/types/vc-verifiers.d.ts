// The independent credential verifier used in tests (src/server/testing/independent-vc-verifier.ts)
// is Digital Bazaar's, which ships no type declarations.
declare module "jsonld-signatures";
declare module "@digitalbazaar/credentials-context";
declare module "@digitalbazaar/data-integrity";
declare module "@digitalbazaar/data-integrity-context";
declare module "@digitalbazaar/eddsa-jcs-2022-cryptosuite";
declare module "@digitalbazaar/vc-bitstring-status-list";
