-- Tablecast outbox and the one generic capture function (PostgreSQL 13+).
-- Placeholders: ${schema} (quoted outbox schema).
-- txid lets the tailer read by transaction snapshots (exact, no timeouts); the key is derived
-- by the server from the images, so the trigger does as little as possible.
CREATE TABLE IF NOT EXISTS ${schema}.tablecast_outbox (
  id bigserial PRIMARY KEY,
  table_name text NOT NULL,
  op char(1) NOT NULL,
  new_row jsonb,
  old_row jsonb,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX IF NOT EXISTS tablecast_outbox_txid ON ${schema}.tablecast_outbox (txid);
CREATE OR REPLACE FUNCTION ${schema}.tablecast_capture() RETURNS trigger LANGUAGE plpgsql AS $tablecast$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, new_row)
      VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'I', to_jsonb(NEW));
  ELSIF TG_OP = 'TRUNCATE' THEN
    -- Statement trigger: one row marks the truncate; the server deletes every row it holds.
    INSERT INTO ${schema}.tablecast_outbox (table_name, op)
      VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'T');
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, new_row, old_row)
      VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', to_jsonb(NEW), to_jsonb(OLD));
  ELSE
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, old_row)
      VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'D', to_jsonb(OLD));
  END IF;
  -- No pg_notify here: a transaction that notified takes a cluster-wide lock from pre-commit until
  -- after its commit is flushed, which serializes the commits of every capturing writer (measured:
  -- writers wait on Lock:object instead of sharing WAL flushes). The tailer polls instead.
  RETURN NULL;
END
$tablecast$
