package io.tablecast.bench;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import io.tablecast.server.ServerConfig;
import io.tablecast.server.TablecastServer;
import io.tablecast.server.capture.CachedTable;
import io.tablecast.server.capture.SourceConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Database schema + Tablecast server (in this JVM, loopback, ephemeral port) + clients, like the
 * end-to-end tests' {@code Pipeline}. Closing it closes the clients and the server and drops the
 * schema.
 */
public final class Rig implements AutoCloseable {
  public final Db.Schema schema;
  private TablecastServer server;
  private PollSchedule poll = PollSchedule.DEFAULT;
  private final List<TablecastClient> clients = new ArrayList<>();
  private final List<AutoCloseable> servedBy = new ArrayList<>();

  private Rig(Db.Schema schema) {
    this.schema = schema;
  }

  /** A fresh schema with {@code bench_rows} holding {@code rows} rows (no server yet). */
  public static Rig create(
      Db db, String prefix, long rows, java.util.function.LongConsumer progress) {
    Db.Schema s = db.isolated(prefix);
    try {
      BenchTable.create(s, rows, progress);
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return new Rig(s);
  }

  public String table() {
    return schema.table(BenchTable.NAME);
  }

  /**
   * The tail's poll schedule of the server {@link #startServer} starts (default: the product's).
   */
  public Rig poll(PollSchedule schedule) {
    this.poll = schedule;
    return this;
  }

  /** Starts the server (installs triggers, loads the table image). */
  public TablecastServer startServer(Consumer<ServerConfig.Builder> settings)
      throws InterruptedException {
    ServerConfig.Builder b =
        ServerConfig.builder()
            .set("server_name", "bench")
            .listen("127.0.0.1", 0)
            .source(sourceConfig());
    settings.accept(b);
    server = TablecastServer.start(b.build());
    return server;
  }

  /** The source of the server {@link #startServer} starts: the schema, {@code bench_rows}. */
  public SourceConfig sourceConfig() {
    return new SourceConfig(
        schema.jdbcUrl(),
        null,
        null,
        true,
        null,
        poll.max(),
        null, // product defaults, reconciliation (every 30 s) included
        null,
        List.of(CachedTable.of(table())),
        poll.min(),
        poll.idleAfter(),
        null,
        null);
  }

  public TablecastServer startServer() throws InterruptedException {
    return startServer(b -> {});
  }

  /**
   * Closes {@code parts} (servers and capture of another deployment on this schema) when the rig
   * closes: after its clients, before its schema is dropped.
   */
  public <T extends AutoCloseable> T closeWith(T parts) {
    servedBy.add(parts);
    return parts;
  }

  public TablecastServer server() {
    return server;
  }

  public String address() {
    return "127.0.0.1:" + server.port();
  }

  public TablecastClient client(String name) {
    return client(name, address());
  }

  /** A client of the server at {@code address} ({@code host:port}), closed with the rig. */
  public TablecastClient client(String name, String address) {
    TablecastClient c = TablecastClient.builder().servers(address).clientName(name).build();
    clients.add(c);
    return c;
  }

  public void closeClient(TablecastClient c) {
    clients.remove(c);
    c.close();
  }

  /** A generic mirror of the bench table, waited ready. */
  public TableMirror<Map<String, Object>> readyMirror(TablecastClient client, Duration timeout)
      throws InterruptedException {
    TableMirror<Map<String, Object>> m = client.mirror(table());
    if (!m.awaitReady(timeout)) {
      throw new IllegalStateException("mirror of " + table() + " not ready after " + timeout);
    }
    return m;
  }

  @Override
  public void close() {
    for (TablecastClient c : clients) {
      c.close();
    }
    clients.clear();
    if (server != null) {
      server.close();
      server = null;
    }
    for (AutoCloseable c : servedBy) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException("cannot close " + c + ": " + e, e);
      }
    }
    servedBy.clear();
    schema.close();
  }
}
