package io.tablecast.cli;

import io.tablecast.client.ConnectionListener;
import java.io.PrintWriter;

/**
 * What a client-side command ({@code watch}, {@code dump}) says on standard error about its
 * connection and its table, one line per change of state rather than the client library's log
 * lines: an attempt that failed (once for a run of attempts failing the same way, with the reason),
 * a connection lost, the connection back after either, a table snapshotted again, a mirror that may
 * differ from its table and one that follows it again. Keeps the last failure, which the command
 * names when it gives up.
 */
final class ConnectionReport implements ConnectionListener {
  private final String command;
  private final PrintWriter err;

  // written on the client's listener thread, read by the command's thread when it gives up
  private volatile String lastFailure;
  private String printedFailure;
  private boolean troubled;

  ConnectionReport(String command, PrintWriter err) {
    this.command = command;
    this.err = err;
  }

  /** Why the last attempt to connect failed ("cannot connect to host:port: reason"), or null. */
  String lastFailure() {
    return lastFailure;
  }

  @Override
  public void connectFailed(String server, String reason) {
    String failure = "cannot connect to " + server + ": " + reason;
    lastFailure = failure;
    troubled = true;
    if (!failure.equals(printedFailure)) { // not again at every backoff
      printedFailure = failure;
      say(failure + "; trying again");
    }
  }

  @Override
  public void connected(String server) {
    lastFailure = null;
    printedFailure = null;
    if (troubled) {
      troubled = false;
      say("connected to " + server);
    }
  }

  @Override
  public void disconnected(String server, String reason) {
    if (!"client closed".equals(reason)) {
      troubled = true;
      say("lost the connection to " + server + " (" + reason + "); reconnecting");
    }
  }

  @Override
  public void resnapshotted(String table, int inserted, int updated, int deleted) {
    say(
        table
            + " snapshotted again (the server could not resume it), rows: "
            + inserted
            + " inserted, "
            + updated
            + " updated, "
            + deleted
            + " deleted");
  }

  /**
   * The mirror of {@code table} may differ from its table ({@code reason}, as the server or the
   * client said), or follows it again ({@code reason} null).
   */
  void staleChanged(String table, String reason) {
    say(
        reason == null
            ? "the mirror of " + table + " follows its table again"
            : "the mirror of " + table + " may differ from its table: " + reason);
  }

  private void say(String line) {
    err.println("tablecast " + command + ": " + line);
    err.flush();
  }
}
