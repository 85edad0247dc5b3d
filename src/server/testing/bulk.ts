import type { DbOrTx } from "../db/client";

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
