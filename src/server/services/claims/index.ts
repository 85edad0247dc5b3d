export { claim } from "./claims";
export { ClaimInput, ClaimParams, ClaimResult } from "./claims.schema";
