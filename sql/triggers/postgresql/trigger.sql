-- The row trigger that captures one cached table on one of its relations (the table itself or an
-- inheritance child; partitions get it by cloning), unless present; a trigger of that name calling
-- another function (after a column type change) is replaced. Enabled ALWAYS, so that sessions with
-- session_replication_role = replica (logical replication subscribers) are captured too; altered
-- only when needed, since ALTER TABLE waits for the writers of the table.
-- Placeholders: ${relation} (quoted), ${relation_literal}, ${trigger} (quoted name), ${trigger_literal},
-- ${function} (quoted, qualified), ${function_literal} (regprocedure text), ${table_literal}
-- (the cached table's schema.table: the trigger's argument).
DO $tablecast$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = ${relation_literal}::regclass
      AND tgname = ${trigger_literal} AND tgfoid = ${function_literal}::regprocedure) THEN
    DROP TRIGGER IF EXISTS ${trigger} ON ${relation};
    CREATE TRIGGER ${trigger} AFTER INSERT OR UPDATE OR DELETE ON ${relation}
      FOR EACH ROW EXECUTE FUNCTION ${function}(${table_literal});
  END IF;
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = ${relation_literal}::regclass
      AND tgname = ${trigger_literal} AND tgenabled <> 'A') THEN
    ALTER TABLE ${relation} ENABLE ALWAYS TRIGGER ${trigger};
  END IF;
END $tablecast$
