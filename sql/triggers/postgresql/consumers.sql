-- Who needs which capture (PostgreSQL 13+). Placeholders: ${consumers} (quoted schema.table).
-- Every running server registers its cached tables here and refreshes heartbeat_at every 10 s
-- (database clock); a row whose heartbeat is older than 60 s belongs to a server that is gone.
-- `install` never removes capture, and `uninstall` refuses while a live server needs a table,
-- so one configuration cannot remove the capture another running server still reads.
-- needs_from is the lowest outbox position the server may still read (PostgreSQL: a transaction id,
-- MySQL/MariaDB: an outbox id; 0 until it knows); every server prunes only below the lowest of the
-- live ones, so none deletes rows another has not read. NULL: a server of a version before it.
CREATE TABLE IF NOT EXISTS ${consumers} (
  consumer_id text PRIMARY KEY,
  server_name text NOT NULL,
  host text NOT NULL,
  cached_tables text NOT NULL,
  started_at timestamptz(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  heartbeat_at timestamptz(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  needs_from bigint
)
