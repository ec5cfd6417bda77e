/**
 * PostgreSQL 13+: everything of this family that differs from other databases. Generic capture
 * functions writing whole rows and the transaction's {@code xid8} ({@code PgTriggers}), triggers on
 * every partition and inheritance child ({@code PgCoverage}, followed while serving by {@code
 * PgCaptureWatch}), the catalog of {@code pg_catalog} ({@code PgTypes}), and the tail ({@code
 * PgChangeSource}: reads by transaction snapshot). Registered by {@link
 * io.tablecast.server.postgresql.PgFamily}. Imports the shared {@code capture} and {@code tail}
 * packages, which never import it.
 */
package io.tablecast.server.postgresql;
