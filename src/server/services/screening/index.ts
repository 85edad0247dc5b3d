/** Sanctions/PEP screening and account labels: the API other services call. */

export { ListFormatError } from "./import";
export { importListFiles } from "./import-files";
export { addToDenylist, listDenylist, removeFromDenylist, screenAccountFor, screenApplicant } from "./requests";
export { ensureSandboxLists } from "./sandbox-lists";
export { screenPerson } from "./screen";
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
