package io.tablecast.client.internal;

import io.netty.handler.codec.TooLongFrameException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Explains a frame refused for its length: the server sent more in one frame (a row travels whole)
 * than the client's {@code maxFrameBytes} allows, and will send it again after every reconnect
 * until the limit is raised or the row shrinks.
 */
final class FrameLimit {
  private FrameLimit() {}

  /** Netty's words: "Adjusted frame length exceeds 4096: 10048 - discarded". */
  private static final Pattern LENGTH = Pattern.compile("exceeds \\d+: (\\d+)");

  /**
   * Before any welcome, a first frame longer than the client takes is not a Tablecast server's
   * answer (a welcome or an error is small): another service's port, whose first bytes {@code seen}
   * (may be null) say which.
   */
  static String notTablecast(InetSocketAddress server, String seen) {
    return (server == null ? "the server" : ClientConfig.hostPort(server))
        + " does not answer in the Tablecast protocol"
        + (seen == null ? "" : " (its first bytes: \"" + seen + "\")")
        + ": is it the port of a Tablecast server?";
  }

  static String explain(SocketAddress server, int maxFrameBytes, TooLongFrameException e) {
    Matcher m = LENGTH.matcher(String.valueOf(e.getMessage()));
    String size =
        m.find()
            ? String.format(Locale.ROOT, "a frame of %,d bytes", Long.parseLong(m.group(1)))
            : "a frame";
    return String.format(
        Locale.ROOT,
        "%s sent %s, larger than this client's maxFrameBytes (%,d bytes): a row travels whole in"
            + " one frame, and it comes again after every reconnect; raise"
            + " TablecastClient.Builder.maxFrameBytes (Spring Boot: tablecast.client.max-frame-size)",
        server,
        size,
        maxFrameBytes);
  }
}
