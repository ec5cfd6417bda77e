-- A partition's clone of its parent's row trigger: enabled ALWAYS unless it is (PostgreSQL before
-- 15 creates clones enabled for origin sessions only; ALTER TABLE ... DISABLE TRIGGER may hit a clone).
-- Placeholders: ${relation}, ${relation_literal}, ${trigger}, ${trigger_literal}.
DO $tablecast$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid = ${relation_literal}::regclass
      AND tgname = ${trigger_literal} AND tgenabled <> 'A') THEN
    ALTER TABLE ${relation} ENABLE ALWAYS TRIGGER ${trigger};
  END IF;
END $tablecast$
