package io.tablecast.server.image;

import io.tablecast.protocol.Op;
import io.tablecast.protocol.row.RowForm;

/**
 * What applying one event did to a table's image, in the image's row form ({@link RowForm}): the
 * hub turns it into the wire's change once ({@code hub.JsonEdge}).
 *
 * @param table the table's qualified name
 * @param op INSERT (the key was not in the image), UPDATE (its row differed), DELETE
 * @param key the row's key; for an UPDATE that moved the row, the new key
 * @param before the image's row before (UPDATE, DELETE), else null
 * @param after the row now (INSERT, UPDATE), else null
 */
@SuppressWarnings("ArrayRecordComponent") // immutable row-form bytes; changes are never compared
public record RowChange(String table, Op op, byte[] key, byte[] before, byte[] after) {}
