package io.tablecast.spring.boot;

import io.tablecast.client.TablecastClient;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the {@link TablecastClient} beans when the context closes, in a phase after the web
 * server's: requests still being answered from mirrors during a graceful shutdown ({@code
 * server.shutdown=graceful}) find them open, and the client closes once no request can come. On
 * start it attaches the health and metrics listeners to a client the application built itself.
 */
public class TablecastClientLifecycle implements SmartLifecycle {

  /**
   * The phase: below Spring Boot's web server lifecycles ({@code SmartLifecycle.DEFAULT_PHASE -
   * 1024} for the graceful shutdown, {@code - 2048} for the server), which therefore stop first.
   * Lifecycle beans of a lower phase (rare) stop after the client is closed.
   */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final ObjectProvider<TablecastClient> clients;
  private final ClientActivity activity;
  private volatile boolean running;

  TablecastClientLifecycle(ObjectProvider<TablecastClient> clients, ClientActivity activity) {
    this.clients = clients;
    this.activity = activity;
  }

  @Override
  public void start() {
    clients.ifUnique(activity::attachTo);
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    clients.orderedStream().forEach(TablecastClient::close);
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
