package io.tablecast.server.mysql;

import io.tablecast.protocol.row.TextSlices;
import io.tablecast.server.capture.RowTextsFetch;
import io.tablecast.server.log.RecentEvents;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Arrays;
import java.util.Locale;
import org.slf4j.Logger;

/**
 * MySQL/MariaDB whole-table reads: each row of the result set taken as MariaDB Connector/J received
 * it ({@link RowPacketCodec}), its column texts as slices of that one array, where {@code
 * getString} made a {@code String} of each value (docs/BENCHMARKS.md, "Server start on MariaDB:
 * rows read as the driver received them"). Only where the two agree: when every column is of a type
 * whose {@code getString} is its text as sent ({@link #readsAsSent}; not a {@code DATETIME} or
 * {@code TIMESTAMP}, which the driver reformats, nor {@code BIT} or binary strings, which
 * Tablecast's reads never select bare) and the row lies in its array as the text protocol lays it
 * out, checked on every row against where the driver found the asked column. Otherwise the rows are
 * read with {@code getString}, from the first row that is not, with a warning if the layout was the
 * reason (a driver that changed).
 */
final class RowPackets {
  private static final Logger LOG = RecentEvents.logger(RowPackets.class);

  /** The fetch for {@link MysqlDialect}. */
  static final RowTextsFetch FETCH = RowTextsFetch.resultSet(RowPackets::read);

  private static final int NULL = 0xfb;

  private RowPackets() {}

  /**
   * Hands each row of {@code rs} to {@code each}, as slices of the driver's row where it can, else
   * as strings; returns whether every row went as slices.
   */
  static boolean read(ResultSet rs, int columns, RowTextsFetch.Rows each)
      throws SQLException, InterruptedException {
    ResultSetMetaData meta = rs.getMetaData();
    int fields = meta.getColumnCount();
    boolean packets = readsAsSent(meta);
    while (rs.next()) {
      TextSlices row = packets ? slices(rs, fields, columns) : null;
      if (row != null) {
        each.accept(row);
      } else {
        packets = false;
        each.accept(RowTextsFetch.texts(rs, columns));
      }
    }
    return packets;
  }

  /**
   * Whether {@code getString} gives every column's text as the server sent it, by the column's JDBC
   * type: integers, decimals, floating point, character strings, {@code DATE}, {@code TIME}, {@code
   * YEAR}, MariaDB's {@code UUID}.
   */
  static boolean readsAsSent(ResultSetMetaData meta) throws SQLException {
    for (int i = 1; i <= meta.getColumnCount(); i++) {
      boolean asSent =
          switch (meta.getColumnType(i)) {
            case Types.BOOLEAN, // TINYINT(1): its number
                Types.TINYINT,
                Types.SMALLINT,
                Types.INTEGER,
                Types.BIGINT,
                Types.DECIMAL,
                Types.NUMERIC,
                Types.REAL,
                Types.FLOAT,
                Types.DOUBLE,
                Types.CHAR,
                Types.VARCHAR,
                Types.LONGVARCHAR,
                Types.DATE, // and YEAR
                Types.TIME ->
                true;
            case Types.OTHER -> "uuid".equals(meta.getColumnTypeName(i).toLowerCase(Locale.ROOT));
            default -> false;
          };
      if (!asSent) {
        return false;
      }
    }
    return true;
  }

  /**
   * The current row's first {@code columns} columns as slices of the driver's row, or null when the
   * driver does not give it as a text-protocol row ({@link #slices(byte[], int, int, int, int,
   * int)}).
   */
  private static TextSlices slices(ResultSet rs, int fields, int columns) throws SQLException {
    for (int column = 1; column <= fields; column++) {
      RowPacketCodec.Packet packet;
      try {
        packet = rs.getObject(column, RowPacketCodec.Packet.class);
      } catch (SQLException e) { // the codec not registered: a class path without our services
        LOG.warn(
            "MariaDB Connector/J did not use Tablecast's row codec ({}); reading rows with getString",
            e.getMessage());
        return null;
      }
      if (packet != null) {
        TextSlices row =
            slices(
                packet.bytes,
                fields,
                columns,
                column - 1,
                packet.fieldStart,
                packet.fieldStart + packet.fieldLength);
        if (row == null) {
          LOG.warn(
              "MariaDB Connector/J gave a row not laid out as the text protocol's; reading the rest"
                  + " of this read with getString");
        }
        return row;
      } // else NULL: the codec is not asked; the next column is
    }
    return new TextSlices(new byte[0], allNull(columns));
  }

  private static int[] allNull(int columns) {
    int[] bounds = new int[columns << 1];
    Arrays.fill(bounds, -1);
    return bounds;
  }

  /**
   * A text-protocol row of {@code fields} columns (each NULL, byte 0xfb, or its length as a
   * length-encoded integer and its text), as slices of its first {@code columns}; null unless the
   * fields end exactly at the array's end and field {@code checked} lies from {@code checkedStart}
   * to {@code checkedEnd}.
   */
  static TextSlices slices(
      byte[] row, int fields, int columns, int checked, int checkedStart, int checkedEnd) {
    int[] bounds = new int[columns << 1];
    int p = 0;
    for (int field = 0; field < fields; field++) {
      if (p >= row.length) {
        return null;
      }
      int first = row[p++] & 0xff;
      int start;
      int end;
      if (first == NULL) {
        start = -1;
        end = -1;
      } else {
        long length;
        if (first < NULL) {
          length = first;
        } else {
          int bytes = first == 0xfc ? 2 : first == 0xfd ? 3 : first == 0xfe ? 8 : -1;
          if (bytes < 0 || p + bytes > row.length) {
            return null;
          }
          length = 0;
          for (int i = bytes - 1; i >= 0; i--) {
            length = length << 8 | (row[p + i] & 0xff);
          }
          p += bytes;
        }
        if (length < 0 || length > row.length - p) {
          return null;
        }
        start = p;
        end = p + (int) length;
        p = end;
      }
      if (field == checked && (start != checkedStart || end != checkedEnd)) {
        return null;
      }
      if (field < columns) {
        bounds[field << 1] = start;
        bounds[(field << 1) + 1] = end;
      }
    }
    return p == row.length && fields >= columns ? new TextSlices(row, bounds) : null;
  }
}
