-- Velocity by client address (services/aml/risk.ts, `ipEvents1h`) counts an organization's events
-- of one address in the last hour. Through ("orgId", "createdAt") it read every event of the
-- organization in that hour to find the few of one address: with end users' addresses all
-- different, each assessment cost in proportion to the organization's hourly volume. This index
-- holds the keyed hash of the address, or the address in clear on rows the person data migration
-- has not rewritten yet (their hash is NULL), so both forms are found by it.
CREATE INDEX "risk_events_orgId_address_createdAt_idx" ON "risk_events" ("orgId", (COALESCE("clientIpHash", "clientIp")), "createdAt");
