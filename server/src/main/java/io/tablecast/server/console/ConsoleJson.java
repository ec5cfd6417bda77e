package io.tablecast.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.MessageCodec;
import io.tablecast.server.hub.HubView;
import io.tablecast.server.log.RecentEvents;

/**
 * The JSON bodies of the console's API (docs/OPERATIONS.md lists their fields): each a function of
 * values already copied out of the stages, so rendering never touches a stage's state.
 */
final class ConsoleJson {

  private static final ObjectMapper MAPPER = MessageCodec.jsonMapper();

  private ConsoleJson() {}

  /**
   * {@code /console/api/tables}: every cached table from the view, with its per-table counters
   * ({@code byTable} of {@link MetricsJson}).
   */
  static ObjectNode tables(HubView view, JsonNode byTable) {
    ObjectNode out = header(view);
    ArrayNode tables = out.putArray("tables");
    for (HubView.TableView t : view.tables()) {
      ObjectNode table = MAPPER.valueToTree(t);
      table.put("bytes", t.rowBytes() + t.indexBytes());
      table.put("captureLagMillis", t.captureLagMillis());
      JsonNode counters = byTable.get(t.name());
      for (String field :
          new String[] {
            "repairs", "reconcileRuns", "resyncs", "imageErrors", "rowsRefused", "snapshotsServed"
          }) {
        table.put(field, counters == null ? 0 : counters.path(field).asDouble(0));
      }
      tables.add(table);
    }
    return out;
  }

  /** {@code /console/api/sessions}: every session from the view. */
  static ObjectNode sessions(HubView view) {
    ObjectNode out = header(view);
    out.set("sessions", MAPPER.valueToTree(view.sessions()));
    return out;
  }

  /** {@code /console/api/errors}: the recent WARN and ERROR lines, newest first, and the totals. */
  static ObjectNode errors(RecentEvents events) {
    ObjectNode out = MAPPER.createObjectNode();
    out.put("warnings", events.warnings());
    out.put("errors", events.errors());
    out.put("capacity", RecentEvents.CAPACITY);
    out.set("events", MAPPER.valueToTree(events.newestFirst()));
    return out;
  }

  /**
   * {@code /console/api/server}: who the server is and who is looking.
   *
   * @param viewer the principal the request authenticated as
   * @param access how the console is protected ({@link ConsoleAccess#describe()})
   */
  static ObjectNode server(
      HubView view,
      String serverName,
      String health,
      long startedMillis,
      String viewer,
      String access,
      RecentEvents events) {
    ObjectNode out = header(view);
    out.put("serverName", serverName);
    out.put("health", health);
    out.put("startedMillis", startedMillis);
    out.put("tables", view.tables().size());
    out.put("staleTables", view.tables().stream().filter(HubView.TableView::stale).count());
    out.put("sessions", view.sessions().size());
    out.put("viewer", viewer);
    out.put("access", access);
    out.put("warnings", events.warnings());
    out.put("errors", events.errors());
    return out;
  }

  /** What every view-based body starts with: the run, its position and the view's time. */
  private static ObjectNode header(HubView view) {
    ObjectNode out = MAPPER.createObjectNode();
    out.put("epoch", view.epoch());
    out.put("position", view.position());
    out.put("takenMillis", view.takenMillis());
    return out;
  }

  /** An error body: {@code {"error": message}}. */
  static String error(String message) {
    ObjectNode out = MAPPER.createObjectNode();
    out.put("error", message);
    return out.toString();
  }
}
