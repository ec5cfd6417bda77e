package io.tablecast.client;

import static io.tablecast.client.FakeServer.insert;
import static io.tablecast.client.FakeServer.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.Message;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is an optional dependency: a client whose application has no Micrometer connects,
 * mirrors, applies transactions, reconnects and resumes, and never so much as asks for a Micrometer
 * class. The client runs in a class loader that holds the test class path without Micrometer and
 * records every request for an {@code io.micrometer} class.
 */
class WithoutMicrometerTest {
  static final String T = "shop.items";

  @Test
  void theClientRunsWithoutMicrometerAndNeverAsksForIt() throws Exception {
    try (FakeServer server = new FakeServer();
        HidingLoader loader = new HidingLoader(classPathWithoutMicrometer())) {
      assertThat(loader.loadClass(TablecastClient.class.getName()).getClassLoader())
          .as("the client is loaded from the class path without Micrometer")
          .isSameAs(loader);
      @SuppressWarnings("unchecked")
      Function<String, Integer> scenario =
          (Function<String, Integer>)
              loader.loadClass(Scenario.class.getName()).getDeclaredConstructor().newInstance();
      CompletableFuture<Integer> rows =
          CompletableFuture.supplyAsync(() -> scenario.apply(server.address()));

      FakeServer.Conn conn;
      try {
        conn = server.handshake(5);
      } catch (AssertionError noClient) {
        rows.getNow(0); // throws what stopped the client, when something did
        throw noClient;
      }
      conn.expect(Message.Subscribe.class);
      conn.snapshot(T, List.of("id"), 5, row("id", 1, "v", "a"));
      conn.send(
          new Message.ChangeBatch(
              6, System.currentTimeMillis(), List.of(insert(T, row("id", 2, "v", "b"), 2))));
      conn.close();
      FakeServer.Conn again = server.handshake(6);
      again.expect(Message.Subscribe.class);
      again.send(
          new Message.Resumed(
              List.of(T),
              List.of(
                  new Message.TableSchemaInfo(
                      T, List.of(new ColumnInfo("id", "int", ColumnKind.INTEGER)), List.of("id"))),
              6),
          new Message.ChangeBatch(
              7, System.currentTimeMillis(), List.of(insert(T, row("id", 3, "v", "c"), 3))));

      assertThat(rows.get(20, TimeUnit.SECONDS)).isEqualTo(3);
      assertThat(loader.askedFor).as("Micrometer classes the client asked for").isEmpty();
      assertThat(loader.loaded(TablecastClientMetrics.class.getName())).isFalse();
    }
  }

  /**
   * Runs in the loader without Micrometer: mirrors the table until position 7, returns its rows.
   */
  public static final class Scenario implements Function<String, Integer> {
    @Override
    public Integer apply(String server) {
      try (TablecastClient client =
          TablecastClient.builder()
              .servers(server)
              .reconnectBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
              .build()) {
        TableMirror<Map<String, Object>> m = client.mirror(T);
        await().atMost(Duration.ofSeconds(15)).until(() -> m.position() == 7);
        return m.size();
      }
    }
  }

  private static URL[] classPathWithoutMicrometer() throws MalformedURLException {
    String path =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<URL> urls = new ArrayList<>();
    for (String entry : path.split(File.pathSeparator)) {
      if (!entry.isEmpty() && !entry.contains("micrometer")) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    assertThat(urls).as("test class path").hasSizeGreaterThan(5);
    return urls.toArray(URL[]::new);
  }

  /** Loads from its own URLs (the platform's classes first) and refuses every Micrometer class. */
  static final class HidingLoader extends URLClassLoader {
    final List<String> askedFor = new CopyOnWriteArrayList<>();

    HidingLoader(URL[] urls) {
      super("without-micrometer", urls, ClassLoader.getPlatformClassLoader());
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (name.startsWith("io.micrometer.")) {
        askedFor.add(name);
        throw new ClassNotFoundException(name + " (hidden: Micrometer is not on this class path)");
      }
      return super.loadClass(name, resolve);
    }

    boolean loaded(String name) {
      synchronized (getClassLoadingLock(name)) {
        return findLoadedClass(name) != null;
      }
    }
  }
}
