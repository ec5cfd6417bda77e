-- Who needs which capture (PostgreSQL 13+). Placeholders: ${consumers} (quoted schema.table).
-- Every running server registers its cached tables here and refreshes heartbeat_at every 10 s
-- (database clock); a row whose heartbeat is older than 60 s belongs to a server that is gone.
-- `install` never removes capture, and `uninstall` refuses while a live server needs a table,
-- so one configuration cannot remove the capture another running server still reads.
CREATE TABLE IF NOT EXISTS ${consumers} (
  consumer_id text PRIMARY KEY,
  server_name text NOT NULL,
  host text NOT NULL,
  cached_tables text NOT NULL,
  started_at timestamptz(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  heartbeat_at timestamptz(6) NOT NULL DEFAULT CURRENT_TIMESTAMP
)
