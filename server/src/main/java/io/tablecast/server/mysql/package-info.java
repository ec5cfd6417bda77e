/**
 * MariaDB and MySQL 8: everything of this family that differs from other databases. Key-recording
 * triggers ({@code MysqlTriggers}, and {@code MysqlCascadeTriggers} for foreign-key actions, which
 * fire no triggers on InnoDB), the catalog of {@code information_schema} ({@code MysqlTypes}), and
 * the tail ({@code MysqlChangeSource}: single READ COMMITTED reads, gaps in outbox ids resolved
 * from {@code innodb_trx} or lock probes, reads of the changed rows by key). Registered by {@link
 * io.tablecast.server.mysql.MysqlFamily}; where MariaDB and MySQL 8 differ, {@code MysqlFlavor}
 * says. Imports the shared {@code capture} and {@code tail} packages, which never import it.
 */
package io.tablecast.server.mysql;
