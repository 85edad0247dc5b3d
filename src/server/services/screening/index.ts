/** Sanctions/PEP screening and account labels: the API other services call. */
export { screenPerson, screenAccount, findMatches, type ScreenOutcome, type ScreenMatch, type AccountOutcome } from "./screen";
export { importList, importListFiles, DEFAULT_LIST, ListFormatError, type ImportResult } from "./import";
export { ensureSandboxLists } from "./sandbox-lists";
export { MATCH_THRESHOLD, SCORING_VERSION, scoreCandidate, type Breakdown } from "./score";
export { screenApplicant, screenAccountFor, addToDenylist, listDenylist, removeFromDenylist } from "./requests";
