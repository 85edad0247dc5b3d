import { env } from "@/env";
import { watchBindingKeys } from "../services/accounts";
import type { Job } from "./job";

/**
 * Reads the owner and active keys of bound accounts every CHAIN_WATCH_INTERVAL_MS and suspends a
 * binding whose signing key the account no longer holds (docs/api/guides/relying-parties.md).
 */
export const bindingKeyWatchJob: Job = {
  name: "binding-key-watch",
  get everyMs() {
    return env().CHAIN_WATCH_INTERVAL_MS;
  },
  run: (db) => watchBindingKeys(db),
};
