-- Tablecast outbox (PostgreSQL 13+). The capture functions are in capture_function.sql.
-- Placeholders: ${schema} (quoted outbox schema), ${schema_literal} (its name as a string literal).
-- txid lets the tailer read by transaction snapshots (exact, no timeouts); the key is derived
-- by the server from the images, so the trigger does as little as possible.
-- The txid index is created only when missing, checked first: CREATE INDEX IF NOT EXISTS takes the
-- table's SHARE lock before it looks, so a server start would wait for every open transaction that
-- wrote to a cached table (its trigger wrote here), and every writer after it would wait too.
CREATE TABLE IF NOT EXISTS ${schema}.tablecast_outbox (
  id bigserial PRIMARY KEY,
  table_name text NOT NULL,
  op char(1) NOT NULL,
  new_row jsonb,
  old_row jsonb,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp()
);
DO $tablecast$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = ${schema_literal} AND c.relname = 'tablecast_outbox_txid') THEN
    CREATE INDEX tablecast_outbox_txid ON ${schema}.tablecast_outbox (txid);
  END IF;
END $tablecast$
