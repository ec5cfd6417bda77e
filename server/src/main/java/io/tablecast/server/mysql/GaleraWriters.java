package io.tablecast.server.mysql;

import io.tablecast.server.capture.CaptureFinding;
import io.tablecast.server.log.RecentEvents;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A MariaDB Galera Cluster (or Percona XtraDB Cluster) node as the source. Galera copies the outbox
 * rows the triggers write on any node to every node, but a transaction still open on another node
 * is invisible here, also to {@code information_schema.innodb_trx}: the tail, which closes a gap in
 * the outbox ids once no transaction open here can fill it ({@link GapTracker}), drops the id of
 * such a transaction, and its changes never reach the mirrors when it commits. Seen on MariaDB
 * 10.11 with two nodes: a row inserted on the second node, committed after the first had committed
 * later outbox ids, was missing from the mirror (GaleraSourceTest). Writes through one node only,
 * the one the server reads, are captured whole.
 *
 * <p>So a node of a cluster of more than one is accepted with a warning at start, and the tail
 * tells writes through other nodes by their outbox ids: with {@code wsrep_auto_increment_control}
 * (the default) each node hands out the ids of its own residue modulo {@code
 * auto_increment_increment}, from {@code auto_increment_offset}. A row of another residue came
 * through another node: said at ERROR (at most once a minute), counted in {@code
 * tablecast_capture_problems_total{kind="galera_other_node"}}, and every cached table is re-read
 * (at most every {@link #REREAD_EVERY_NANOS}), which brings back what was dropped until then.
 */
final class GaleraWriters {
  private static final Logger LOG = RecentEvents.logger(GaleraWriters.class);

  /** At most one re-read of every cached table this often, while other nodes write. */
  static final long REREAD_EVERY_NANOS = 10_000_000_000L;

  private static final long REPORT_EVERY_NANOS = 60_000_000_000L;

  /** This node as last looked at; {@link #NONE} outside a cluster. */
  record Node(String name, int clusterSize, long increment, long offset) {
    static final Node NONE = new Node("", 1, 1, 1);

    /** Whether the outbox id {@code id} was handed out by another node of the cluster. */
    boolean otherNode(long id) {
      return clusterSize > 1 && increment > 1 && Math.floorMod(id - offset, increment) != 0;
    }
  }

  private volatile Node node = Node.NONE;
  private long lastReport;
  private long lastReread;
  private boolean reported;
  private boolean reread;

  /** Looks at this node's cluster state again (at start and at each capture check). */
  void look(Connection c) throws SQLException {
    use(node(c));
  }

  /** Takes {@code n} as this node's state. */
  void use(Node n) {
    node = n;
  }

  Node node() {
    return node;
  }

  /**
   * The tail read the outbox ids {@code ids}: when one came through another node, said and counted
   * (see the class comment). Returns whether every cached table is to be re-read now.
   *
   * @param tables the cached tables, for the metric
   */
  boolean read(List<Long> ids, Supplier<List<String>> tables, CaptureProblems problems) {
    Node n = node;
    if (n.clusterSize() <= 1) {
      return false; // outside a cluster, the tail's every poll stops here
    }
    return otherNodes(n, ids, tables, problems);
  }

  private synchronized boolean otherNodes(
      Node n, List<Long> ids, Supplier<List<String>> tables, CaptureProblems problems) {
    long other = -1;
    int count = 0;
    for (long id : ids) {
      if (n.otherNode(id)) {
        other = other < 0 ? id : other;
        count++;
      }
    }
    if (count == 0) {
      return false;
    }
    long now = System.nanoTime();
    if (!reported || now - lastReport >= REPORT_EVERY_NANOS) {
      reported = true;
      lastReport = now;
      LOG.error(
          "{} outbox rows (first id {}) were written through another node of the Galera cluster"
              + " than {} (its ids are those of offset {} modulo {}): a transaction open on"
              + " another node is invisible here, so its changes can be lost while it runs."
              + " Every cached table is re-read every {} s while this lasts; route every write to"
              + " the cached tables through {} (docs/GUARANTEES.md, Galera)",
          count,
          other,
          n.name(),
          n.offset(),
          n.increment(),
          REREAD_EVERY_NANOS / 1_000_000_000L,
          n.name());
      tables.get().forEach(t -> problems.problem(t, "galera_other_node"));
    }
    if (!reread || now - lastReread >= REREAD_EVERY_NANOS) {
      reread = true;
      lastReread = now;
      return true;
    }
    return false;
  }

  /** Where problems are counted ({@code ServerMetrics::captureProblem}). */
  interface CaptureProblems {
    void problem(String table, String kind);
  }

  /**
   * Findings for start and {@code tablecast check}: a warning on a node of a cluster of more than
   * one node; nothing elsewhere.
   */
  static List<CaptureFinding> findings(Connection c) throws SQLException {
    Node n = node(c);
    if (n.clusterSize() <= 1) {
      return List.of();
    }
    return List.of(
        CaptureFinding.warn(
            "source",
            "this database is node "
                + n.name()
                + " of a Galera cluster of "
                + n.clusterSize()
                + " nodes: a transaction open on another node is invisible here, so changes"
                + " written through other nodes can be lost. Route every write to the cached"
                + " tables through this node; the server says so, and re-reads the tables, when"
                + " an outbox row came through another (docs/GUARANTEES.md, Galera)"));
  }

  private static Node node(Connection c) throws SQLException {
    Map<String, String> v = new HashMap<>();
    try (Statement s = c.createStatement()) {
      try (ResultSet rs =
          s.executeQuery(
              "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('wsrep_on', 'wsrep_node_name',"
                  + " 'wsrep_node_address', 'hostname', 'port', 'auto_increment_increment',"
                  + " 'auto_increment_offset')")) {
        while (rs.next()) {
          v.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2));
        }
      }
      if (!"ON".equalsIgnoreCase(v.get("wsrep_on"))) {
        return Node.NONE;
      }
      try (ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'")) {
        v.put("size", rs.next() ? rs.getString(2) : "1");
      }
    }
    String address = v.get("wsrep_node_address");
    return new Node(
        "'"
            + v.getOrDefault("wsrep_node_name", "?")
            + "' ("
            + (address == null || address.isEmpty()
                ? v.get("hostname") + ":" + v.get("port")
                : address)
            + ")",
        Integer.parseInt(v.get("size")),
        Long.parseLong(v.getOrDefault("auto_increment_increment", "1")),
        Long.parseLong(v.getOrDefault("auto_increment_offset", "1")));
  }
}
