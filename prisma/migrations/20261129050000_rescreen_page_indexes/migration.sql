-- A re-screen reads the organization's approved people a page at a time, in person id order, with
-- each one's sealed identity and sealed data key (services/screening/monitoring-runs.ts,
-- `personPageSql`). Through the plain indexes every row of a page cost a visit to three tables'
-- heaps in random order and a descent of person_keys' primary key: about 6,000 buffers a page of
-- 1,000. These indexes hold what the page needs in person id order, so the page is read from
-- their leaf pages alone (index-only scans, about 60 buffers; docs/performance.md, "Screening at
-- list sizes"). The identity and the key are sealed (AES-256-GCM); their copies in the indexes
-- are as sealed as the rows, and an erased key's old index entry goes when VACUUM removes the old
-- row version, as the row version itself does.
--
-- Prisma's schema cannot describe an index's INCLUDE columns: the two covering indexes are
-- partial (their predicates hold for every row the page wants), which Prisma leaves to the
-- migrations, as it does the partial index of approved people.

-- The subjects of an organization in person id order, with the sealed identity.
CREATE INDEX "screening_subjects_rescreen_idx" ON "screening_subjects"("orgId", "personId") INCLUDE ("querySealed") WHERE "querySealed" IS NOT NULL;

-- The data keys of an organization's people in person id order, with the sealed key (an erased
-- person's key is null). It replaces the index on the organization alone, which nothing read.
DROP INDEX "person_keys_orgId_idx";
CREATE INDEX "person_keys_rescreen_idx" ON "person_keys"("orgId", "personId") INCLUDE ("keySealed") WHERE "keySealed" IS NOT NULL;

-- The organization's approved people who are not erased: who a re-screen screens.
CREATE INDEX "people_rescreen_idx" ON "people"("orgId", "id") WHERE "kycStatus" = 'approved' AND "erasedAt" IS NULL;
