-- The TRUNCATE statement trigger of one cached table on one of its relations (statement triggers
-- are not cloned to partitions: every partition gets its own), unless present; enabled ALWAYS.
-- Placeholders: as trigger.sql, plus ${truncate_literal}: 'T' on the cached table itself, 'R' on its
-- partitions and children (see capture_function.sql).
DO $tablecast$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = ${relation_literal}::regclass
      AND tgname = ${trigger_literal}) THEN
    CREATE TRIGGER ${trigger} AFTER TRUNCATE ON ${relation}
      FOR EACH STATEMENT EXECUTE FUNCTION ${function}(${table_literal}, ${truncate_literal});
  END IF;
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = ${relation_literal}::regclass
      AND tgname = ${trigger_literal} AND tgenabled <> 'A') THEN
    ALTER TABLE ${relation} ENABLE ALWAYS TRIGGER ${trigger};
  END IF;
END $tablecast$
