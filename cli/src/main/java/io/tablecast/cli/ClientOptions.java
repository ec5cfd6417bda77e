package io.tablecast.cli;

import io.tablecast.client.ServerError;
import io.tablecast.client.TablecastClient;
import io.tablecast.client.TablecastException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Option;

/** Connection options shared by the client-side commands. */
final class ClientOptions {

  @Option(
      names = "--server",
      required = true,
      split = ",",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:TABLECAST_SERVER}",
      description =
          "Tablecast server(s) to connect to; several may be given, comma-separated (or set"
              + " TABLECAST_SERVER)")
  List<String> servers;

  @Option(names = "--user", description = "Principal name, when the server requires authentication")
  String user;

  @Option(
      names = "--password",
      description = "Password for --user (or set TABLECAST_PASSWORD)",
      defaultValue = "${env:TABLECAST_PASSWORD}")
  String password;

  @Option(
      names = "--token",
      description = "Signed token instead of user and password (or set TABLECAST_TOKEN)",
      defaultValue = "${env:TABLECAST_TOKEN}")
  String token;

  @Option(
      names = "--tls",
      description = "Connect over TLS, trusting the JVM's trust store (see docs/TLS.md)")
  boolean tls;

  @Option(
      names = "--tls-trust",
      paramLabel = "PEM",
      description =
          "Connect over TLS, trusting only the certificate(s) in this PEM file (a CA or the server's own)")
  Path tlsTrust;

  @Option(
      names = "--tls-cert",
      paramLabel = "PEM",
      description = "Client certificate chain to present over TLS (with --tls-key)")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "PEM",
      description = "Unencrypted PKCS#8 key of --tls-cert")
  Path tlsKey;

  @Option(
      names = "--timeout",
      defaultValue = "30s",
      paramLabel = "DURATION",
      description = "How long to wait for the snapshot (default: ${DEFAULT-VALUE})")
  Duration timeout;

  /** What the client's connection went through; set by {@link #connect}. */
  private ConnectionReport report;

  /**
   * Waits for the mirror's snapshot; on timeout prints which table and servers did not answer. A
   * refused subscription (e.g. unknown table) surfaces as the exception awaitReady throws.
   */
  boolean awaitReady(io.tablecast.client.TableMirror<?> mirror, String command, PrintWriter err)
      throws InterruptedException {
    if (ready(mirror)) {
      return true;
    }
    reportNotReady(mirror, command, err);
    return false;
  }

  /**
   * Whether {@code mirror} got its snapshot within the timeout; a server's refusal of the
   * credentials is thrown with the options that give them.
   */
  boolean ready(io.tablecast.client.TableMirror<?> mirror) throws InterruptedException {
    try {
      return mirror.awaitReady(timeout);
    } catch (TablecastException e) {
      if (e.code() != ServerError.AUTHENTICATION_FAILED) {
        throw e;
      }
      boolean given = user != null || (token != null && !token.isEmpty());
      throw new TablecastException(
          e.code(),
          e.getMessage()
              + (given
                  ? "; check --user and --password (or TABLECAST_PASSWORD), or --token"
                  : "; the server requires authentication: give --user with --password (or"
                      + " TABLECAST_PASSWORD), or --token (or TABLECAST_TOKEN)"));
    }
  }

  /** Says which table and servers gave no snapshot within the timeout, and the last failure. */
  void reportNotReady(io.tablecast.client.TableMirror<?> mirror, String command, PrintWriter err) {
    String failure = report == null ? null : report.lastFailure();
    err.println(
        "tablecast "
            + command
            + ": no snapshot of "
            + mirror.table()
            + " within "
            + DurationConverter.format(timeout)
            + " from "
            + String.join(",", servers)
            + (failure == null ? "" : "; the last attempt: " + failure));
    err.flush();
  }

  /**
   * The mirror of {@code table} on {@code client}, of the rows and columns {@code shape} chooses
   * (null: all), whose staleness is told on standard error from the start ({@link
   * ConnectionReport#staleChanged}).
   */
  io.tablecast.client.TableMirror<java.util.Map<String, Object>> mirror(
      TablecastClient client, String table, io.tablecast.client.MirrorShape shape) {
    io.tablecast.client.TableMirror<java.util.Map<String, Object>> mirror =
        shape == null ? client.mirror(table) : client.mirror(table, shape);
    mirror.addStaleListener(reason -> report.staleChanged(table, reason));
    return mirror;
  }

  /**
   * A client for {@code command} ({@code tablecast-COMMAND}), whose connection's troubles are told
   * on {@code err} ({@link ConnectionReport}) instead of the client library's log lines.
   */
  TablecastClient connect(String command, PrintWriter err) {
    report = new ConnectionReport(command, err);
    CommandLogging.quietClientLibrary();
    TablecastClient.Builder b =
        TablecastClient.builder()
            .servers(servers.toArray(new String[0]))
            .clientName("tablecast-" + command)
            .connectionListener(report);
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new IllegalArgumentException(
          "--tls-cert and --tls-key go together; got only "
              + (tlsCert == null ? "--tls-key" : "--tls-cert"));
    }
    if (tls || tlsTrust != null || tlsCert != null) {
      b.tls(tlsTrust, tlsCert, tlsKey); // the builder checks the files and names what is wrong
    }
    if (user != null) {
      b.credentials(user, password);
    }
    if (token != null && !token.isEmpty()) {
      b.token(token);
    }
    return b.build();
  }
}
