package io.tablecast.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.row.PackedRows;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every message of the Tablecast protocol. The same records travel as CBOR in length-prefixed
 * frames over TCP and as JSON text over WebSocket; {@link MessageType} gives each its stable code.
 * See {@code docs/PROTOCOL.md}.
 */
public sealed interface Message {

  /**
   * The current protocol version, sent in {@link Hello} and {@link Welcome}. Version 2 added {@link
   * ChangePart}: a client of version 1 would apply each part as a whole batch. Version 3 carries
   * rows and keys on the binary transport in the row form (CBOR byte strings, read with the layout
   * of the table's last {@link SnapshotBegin}, {@link Resumed} or {@link SchemaChanged}) instead of
   * maps; the WebSocket transport's JSON is the same in both. Version 4 adds {@link Sync} and
   * {@link Synced} (read-your-writes); rows travel as in version 3. Version 5 adds {@link Fetch}
   * and {@link Fetched} and the {@code withoutRows} of a {@link Subscribe} (near caches), and its
   * {@code shapes} ({@link Shape}: rows and columns the client chooses).
   */
  int PROTOCOL_VERSION = 5;

  /**
   * The oldest version a server still serves: a client of version 2 gets rows as maps, as before.
   */
  int OLDEST_PROTOCOL_VERSION = 2;

  /** The type of this message, which fixes its code on the wire. */
  default MessageType type() {
    return MessageType.of(this);
  }

  /**
   * First message from a client. Credentials are optional until the server requires them.
   *
   * @param protocolVersion the client's protocol version
   * @param clientName a name for logs and metrics, e.g. the service name
   * @param user principal name for password authentication, or null
   * @param password password, or null
   * @param token a signed token (e.g. JWT) as an alternative to user and password, or null
   */
  record Hello(int protocolVersion, String clientName, String user, String password, String token)
      implements Message {
    @Override
    public String toString() {
      // never print secrets
      return "Hello[protocolVersion="
          + protocolVersion
          + ", clientName="
          + clientName
          + ", user="
          + user
          + ", password="
          + (password == null ? null : "***")
          + ", token="
          + (token == null ? null : "***")
          + "]";
    }
  }

  /**
   * The server's answer to a valid {@link Hello}.
   *
   * @param protocolVersion the server's protocol version
   * @param serverName the server's configured name
   * @param epoch identifies this run of the server; positions are only comparable within one epoch
   * @param position the server's current stream position
   * @param heartbeatMillis the server sends at least one message this often; silence for three
   *     intervals means the connection is dead
   */
  record Welcome(
      int protocolVersion, String serverName, String epoch, long position, long heartbeatMillis)
      implements Message {}

  /**
   * Subscribe to tables. All tables of one subscription are snapshotted at one position, so a
   * transaction that spans them is never seen half-applied.
   *
   * @param tables qualified table names ({@code schema.table})
   * @param resumeEpoch the epoch of the last {@link ChangeBatch} applied, or null for a fresh start
   * @param resumePosition the position of the last batch applied, or -1 for a fresh start
   * @param withoutRows tables among {@code tables} whose snapshot carries no rows, only their
   *     columns and position (version 5: a near cache, which loads rows by key with {@link Fetch});
   *     null or empty: every snapshot carries its rows
   * @param shapes the rows and columns chosen of some of the tables ({@link Shape}), by table; null
   *     or empty: every row and column the principal may see
   */
  record Subscribe(
      List<String> tables,
      String resumeEpoch,
      long resumePosition,
      List<String> withoutRows,
      Map<String, Shape> shapes)
      implements Message {
    public Subscribe {
      tables = List.copyOf(Objects.requireNonNull(tables, "tables"));
      withoutRows = withoutRows == null || withoutRows.isEmpty() ? null : List.copyOf(withoutRows);
      shapes = shapes == null || shapes.isEmpty() ? null : Map.copyOf(shapes);
    }

    /** A subscription without shapes. */
    public Subscribe(
        List<String> tables, String resumeEpoch, long resumePosition, List<String> withoutRows) {
      this(tables, resumeEpoch, resumePosition, withoutRows, null);
    }

    /** A subscription whose snapshots carry their rows. */
    public Subscribe(List<String> tables, String resumeEpoch, long resumePosition) {
      this(tables, resumeEpoch, resumePosition, null, null);
    }

    /** A subscription that starts from a snapshot. */
    public static Subscribe fresh(List<String> tables) {
      return new Subscribe(tables, null, -1);
    }

    /** Whether the snapshot of {@code table} carries no rows. */
    public boolean withoutRows(String table) {
      return withoutRows != null && withoutRows.contains(table);
    }

    /** The shape asked for {@code table}, or null. */
    public Shape shape(String table) {
      return shapes == null ? null : shapes.get(table);
    }
  }

