/** Sanctions/PEP screening and account labels: the API other services call. */
export { screenPerson, screenAccount, findMatches, type ScreenOutcome, type ScreenMatch, type AccountOutcome } from "./screen";
export { importList, DEFAULT_LIST, ListFormatError, type ImportResult } from "./import";
export { importListFiles } from "./import-files";
export { ensureSandboxLists } from "./sandbox-lists";
export { MATCH_THRESHOLD, SCORING_VERSION, scoreCandidate, type Breakdown } from "./score";
export { screenApplicant, screenAccountFor, addToDenylist, listDenylist, removeFromDenylist } from "./requests";
export { DenylistAddInput, DenylistEntryView, DenylistParams, DenylistRemovedView, DenylistView, ScreenAccountInput, ScreenAccountView, ScreenApplicantInput, ScreenApplicantView } from "./screening.schema";
