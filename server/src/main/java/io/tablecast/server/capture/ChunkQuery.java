package io.tablecast.server.capture;

/**
 * A query reading one key range of a table in primary-key order, for reconciliation: each row as
 * whole-table reads give it ({@code rowShape}: one column of JSON text, or one text per column),
 * then each key column as text (its "resume text"); when it resumes after a key, its parameters are
 * that key's resume texts.
 *
 * @param sql the statement
 * @param rowShape what the row's first columns hold
 * @param parameterKeyColumns for each parameter, in order, the index of the key column whose resume
 *     text it takes (a key column may be bound more than once)
 * @param parameterSqlType the {@link java.sql.Types} code to bind the texts with
 */
@SuppressWarnings("ArrayRecordComponent") // a statement to run, never compared
public record ChunkQuery(
    String sql, SnapshotRead.Shape rowShape, int[] parameterKeyColumns, int parameterSqlType) {}