  /**
   * The rows and columns a client chooses of a table it subscribes (version 5), within what its
   * principal may see: rows for which {@code filter} holds, with {@code params} bound to its {@code
   * ?} and {@code $n}, and the primary key plus {@code columns}. The server parses the filter into
   * its own tree (docs/PROTOCOL.md, Subscription shapes); it never reaches SQL.
   *
   * @param filter the row filter, or null for every row
   * @param params the values of the filter's parameters (strings, numbers, booleans), or null
   * @param columns the columns besides the primary key, or null for all
   */
  record Shape(String filter, List<JsonNode> params, List<String> columns) {
    public Shape {
      params = params == null || params.isEmpty() ? null : List.copyOf(params);
      columns = columns == null ? null : List.copyOf(columns);
    }
  }

  /**
   * Starts the snapshot of one table. Rows follow in {@link SnapshotRows}, then {@link
   * SnapshotEnd}; changes after {@code position} follow in {@link ChangeBatch}es.
   */
  record SnapshotBegin(
      String table, List<ColumnInfo> columns, List<String> primaryKey, long position, long rowCount)
      implements Message {
    public SnapshotBegin {
      columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
      primaryKey = List.copyOf(Objects.requireNonNull(primaryKey, "primaryKey"));
    }
  }

  /** A chunk of snapshot rows, each a JSON object keyed by column name. */
  record SnapshotRows(
      String table, @JsonDeserialize(using = SnapshotRowsDeserializer.class) List<ObjectNode> rows)
      implements Message {
    public SnapshotRows {
      // a chunk decoded in the row form is unmodifiable already, and holds no object per row
      rows = rows instanceof PackedRows ? rows : List.copyOf(Objects.requireNonNull(rows, "rows"));
    }
  }

  /**
   * Ends the snapshot of one table; the table's mirror now equals the table at {@code position}.
   */
  record SnapshotEnd(String table, long position) implements Message {}

  /**
   * The server accepted a resume: the batches after {@code position} follow, and nothing before it
   * is sent again.
   */
  record Resumed(List<String> tables, List<TableSchemaInfo> schemas, long position)
      implements Message {
    public Resumed {
      tables = List.copyOf(Objects.requireNonNull(tables, "tables"));
      schemas = List.copyOf(Objects.requireNonNull(schemas, "schemas"));
    }
  }

  /**
   * Column layout of a table, sent with {@link Resumed} so that a resumed client still knows the
   * primary key.
   */
  record TableSchemaInfo(String table, List<ColumnInfo> columns, List<String> primaryKey) {
    public TableSchemaInfo {
      columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
      primaryKey = List.copyOf(Objects.requireNonNull(primaryKey, "primaryKey"));
    }
  }

  /**
   * Whole committed transactions, to be applied atomically. A batch with no changes is a heartbeat
   * that advances the position.
   *
   * @param position the stream position after this batch
   * @param captureMillis when the newest change in the batch was written to the outbox (epoch
   *     millis, database clock), 0 for heartbeats; used to measure lag
   * @param changes row changes in commit order per row
   */
  record ChangeBatch(long position, long captureMillis, List<Change> changes) implements Message {
    public ChangeBatch {
      changes = List.copyOf(Objects.requireNonNull(changes, "changes"));
    }
  }

  /**
   * One part of a batch too large for one frame. The parts of the batch at {@code position} arrive
   * in order, with nothing else that carries a position between them, and the {@link ChangeBatch}
   * of the same position ends the batch with its last changes. A client keeps the parts aside and
   * applies them with that final batch, atomically: no reader ever sees a part applied alone. A
   * connection lost before the final batch loses the parts; the client resumes from the position
   * before them.
   *
   * @param position the position of the batch this part belongs to
   * @param changes some of the batch's changes, in the batch's order
   */
  record ChangePart(long position, List<Change> changes) implements Message {
    public ChangePart {
      changes = List.copyOf(Objects.requireNonNull(changes, "changes"));
    }
  }

  /**
   * A subscribed table's column list changed while serving ({@code ALTER TABLE}): the changes that
   * follow use it. Sent before the batch that brings every row into the new layout.
   *
   * @param table the qualified table name
   * @param version the table's column-list version in this server run: 1 at start (the snapshot's
   *     and {@link Resumed}'s layout), one more at each change
   * @param columns the columns now, in table order (as the session may see them)
   * @param primaryKey the primary-key column names now
   */
  record SchemaChanged(String table, int version, List<ColumnInfo> columns, List<String> primaryKey)
      implements Message {
    public SchemaChanged {
      Objects.requireNonNull(table, "table");
      columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
      primaryKey = List.copyOf(Objects.requireNonNull(primaryKey, "primaryKey"));
    }
  }

