-- A capture function, attached to every relation of a cached table (the table, its partitions and
-- its inheritance children) by the triggers of trigger.sql. Rendered twice: tablecast_capture()
-- without settings, and tablecast_capture_pinned() with the output settings the server reads with,
-- for tables whose values print differently under a writer's own settings (docs/TYPES.md).
-- Placeholders: ${schema} (quoted outbox schema), ${function} (unquoted name), ${settings} (SET
-- clauses or nothing).
-- TG_ARGV[0] is the cached table's schema.table: a partition or child writes its rows under the
-- name of the table they belong to (TG_TABLE_NAME would name the partition). TRUNCATE writes 'T'
-- (the server deletes every row it holds) only on the cached table itself (TG_ARGV[1] = 'T') and
-- only when it has no inheritance children, whose rows TRUNCATE ONLY would keep; otherwise 'R':
-- the server re-reads the table in the snapshot of the batch.
CREATE OR REPLACE FUNCTION ${schema}.${function}() RETURNS trigger LANGUAGE plpgsql${settings} AS $tablecast$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, new_row)
      VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME), 'I', to_jsonb(NEW));
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, new_row, old_row)
      VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME), 'U', to_jsonb(NEW), to_jsonb(OLD));
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, old_row)
      VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME), 'D', to_jsonb(OLD));
  ELSE
    INSERT INTO ${schema}.tablecast_outbox (table_name, op)
      VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME),
        CASE WHEN TG_ARGV[1] = 'T' AND (NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits WHERE inhparent = TG_RELID)
          OR (SELECT relkind FROM pg_catalog.pg_class WHERE oid = TG_RELID) = 'p') THEN 'T' ELSE 'R' END);
  END IF;
  -- No pg_notify here: a transaction that notified takes a cluster-wide lock from pre-commit until
  -- after its commit is flushed, which serializes the commits of every capturing writer (measured:
  -- writers wait on Lock:object instead of sharing WAL flushes). The tailer polls instead.
  RETURN NULL;
END
$tablecast$
