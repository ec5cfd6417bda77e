package io.tablecast.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB Galera Cluster of two nodes on this machine, from the Debian packages ({@code
 * mariadb-server}, {@code galera-4}), on free ports. Each node starts alone first (so that it has
 * the test's root login from 127.0.0.1), then with Galera: the first bootstraps the cluster, the
 * second joins it and receives its state by {@code mysqldump} (rsync would run as nobody here).
 */
final class LocalGalera implements AutoCloseable {
  static final String PROVIDER = "/usr/lib/galera/libgalera_smm.so";

  final LocalMariadb first;
  final LocalMariadb second;

  private LocalGalera(LocalMariadb first, LocalMariadb second) {
    this.first = first;
    this.second = second;
  }

  static LocalGalera start(String name) throws IOException, SQLException, InterruptedException {
    if (!Files.exists(Path.of(PROVIDER))) {
      throw new IllegalStateException(
          PROVIDER + " is missing: install Galera with `apt-get install -y galera-4`");
    }
    LocalMariadb first = LocalMariadb.start(name + "-1", 1);
    LocalMariadb second = null;
    try {
      int firstGroup = LocalDatabases.freePort();
      String cluster = "tc-" + first.port;
      first.restartWith(options(cluster, "node1", first, firstGroup, ""));
      awaitSynced(first, 1);
      second = LocalMariadb.start(name + "-2", 2);
      second.restartWith(
          options(cluster, "node2", second, LocalDatabases.freePort(), "127.0.0.1:" + firstGroup));
      awaitSynced(second, 2);
      return new LocalGalera(first, second);
    } catch (IOException | SQLException | InterruptedException | RuntimeException e) {
      IllegalStateException failed =
          new IllegalStateException(
              "the Galera cluster did not start; its nodes' logs end with:\n"
                  + tail(first)
                  + (second == null ? "" : "\n" + tail(second)),
              e);
      first.close();
      if (second != null) {
        second.close();
      }
      throw failed;
    }
  }

  private static String[] options(
      String cluster, String nodeName, LocalMariadb node, int group, String join)
      throws IOException {
    return List.of(
            "--binlog-format=ROW",
            "--innodb-autoinc-lock-mode=2",
            "--wsrep-on=ON",
            "--wsrep-provider=" + PROVIDER,
            "--wsrep-cluster-name=" + cluster,
            "--wsrep-cluster-address=gcomm://" + join,
            "--wsrep-node-name=" + nodeName,
            "--wsrep-node-address=127.0.0.1:" + group,
            "--wsrep-provider-options=base_port="
                + group
                + ";ist.recv_addr=127.0.0.1:"
                + LocalDatabases.freePort(),
            "--wsrep-sst-method=mysqldump",
            "--wsrep-sst-auth=root:",
            "--wsrep-sst-receive-address=127.0.0.1:" + node.port)
        .toArray(new String[0]);
  }

  /** Waits until {@code node} is synced in a cluster of {@code size} nodes. */
  private static void awaitSynced(LocalMariadb node, int size) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    String state = null;
    String nodes = null;
    while (System.nanoTime() < deadline) {
      try {
        state = statusOf(node, "wsrep_local_state_comment");
        nodes = statusOf(node, "wsrep_cluster_size");
        if ("Synced".equals(state) && String.valueOf(size).equals(nodes)) {
          return;
        }
      } catch (SQLException e) {
        state = e.getMessage();
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "Galera node on port "
            + node.port
            + " not synced in a cluster of "
            + size
            + " (state "
            + state
            + ", size "
            + nodes
            + "): see "
            + node.dir
            + "/error.log");
  }

  private static String statusOf(LocalMariadb node, String variable) throws SQLException {
    return LocalDatabases.query(
        node.jdbcUrl(""),
        "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '"
            + variable.toUpperCase(java.util.Locale.ROOT)
            + "'");
  }

  private static String tail(LocalMariadb node) {
    try {
      List<String> lines = Files.readAllLines(node.dir.resolve("error.log"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException | RuntimeException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws IOException {
    try {
      second.close();
    } finally {
      first.close();
    }
  }
}
