package io.tablecast.client;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.ErrorCode;
import io.tablecast.protocol.Message;
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

  /** A mirror's shape as a subscribe carries it; null stays null. */
  static Message.Shape shape(MirrorShape shape) {
    if (shape == null) {
      return null;
    }
    com.fasterxml.jackson.databind.node.JsonNodeFactory nodes =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    List<com.fasterxml.jackson.databind.JsonNode> params = new ArrayList<>();
    for (Object p : shape.params()) {
      params.add(
          p instanceof Boolean b
              ? nodes.booleanNode(b)
              : p instanceof Number n
                  ? nodes.numberNode(new java.math.BigDecimal(n.toString()))
                  : nodes.textNode(p.toString()));
    }
    return new Message.Shape(shape.filter(), params, shape.columns());
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
