-- Risk events written by bind confirm and free create stored, beside their signals, every other
-- column of the read the counts came from: the challenge (nonce and signed text), the person's
-- status, country and sanctions flag, the KYC create token. The service now stores the signals
-- alone (services/aml/risk.ts, decideRisk); this keeps only those on the rows written before.
UPDATE "risk_events"
SET "detail" = jsonb_set("detail", '{signals}', (
  SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb)
  FROM jsonb_each("detail" -> 'signals')
  WHERE key IN ('deviceEvents1h', 'deviceEvents24h', 'sharedDeviceSubjects', 'ipEvents1h', 'ipSource', 'orgEvents1m', 'orgEvents1h', 'disposableEmail')
))
WHERE jsonb_typeof("detail" -> 'signals') = 'object'
  AND EXISTS (
    SELECT 1 FROM jsonb_object_keys("detail" -> 'signals') AS k
    WHERE k NOT IN ('deviceEvents1h', 'deviceEvents24h', 'sharedDeviceSubjects', 'ipEvents1h', 'ipSource', 'orgEvents1m', 'orgEvents1h', 'disposableEmail')
  );
