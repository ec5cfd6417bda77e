-- Tablecast outbox (PostgreSQL 13+). The capture functions are in capture_function.sql.
-- Placeholders: ${schema} (quoted outbox schema), ${schema_literal} (its name as a string literal).
-- txid lets the tailer read by transaction snapshots (exact, no timeouts); the key is derived
-- by the server from the images, so the trigger does as little as possible.
-- One index: the primary key (txid, id). The reads by transaction (txid >= xmax, txid in xip) and
-- pruning (the oldest transactions first) use it; id orders the changes of a read, which sorts the
-- few rows it returns, so it needs no index of its own. Every index is a write in each writer's
-- transaction (docs/BENCHMARKS.md, "One index on the outbox").
-- An outbox created before (primary key id, an index on txid) is kept as it is: every read and
-- prune works on both (docs/OPERATIONS.md tells how to convert one). Its txid index is created only
-- when no index leads with txid, checked first: CREATE INDEX IF NOT EXISTS takes the table's SHARE
-- lock before it looks, so a server start would wait for every open transaction that wrote to a
-- cached table (its trigger wrote here), and every writer after it would wait too.
CREATE TABLE IF NOT EXISTS ${schema}.tablecast_outbox (
  id bigserial NOT NULL,
  table_name text NOT NULL,
  op char(1) NOT NULL,
  new_row jsonb,
  old_row jsonb,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at timestamptz(6) NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (txid, id)
);
DO $tablecast$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i
      JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
      WHERE n.nspname = ${schema_literal} AND c.relname = 'tablecast_outbox' AND a.attname = 'txid') THEN
    CREATE INDEX tablecast_outbox_txid ON ${schema}.tablecast_outbox (txid);
  END IF;
END $tablecast$
