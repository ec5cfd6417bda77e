package io.tablecast.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.row.MalformedRowException;
import io.tablecast.protocol.row.PackedKey;
import io.tablecast.protocol.row.PackedRow;
import io.tablecast.protocol.row.PackedRows;
import io.tablecast.protocol.row.RowForm;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The layouts a connection's server announced, table by table ({@code snapshot_begin}, {@code
 * resumed}, {@code schema_changed}), given to the rows and keys of protocol version 3 as they are
 * decoded, after checking that each row's bytes follow its layout. Messages of version 2 (rows as
 * maps) pass untouched. One per connection, confined to its event loop.
 */
public final class RowLayouts {
  private final Map<String, RowForm> forms = new HashMap<>();

  /** Tables whose last announced column list is no layout, with why. */
  private final Map<String, String> notLayouts = new HashMap<>();

  /** Layouts of a new connection: none announced yet. */
  public RowLayouts() {}

  /** The layout announced last for {@code table}, or null. */
  public RowForm formOf(String table) {
    return forms.get(table);
  }

  /**
   * Notes the layouts {@code m} announces and binds the rows it carries.
   *
   * @return {@code m}
   * @throws ProtocolException with {@link ErrorCode#BAD_FRAME} for a row of a table whose layout
   *     was not announced, or bytes that do not follow it
   */
  public Message bind(Message m) {
    if (m instanceof Message.SnapshotBegin b) {
      announce(b.table(), b.columns(), b.primaryKey());
    } else if (m instanceof Message.Resumed r) {
      for (Message.TableSchemaInfo s : r.schemas()) {
        announce(s.table(), s.columns(), s.primaryKey());
      }
    } else if (m instanceof Message.SchemaChanged c) {
      announce(c.table(), c.columns(), c.primaryKey());
    } else if (m instanceof Message.SnapshotRows rows) {
      if (rows.rows() instanceof PackedRows packed) {
        bindRows(rows.table(), packed);
      } else {
        for (ObjectNode row : rows.rows()) {
          bindRow(rows.table(), row);
        }
      }
    } else if (m instanceof Message.ChangeBatch batch) {
      bindChanges(batch.changes());
    } else if (m instanceof Message.ChangePart part) {
      bindChanges(part.changes());
    } else if (m instanceof Message.Fetched fetched) {
      for (ObjectNode row : fetched.rows()) {
        bindRow(fetched.table(), row);
      }
    }
    return m;
  }

  /**
   * Notes a table's layout. A column list that is no layout (a key column it lacks) matters only to
   * rows in the row form: such a row of the table is refused when it comes, not the announcement (a
   * version-2 server may announce no columns before an empty snapshot).
   */
  private void announce(String table, List<ColumnInfo> columns, List<String> primaryKey) {
    try {
      forms.put(table, new RowForm(columns, primaryKey));
      notLayouts.remove(table);
    } catch (IllegalArgumentException e) {
      forms.remove(table);
      notLayouts.put(table, e.getMessage());
    }
  }

  private void bindChanges(List<Message.Change> changes) {
    for (Message.Change c : changes) {
      bindKey(c.table(), c.key());
      bindRow(c.table(), c.before());
      bindRow(c.table(), c.after());
    }
  }

  private void bindRow(String table, ObjectNode row) {
    if (row instanceof PackedRow p && p.form() == null) {
      try {
        p.bind(layout(table));
      } catch (MalformedRowException e) {
        throw notFollowing("a row", table, e);
      }
    }
  }

  private void bindRows(String table, PackedRows rows) {
    if (!rows.isEmpty() && rows.form() == null) {
      try {
        rows.bind(layout(table));
      } catch (MalformedRowException e) {
        throw notFollowing("a row", table, e);
      }
    }
  }

  private void bindKey(String table, ArrayNode key) {
    if (key instanceof PackedKey k && k.form() == null) {
      try {
        k.bind(layout(table));
      } catch (MalformedRowException e) {
        throw notFollowing("a key", table, e);
      }
    }
  }

  /** A row or key ({@code what}) of {@code table} whose bytes do not follow its layout. */
  private static ProtocolException notFollowing(
      String what, String table, MalformedRowException e) {
    return new ProtocolException(
        ErrorCode.BAD_FRAME,
        what + " of " + table + " does not follow its layout: " + e.getMessage(),
        e);
  }

  private RowForm layout(String table) {
    RowForm f = forms.get(table);
    if (f == null && notLayouts.containsKey(table)) {
      throw new ProtocolException(
          ErrorCode.BAD_FRAME,
          "a row of "
              + table
              + " in the row form, but the columns announced for it are no layout: "
              + notLayouts.get(table));
    }
    if (f == null) {
      throw new ProtocolException(
          ErrorCode.BAD_FRAME,
          "a row of "
              + table
              + " in the row form before its layout (snapshot_begin, resumed or schema_changed)");
    }
    return f;
  }
}
