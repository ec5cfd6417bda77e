-- One AFTER trigger per table and event (MySQL 8.0.29+ / MariaDB 10.6+). Placeholders:
-- ${trigger} quoted schema.trigger_name (name ends with a hash of this body), ${event} INSERT|UPDATE|DELETE,
-- ${table} quoted schema.table, ${outbox}, ${table_literal} 'schema.table', ${op} I|U|D,
-- ${new_key} / ${old_key}: JSON_OBJECT('key_col', NEW.`key_col`, ...) of the primary key, or NULL.
-- Only the key: the server reads the row itself in the same consistent snapshot as this outbox row.
CREATE TRIGGER IF NOT EXISTS ${trigger} AFTER ${event} ON ${table} FOR EACH ROW
INSERT INTO ${outbox} (table_name, op, new_key, old_key) VALUES (${table_literal}, '${op}', ${new_key}, ${old_key})
