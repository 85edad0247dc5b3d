/** Sanctions/PEP screening and account labels: the API other services call. */

export { DEFAULT_LIST, type ImportResult, importList, ListFormatError } from "./import";
export { importListFiles } from "./import-files";
export { addToDenylist, listDenylist, removeFromDenylist, screenAccountFor, screenApplicant } from "./requests";
export { ensureSandboxLists } from "./sandbox-lists";
export { type Breakdown, MATCH_THRESHOLD, SCORING_VERSION, scoreCandidate } from "./score";
export { type AccountOutcome, findMatches, type ScreenMatch, type ScreenOutcome, screenAccount, screenPerson } from "./screen";
export {
  DenylistAddInput,
  DenylistEntryView,
  DenylistParams,
  DenylistRemovedView,
  DenylistView,
  ScreenAccountInput,
  ScreenAccountView,
  ScreenApplicantInput,
  ScreenApplicantView,
} from "./screening.schema";
