import type { DbOrTx } from "../db/client";

/**
 * `n` accounts of the organization on the sandbox chain, named `<prefix><i>`, written straight to the
 * table in one statement (rows for a test of how reads scale); `devices`: each with a device
 * fingerprint hash of its own.
 */
export const bulkAccounts = (db: DbOrTx, orgId: string, n: number, opts: { prefix?: string; devices?: boolean } = {}) => db.$executeRaw`
  INSERT INTO accounts (id, "orgId", chain, name, did, "ownerPublicKey", "activePublicKey", "deviceFingerprintHash", "createdAt", "updatedAt")
  SELECT gen_random_uuid(), ${orgId}::uuid, 'sandbox', ${opts.prefix ?? "bulk"}::text || g, 'did:antelope:sandbox:' || ${opts.prefix ?? "bulk"}::text || g, 'k', 'k',
         CASE WHEN ${opts.devices ?? false}::boolean THEN md5(g::text) END, now(), now()
  FROM generate_series(1, ${n}::int) AS g`;

/**
 * `n` people of the organization, each with an account and an active binding to it, written
 * straight to the tables in one statement (rows for a test of how reads scale, not working
 * bindings: the credentials are empty).
 */
export const bulkBindings = (db: DbOrTx, orgId: string, n: number) => db.$executeRaw`
  WITH p AS (INSERT INTO people (id, "orgId", "kycStatus", "updatedAt")
             SELECT gen_random_uuid(), ${orgId}::uuid, 'approved'::"KycStatus", now() FROM generate_series(1, ${n}::int) RETURNING id),
  a AS (INSERT INTO accounts (id, "orgId", chain, name, did, "ownerPublicKey", "activePublicKey", "createdAt", "updatedAt")
        SELECT gen_random_uuid(), ${orgId}::uuid, 'sandbox', 'b' || substr(md5(random()::text), 1, 11),
               'did:antelope:sandbox:b' || gen_random_uuid(), 'k', 'k', now(), now()
        FROM p RETURNING id),
  pa AS (SELECT p.id AS pid, a.id AS aid FROM (SELECT id, row_number() OVER () n FROM p) p JOIN (SELECT id, row_number() OVER () n FROM a) a USING (n))
  INSERT INTO account_bindings (id, "orgId", "accountId", "personId", "bindingVcHash", credential, "issuerKeyId", "createdAt")
  SELECT gen_random_uuid(), ${orgId}::uuid, aid, pid, md5(aid::text), '{}'::jsonb, 'k', now() FROM pa`;
