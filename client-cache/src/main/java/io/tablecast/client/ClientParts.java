package io.tablecast.client;

import io.tablecast.client.internal.ClientConfig;
import io.tablecast.client.internal.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running parts of one {@link TablecastClient}: its listener thread and listeners, its session
 * with the servers, its mirrors and its warm restart. Made from the builder's settings and wired to
 * each other here, then started and closed in the order that lets each hand over to the next, so
 * that the client itself holds only its public methods.
 */
final class ClientParts {
  // logged under the client's class, where its lifecycle has always been logged
  private static final Logger log = LoggerFactory.getLogger(TablecastClient.class);

  private final String clientName;
  private final ListenerDispatcher dispatcher;
  final ClientListeners listeners;
  final ServerSession session;
  final MirrorRegistry mirrors;
  private final WarmRestart warmRestart;

  /**
   * Checks the settings and wires the parts; connects nothing yet ({@link #start()}).
   *
   * @throws IllegalArgumentException naming the first bad value
   */
  ClientParts(ClientSettings settings) {
    ClientConfig config = settings.config();
    this.warmRestart = settings.warmRestart();
    this.clientName = config.clientName();
    this.dispatcher = new ListenerDispatcher(config.clientName());
    this.listeners =
        new ClientListeners(dispatcher, settings.connectionListeners, settings.errorListeners);
    this.session = new ServerSession(config, listeners);
    this.mirrors =
        new MirrorRegistry(session, settings.objectMapper(), dispatcher, listeners, warmRestart);
    if (warmRestart != null) {
      warmRestart.start(session, listeners, clientName);
    }
  }

  /** Starts connecting in the background. */
  void start() {
    session.start();
  }

  /** Closes the connection and stops all threads; mirrors become not ready. Idempotent. */
  void close() {
    if (warmRestart != null) {
      warmRestart.close(); // while the session can still hand over the rows
    }
    mirrors.close();
    session.close();
    if (dispatcher.close()) {
      log.info("client {} closed", clientName);
    }
  }
}
