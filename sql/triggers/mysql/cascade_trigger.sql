-- Key-recording trigger of a parent whose foreign-key actions (CASCADE, SET NULL) change cached
-- tables (MySQL 8.0.29+ / MariaDB 10.6+). InnoDB fires no trigger of the children it changes, so
-- this trigger writes the keys of the cached rows the parent's row change reaches into the outbox;
-- the server re-reads those rows by key, in the same consistent snapshot as the outbox rows.
-- Placeholders: ${trigger} quoted schema.trigger_name (name ends with a hash of this body),
-- ${timing} BEFORE|AFTER, ${event} DELETE|UPDATE, ${table} the quoted parent, ${body}: per first
-- foreign key, an IF (a referenced column changed, a child row exists) around one INSERT into the
-- outbox of the keys along each path to a cached table ('schema.table', op, new key, old key),
-- with WITH RECURSIVE closures for subtrees (MysqlCascadeTriggers). A compound statement: the
-- mysql client needs a DELIMITER around it (print-sql writes one).
CREATE TRIGGER IF NOT EXISTS ${trigger} ${timing} ${event} ON ${table} FOR EACH ROW
BEGIN
${body}
END
