-- Risk events keep the client address as a keyed hash of the organization and the address
-- (BI_HASH_KEY), and in clear only its network; device fingerprints become "k1:" and a keyed hash
-- of their SHA-256. A keyed hash cannot be computed in SQL without the key: the person data
-- migration (services/people/person-data-migration-clear.ts) rewrites the rows written before.
ALTER TABLE "risk_events" ADD COLUMN     "clientIpHash" TEXT;
