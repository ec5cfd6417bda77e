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
-- SECURITY DEFINER: the function runs as its owner (who installed the capture and owns the outbox),
-- so an application's role that may write a cached table needs no grant on the outbox: without
-- it, installing the capture failed every write of such a role ("permission denied for table
-- tablecast_outbox"). Every relation, function and operator of the body is therefore qualified
-- (pg_catalog's, the outbox by its schema), as a SECURITY DEFINER function's must be: a writer's
-- own search_path could otherwise put its functions or operators before pg_catalog's and have
-- them run as the owner (PgTriggersTest checks the body). Pinning search_path with a SET clause
-- would do the same, for twice the cost of running as the owner (about 0.4 us more per captured
-- row: docs/BENCHMARKS.md, "The capture function run as its owner").
CREATE OR REPLACE FUNCTION ${schema}.${function}() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER${settings} AS $tablecast$
BEGIN
  IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, new_row)
      VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) TG_TABLE_NAME),
        'I', pg_catalog.to_jsonb(NEW));
  ELSIF TG_OP OPERATOR(pg_catalog.=) 'UPDATE' THEN
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, new_row, old_row)
      VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) TG_TABLE_NAME),
        'U', pg_catalog.to_jsonb(NEW), pg_catalog.to_jsonb(OLD));
  ELSIF TG_OP OPERATOR(pg_catalog.=) 'DELETE' THEN
    INSERT INTO ${schema}.tablecast_outbox (table_name, op, old_row)
      VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) TG_TABLE_NAME),
        'D', pg_catalog.to_jsonb(OLD));
  ELSE
    INSERT INTO ${schema}.tablecast_outbox (table_name, op)
      VALUES (COALESCE(TG_ARGV[0], TG_TABLE_SCHEMA OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) TG_TABLE_NAME),
        CASE WHEN TG_ARGV[1] OPERATOR(pg_catalog.=) 'T'
          AND (NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits WHERE inhparent OPERATOR(pg_catalog.=) TG_RELID)
            OR (SELECT relkind FROM pg_catalog.pg_class WHERE oid OPERATOR(pg_catalog.=) TG_RELID)
              OPERATOR(pg_catalog.=) 'p')
        THEN 'T' ELSE 'R' END);
  END IF;
  -- No pg_notify here: a transaction that notified takes a cluster-wide lock from pre-commit until
  -- after its commit is flushed, which serializes the commits of every capturing writer (measured:
  -- writers wait on Lock:object instead of sharing WAL flushes). The tailer polls instead.
  RETURN NULL;
END
$tablecast$
