-- Attaches the generic capture function to one table (row changes, and TRUNCATE as a statement
-- trigger), unless already attached.
-- Placeholders: ${schema} (quoted outbox schema), ${table} (quoted schema.table), ${table_literal}.
DO $tablecast$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = ${table_literal}::regclass AND tgname = 'tablecast_capture') THEN
    CREATE TRIGGER tablecast_capture AFTER INSERT OR UPDATE OR DELETE ON ${table}
      FOR EACH ROW EXECUTE FUNCTION ${schema}.tablecast_capture();
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = ${table_literal}::regclass AND tgname = 'tablecast_truncate') THEN
    CREATE TRIGGER tablecast_truncate AFTER TRUNCATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.tablecast_capture();
  END IF;
END $tablecast$
