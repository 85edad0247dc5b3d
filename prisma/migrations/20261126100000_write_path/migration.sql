-- Free create reserves its account row as "pending" before the chain call and finalizes it after,
-- so no lock that other creates need is held across the chain call (docs/decisions.md, "Write path").
ALTER TYPE "AccountLifecycle" ADD VALUE 'pending' BEFORE 'provisional';

-- While pending: until when the creating request owns the row (afterwards recovery may resolve
-- it against the chain), and what recovery needs to finish or undo it (spent tokens, risk, the
-- idempotency claim). Both are cleared when the account is finalized.
ALTER TABLE "accounts" ADD COLUMN "pendingUntil" TIMESTAMPTZ(3),
ADD COLUMN "pendingState" JSONB;

CREATE INDEX "accounts_pendingUntil_idx" ON "accounts"("pendingUntil");

-- An entry's hash covers its JCS text, which is its readable columns written out in a fixed
-- order with `data` as JCS text. Kept as `json` (stored as given, unlike jsonb), `data` holds
-- exactly those bytes, so verification rebuilds what was hashed by concatenation instead of
-- re-canonicalising every entry, and a changed column is a changed hash.
ALTER TABLE "audit_entries" ALTER COLUMN "data" SET DATA TYPE JSON USING "data"::json;

-- Entries appended before this change keep `data` in jsonb's own form: the verifier
-- canonicalises those (and only entries whose bytes do not already match) as it always did.

-- Raises when a condition of a multi-part statement does not hold, so the whole statement
-- (every data-modifying part of it) rolls back: grouped audit appends check with it that the
-- chain head was where they expected and that every write touched its rows.
CREATE OR REPLACE FUNCTION "bi_assert"(ok boolean, what text) RETURNS boolean AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION 'bi_assert failed: %', what USING ERRCODE = 'P0001';
  END IF;
  RETURN true;
END;
$$ LANGUAGE plpgsql;
