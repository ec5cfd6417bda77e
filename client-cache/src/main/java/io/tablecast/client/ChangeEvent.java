package io.tablecast.client;

/**
 * One row change as seen by a mirror. The operation describes the mirror's transition: {@link
 * ChangeType#INSERT} (key was absent, {@code oldRow} is null), {@link ChangeType#UPDATE} (both rows
 * present) or {@link ChangeType#DELETE} ({@code newRow} is null). An update that changes the
 * primary key is reported as a delete of the old key followed by an insert of the new one.
 *
 * @param table qualified table name ({@code schema.table})
 * @param op what happened to the key
 * @param key the normalized key: a {@code Long}, {@code String}, ... for a single-column key, a
 *     {@code List} of parts for a composite key
 * @param oldRow the row before the change, or null for an insert
 * @param newRow the row after the change, or null for a delete
 * @param <V> the row type
 */
public record ChangeEvent<V>(String table, ChangeType op, Object key, V oldRow, V newRow) {}