  /**
   * Whether a subscribed table's mirrors still follow it. Sent whenever a table becomes stale (the
   * server knows its mirrors may differ from the table: a changed row it could not read) and when
   * it follows its table once more, and right after the snapshot or resume of a table that is stale
   * then: a table whose snapshot or resume is followed by a {@link ChangeBatch} (a heartbeat at the
   * latest) without a status before it is followed. Carries no position.
   *
   * @param table the qualified table name
   * @param stale true: the mirrors may differ from the table; false: they follow it again
   * @param reason what is wrong and what would repair it, naming the row when one; null when not
   *     stale
   */
  record TableStatus(String table, boolean stale, String reason) implements Message {
    public TableStatus {
      Objects.requireNonNull(table, "table");
    }
  }

  /**
   * One row change inside a {@link ChangeBatch} or {@link ChangePart}.
   *
   * @param table qualified table name
   * @param op insert, update or delete
   * @param key primary-key values in primary-key column order (for an update that changed the key:
   *     the new key; the old one is in {@code before})
   * @param before the row before the change (update, delete), else null
   * @param after the row after the change (insert, update), else null
   */
  record Change(String table, Op op, ArrayNode key, ObjectNode before, ObjectNode after) {
    public Change {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * An error. An error that names a {@code table} concerns only that table's subscription and
   * leaves the connection open; any other error is followed by a close.
   *
   * <p>{@code message} and {@code table} often quote what a client sent; an unpaired UTF-16
   * surrogate in them (which a malformed string can decode to) becomes U+FFFD, so that the error
   * can always be encoded: CBOR refuses text that is not valid Unicode.
   *
   * @param code what kind of error
   * @param message what was wrong and what was expected
   * @param table the table the error concerns, or null
   */
  @SuppressWarnings("JavaLangClash") // the wire message "error", always written Message.Error
  record Error(ErrorCode code, String message, String table) implements Message {
    public Error {
      message = wellFormed(message);
      table = wellFormed(table);
    }

    private static String wellFormed(String s) {
      if (s == null) {
        return null;
      }
      StringBuilder out = null;
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        boolean paired =
            Character.isHighSurrogate(c)
                ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
                : !Character.isLowSurrogate(c);
        if (Character.isHighSurrogate(c) && paired) {
          if (out != null) {
            out.append(c).append(s.charAt(i + 1));
          }
          i++;
          continue;
        }
        if (!paired && out == null) {
          out = new StringBuilder(s.length()).append(s, 0, i);
        }
        if (out != null) {
          out.append(paired ? c : '\uFFFD');
        }
      }
      return out == null ? s : out.toString();
    }

    /** An error that closes the connection. */
    public static Error fatal(ErrorCode code, String message) {
      return new Error(code, message, null);
    }
  }

  /** Liveness probe; answered with a {@link Pong} carrying the same nonce. */
  record Ping(long nonce) implements Message {}

  /** Answer to a {@link Ping}. */
  record Pong(long nonce) implements Message {}

  /**
   * Read-your-writes (version 4): asks the server to answer with a {@link Synced} once every change
   * committed in the database before the server received this request has been sent on this
   * connection.
   *
   * @param id chosen by the client, echoed in the answer
   */
  record Sync(long id) implements Message {}

  /**
   * The answer to a {@link Sync}. Without {@code failure}: every change committed before the
   * request arrived, to the session's tables, was sent on this connection before this message (a
   * snapshot or resume still being written included).
   *
   * @param id the request's id
   * @param position the server's position when it answered (informational); -1 with a failure
   * @param failure why the server cannot answer (it serves from a NATS stream, too many requests
   *     are open), or null
   */
  record Synced(long id, long position, String failure) implements Message {}

  /**
   * Near cache (version 5): asks for the rows of a subscribed table with these keys, as the
   * server's image holds them when it answers. The answer, {@link Fetched}, is written in the
   * session's stream: every change before it is on the wire before it, every change after it behind
   * it.
   *
   * @param id chosen by the client, echoed in the answer
   * @param table a table this connection subscribed
   * @param keys primary keys, each the array of its values in primary-key order (as a change's key)
   */
  record Fetch(long id, String table, List<ArrayNode> keys) implements Message {
    public Fetch {
      keys = List.copyOf(Objects.requireNonNull(keys, "keys"));
    }
  }

  /**
   * The answer to a {@link Fetch}: the rows of the asked keys that exist and that the session may
   * see, as of {@code position}; a key without a row has none (or none the session may see).
   *
   * @param id the request's id
   * @param table the request's table
   * @param position the position of the last batch sent before this answer; -1 with a failure
   * @param rows the rows found, in the session's columns
   * @param failure why the server cannot answer (the table is not subscribed on this connection,
   *     too many keys, a key that does not fit the primary key), or null
   */
  record Fetched(long id, String table, long position, List<ObjectNode> rows, String failure)
      implements Message {
    public Fetched {
      rows = rows == null ? List.of() : List.copyOf(rows);
    }
  }
}
