package io.tablecast.server.capture;

import io.tablecast.protocol.ColumnKind;
import java.util.Locale;

/** Maps catalog type names to {@link ColumnKind}s; see docs/TYPES.md. */
final class ColumnTypes {
  private ColumnTypes() {}

  /**
   * MySQL / MariaDB, from {@code information_schema.COLUMNS}.
   *
   * @return the kind, or null when unsupported
   */
  static ColumnKind mysql(String dataType, String columnType, boolean jsonChecked) {
    String t = dataType.toLowerCase(Locale.ROOT);
    switch (t) {
      case "tinyint":
        return columnType.toLowerCase(Locale.ROOT).startsWith("tinyint(1)") ? ColumnKind.BOOLEAN : ColumnKind.INTEGER;
      case "smallint": case "mediumint": case "int": case "integer": case "bigint": case "year":
        return ColumnKind.INTEGER;
      case "decimal": case "numeric":
        return ColumnKind.DECIMAL;
      case "float": case "double": case "real": case "double precision":
        return ColumnKind.FLOAT;
      case "longtext":
        return jsonChecked ? ColumnKind.JSON : ColumnKind.STRING;
      case "char": case "varchar": case "tinytext": case "text": case "mediumtext": case "enum": case "set":
      case "uuid": case "inet4": case "inet6":
        return jsonChecked ? ColumnKind.JSON : ColumnKind.STRING;
      case "binary": case "varbinary": case "tinyblob": case "blob": case "mediumblob": case "longblob":
        return ColumnKind.BINARY;
      case "date":
        return ColumnKind.DATE;
      case "time":
        return ColumnKind.TIME;
      case "datetime":
        return ColumnKind.TIMESTAMP;
      case "timestamp":
        return ColumnKind.TIMESTAMP_TZ;
      case "json":
        return ColumnKind.JSON;
      default:
        return null;
    }
  }

  /**
   * PostgreSQL, from {@code information_schema.columns}.
   *
   * @return the kind, or null when unsupported
   */
  static ColumnKind postgresql(String dataType, String udtName, boolean isEnum) {
    if ("ARRAY".equals(dataType)) {
      return ColumnKind.JSON;
    }
    if ("USER-DEFINED".equals(dataType)) {
      return isEnum || "citext".equals(udtName) ? ColumnKind.STRING : null;
    }
    switch (udtName) {
      case "int2": case "int4": case "int8":
        return ColumnKind.INTEGER;
      case "numeric":
        return ColumnKind.DECIMAL;
      case "float4": case "float8":
        return ColumnKind.FLOAT;
      case "bool":
        return ColumnKind.BOOLEAN;
      case "text": case "varchar": case "bpchar": case "name": case "uuid": case "inet": case "cidr":
      case "macaddr": case "macaddr8": case "interval": case "timetz": case "xml": case "bit": case "varbit":
        return ColumnKind.STRING;
      case "bytea":
        return ColumnKind.BINARY;
      case "date":
        return ColumnKind.DATE;
      case "time":
        return ColumnKind.TIME;
      case "timestamp":
        return ColumnKind.TIMESTAMP;
      case "timestamptz":
        return ColumnKind.TIMESTAMP_TZ;
      case "json": case "jsonb":
        return ColumnKind.JSON;
      default:
        return null;
    }
  }
}
