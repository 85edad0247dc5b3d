-- Each audit entry keeps the bytes its hash is taken over ("canonical"), and every hashed column
-- is generated from them, so no readable column can differ from what was hashed and verification
-- only reads the bytes (docs/performance.md, "Verification").

-- The bytes of the entries already written, from their columns as the verifier has built them:
-- the hashed bytes themselves for every entry whose `data` is its JCS text; entries appended
-- before that (jsonb's text form) keep that text, and the verifier canonicalises them as before.
ALTER TABLE "audit_entries" ADD COLUMN "canonical" TEXT;

UPDATE "audit_entries" SET "canonical" = '{"action":' || to_json("action")::text || ',"actor":' || to_json("actor")::text
  || ',"createdAt":"' || to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","data":' || "data"::text
  || ',"orgId":' || to_json("orgId"::text)::text || ',"prevHash":' || to_json("prevHash")::text || ',"seq":' || "seq"::text
  || ',"subject":' || coalesce(to_json("subject")::text, 'null') || ',"subjectType":' || coalesce(to_json("subjectType")::text, 'null')
  || ',"v":1}';

ALTER TABLE "audit_entries" ALTER COLUMN "canonical" SET NOT NULL,
  DROP CONSTRAINT "audit_entries_orgId_fkey",
  DROP COLUMN "orgId",
  DROP COLUMN "seq",
  DROP COLUMN "actor",
  DROP COLUMN "action",
  DROP COLUMN "subjectType",
  DROP COLUMN "subject",
  DROP COLUMN "data",
  DROP COLUMN "createdAt",
  DROP COLUMN "prevHash";

-- createdAt is read by position (ISO 8601 right after the first ',"createdAt":"', which no JSON
-- string before it can contain) because casting text to a timestamp is not immutable.
ALTER TABLE "audit_entries"
  ADD COLUMN "orgId" UUID NOT NULL GENERATED ALWAYS AS ((("canonical"::json ->> 'orgId'))::uuid) STORED,
  ADD COLUMN "seq" INTEGER NOT NULL GENERATED ALWAYS AS ((("canonical"::json ->> 'seq'))::integer) STORED,
  ADD COLUMN "actor" TEXT NOT NULL GENERATED ALWAYS AS (("canonical"::json ->> 'actor')) STORED,
  ADD COLUMN "action" TEXT NOT NULL GENERATED ALWAYS AS (("canonical"::json ->> 'action')) STORED,
  ADD COLUMN "subjectType" TEXT GENERATED ALWAYS AS (("canonical"::json ->> 'subjectType')) STORED,
  ADD COLUMN "subject" TEXT GENERATED ALWAYS AS (("canonical"::json ->> 'subject')) STORED,
  ADD COLUMN "data" JSON NOT NULL GENERATED ALWAYS AS (("canonical"::json -> 'data')) STORED,
  ADD COLUMN "createdAt" TIMESTAMPTZ(3) NOT NULL GENERATED ALWAYS AS (timezone('UTC', make_timestamp(
    substr("canonical", strpos("canonical", ',"createdAt":"') + 14, 4)::integer,
    substr("canonical", strpos("canonical", ',"createdAt":"') + 19, 2)::integer,
    substr("canonical", strpos("canonical", ',"createdAt":"') + 22, 2)::integer,
    substr("canonical", strpos("canonical", ',"createdAt":"') + 25, 2)::integer,
    substr("canonical", strpos("canonical", ',"createdAt":"') + 28, 2)::integer,
    substr("canonical", strpos("canonical", ',"createdAt":"') + 31, 6)::double precision))) STORED,
  ADD COLUMN "prevHash" TEXT NOT NULL GENERATED ALWAYS AS (("canonical"::json ->> 'prevHash')) STORED;

CREATE UNIQUE INDEX "audit_entries_orgId_seq_key" ON "audit_entries"("orgId", "seq");
CREATE INDEX "audit_entries_orgId_createdAt_idx" ON "audit_entries"("orgId", "createdAt");
CREATE INDEX "audit_entries_orgId_subject_seq_idx" ON "audit_entries"("orgId", "subject", "seq");
CREATE INDEX "audit_entries_orgId_actor_seq_idx" ON "audit_entries"("orgId", "actor", "seq");

-- A generated column may not follow its organization's id on update (ids never change).
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_orgId_fkey" FOREIGN KEY ("orgId") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE NO ACTION;
