package io.tablecast.server.config;

/**
 * Where the server listens ({@code listen:}); one port serves every protocol.
 *
 * @param host address to listen on
 * @param port TCP port; 0 picks a free port
 */
public record ListenSettings(String host, int port) {
  /** Every interface, port 7070. */
  public static final ListenSettings DEFAULTS = new ListenSettings("0.0.0.0", 7070);
}
