package io.tablecast.client;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.ErrorCode;
import java.util.ArrayList;
import java.util.List;

/** Turns the protocol's types into the client API's own, so that no wire type reaches users. */
final class WireTypes {

  private WireTypes() {}

  static List<Column> columns(List<ColumnInfo> columns) {
    List<Column> out = new ArrayList<>(columns.size());
    for (ColumnInfo c : columns) {
      out.add(new Column(c.name(), c.dbType(), type(c.kind())));
    }
    return List.copyOf(out);
  }

  static ColumnType type(ColumnKind kind) {
    return ColumnType.valueOf(kind.name());
  }

  /** The client's name for a server error code; null stays null (not the server's failure). */
  static ServerError serverError(ErrorCode code) {
    if (code == null) {
      return null;
    }
    try {
      return ServerError.valueOf(code.name());
    } catch (IllegalArgumentException e) {
      return ServerError.INTERNAL;
    }
  }
}
