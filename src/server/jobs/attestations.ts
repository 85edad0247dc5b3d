import { env } from "@/env";
import { chainAdapter } from "../providers/chain";
import { defaultAttestationPublisher, publishPending, reconcileAttestations } from "../services/attestations";
import type { Job } from "./job";

/**
 * The on-chain attestations (docs/api/guides/onchain.md, "Publishing from the service"): the
 * accounts marked by a change are published every few seconds; once an hour the whole table is
 * compared with the database, drift is marked for publishing and expired rows are swept. Nothing
 * runs without a configured contract.
 */
export const attestationPublishJob: Job = {
  name: "attestation-publish",
  get everyMs() {
    return env().ATTESTATION_PUBLISH_INTERVAL_MS;
  },
  run: async (db) => {
    const publisher = defaultAttestationPublisher();
    if (publisher) await publishPending(db, publisher, { leaseMs: env().ATTESTATION_LEASE_MS });
  },
};

export const attestationReconcileJob: Job = {
  name: "attestation-reconcile",
  everyMs: 60 * 60_000,
  run: async (db) => {
    const publisher = defaultAttestationPublisher();
    if (publisher) await reconcileAttestations(db, publisher, { chain: chainAdapter(db).chain });
  },
};
