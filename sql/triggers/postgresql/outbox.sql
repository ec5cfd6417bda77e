-- Tablecast outbox (PostgreSQL 13+). The capture functions are in capture_function.sql.
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
CREATE INDEX IF NOT EXISTS tablecast_outbox_txid ON ${schema}.tablecast_outbox (txid)
