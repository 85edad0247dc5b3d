-- Auth cache invalidation (issue 11): every change that can alter what an API key may do is
-- announced on the "bi_auth" channel when its transaction commits, whoever the writer is
-- (a service, the console, an operator's SQL), so each instance drops its cached entry.
-- Payloads: 'k:<keyHash>:<orgId>' for a key, 'o:<orgId>' for an organization.

-- CreateFunction
CREATE OR REPLACE FUNCTION "bi_notify_api_key_change"() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('bi_auth', 'k:' || OLD."keyHash" || ':' || OLD."orgId"::text);
        RETURN OLD;
    END IF;
    PERFORM pg_notify('bi_auth', 'k:' || OLD."keyHash" || ':' || OLD."orgId"::text);
    IF NEW."keyHash" IS DISTINCT FROM OLD."keyHash" THEN
        PERFORM pg_notify('bi_auth', 'k:' || NEW."keyHash" || ':' || NEW."orgId"::text);
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

-- CreateFunction
CREATE OR REPLACE FUNCTION "bi_notify_organization_change"() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('bi_auth', 'o:' || OLD."id"::text);
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

-- CreateTrigger: lastUsedAt alone changes nothing a request is checked against, so it stays quiet.
CREATE TRIGGER "api_keys_notify_update" AFTER UPDATE ON "api_keys"
    FOR EACH ROW
    WHEN (OLD."revokedAt" IS DISTINCT FROM NEW."revokedAt"
        OR OLD."scopes" IS DISTINCT FROM NEW."scopes"
        OR OLD."keyHash" IS DISTINCT FROM NEW."keyHash"
        OR OLD."environment" IS DISTINCT FROM NEW."environment"
        OR OLD."orgId" IS DISTINCT FROM NEW."orgId"
        OR OLD."name" IS DISTINCT FROM NEW."name")
    EXECUTE FUNCTION "bi_notify_api_key_change"();

-- CreateTrigger
CREATE TRIGGER "api_keys_notify_delete" AFTER DELETE ON "api_keys"
    FOR EACH ROW EXECUTE FUNCTION "bi_notify_api_key_change"();

-- CreateTrigger
CREATE TRIGGER "organizations_notify_change" AFTER UPDATE OR DELETE ON "organizations"
    FOR EACH ROW EXECUTE FUNCTION "bi_notify_organization_change"();
