-- Daily request meter of GET /v1/billing/usage. The plan quota's windows ("plan:<orgId>", one
-- minute each) are purged a minute after they end, so each write to them also adds its increase
-- to the day's row here. A trigger, so the meter follows however the quota is written (one upsert
-- per request, or batched by the pipeline's in-process counters) at no extra round trip.

-- CreateTable
CREATE TABLE "usage_days" (
    "bucket" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "usage_days_pkey" PRIMARY KEY ("bucket","day")
);

-- CreateFunction
CREATE OR REPLACE FUNCTION "bi_usage_days_count"() RETURNS trigger AS $$
DECLARE
    added INTEGER;
BEGIN
    IF NEW."bucket" NOT LIKE 'plan:%' THEN
        RETURN NULL;
    END IF;
    added := NEW."count" - CASE WHEN TG_OP = 'UPDATE' THEN OLD."count" ELSE 0 END;
    IF added > 0 THEN
        INSERT INTO "usage_days" ("bucket", "day", "count") VALUES (NEW."bucket", NEW."windowStart"::date, added)
        ON CONFLICT ("bucket", "day") DO UPDATE SET "count" = "usage_days"."count" + EXCLUDED."count";
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- CreateTrigger
CREATE TRIGGER "rate_limit_windows_usage_days" AFTER INSERT OR UPDATE OF "count" ON "rate_limit_windows"
    FOR EACH ROW EXECUTE FUNCTION "bi_usage_days_count"();
