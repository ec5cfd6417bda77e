-- Who needs which capture (MySQL 8 / MariaDB 10.6+). Placeholders: ${consumers} (quoted schema.table).
-- Every running server registers its cached tables here and refreshes heartbeat_at every 10 s
-- (database clock); a row whose heartbeat is older than 60 s belongs to a server that is gone.
-- `install` never removes capture, and `uninstall` refuses while a live server needs a table,
-- so one configuration cannot remove the capture another running server still reads.
-- needs_from is the lowest outbox position the server may still read (PostgreSQL: a transaction id,
-- MySQL/MariaDB: an outbox id; 0 until it knows); every server prunes only below the lowest of the
-- live ones, so none deletes rows another has not read. NULL: a server of a version before it.
CREATE TABLE IF NOT EXISTS ${consumers} (
  consumer_id VARCHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  server_name VARCHAR(200) CHARACTER SET utf8mb4 NOT NULL,
  host VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,
  cached_tables LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  started_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  heartbeat_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  needs_from BIGINT NULL
) ENGINE=InnoDB
