package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tablecast.examples.ProductLookupService;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The README's demo command and the examples/ lookup service do what they say. */
class DemoAndExampleTest {

  @Test
  void demoWithNoDatabaseConfiguredShowsLiveChangesFromAnEmbeddedPostgres() {
    Cli demo = Cli.run("demo", "--port", "0", "--verbose");
    assertThat(demo.exitCode()).as(demo.err() + demo.out()).isZero();
    assertThat(demo.out())
        .contains("starting an embedded PostgreSQL")
        .contains("mirror< INSERT key=4")
        .contains("mirror< UPDATE key=2 price: 4.20 -> 3.99")
        .contains("mirror< DELETE key=4")
        .contains("{\"id\":2,\"name\":\"Green tea\",\"price\":\"3.99\",\"in_stock\":true}");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void demoRunsAgainstAGivenDatabase(Kind kind) {
    String url = kind.isolated("demo").jdbcUrl();
    Cli demo = Cli.run("demo", "--port", "0", "--verbose", "--jdbc-url", url);
    assertThat(demo.exitCode()).as(demo.err() + demo.out()).isZero();
    assertThat(demo.out())
        .doesNotContain("embedded")
        .contains("mirror< UPDATE key=2 price: 4.20 -> 3.99");
  }

  @Test
  void demoKeptRunningFromACheckoutServesTheLivePage() throws Exception {
    java.nio.file.Path root = ReadmeTest.repoRoot();
    String javaBin =
        java.nio.file.Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    Process demo =
        new ProcessBuilder(
                javaBin,
                "-jar",
                root.resolve("cli/target/tablecast.jar").toString(),
                "demo",
                "--port",
                "0",
                "--keep-running",
                "--jdbc-url",
                Kind.POSTGRESQL.isolated("demo_page").jdbcUrl())
            .directory(root.toFile())
            .redirectErrorStream(true)
            .start();
    try (java.io.BufferedReader out =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(
                demo.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
      java.util.concurrent.CompletableFuture<String> pageLine =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> {
                try {
                  for (String line; (line = out.readLine()) != null; ) {
                    if (line.contains("http://127.0.0.1:")) {
                      return line;
                    }
                  }
                  return null;
                } catch (java.io.IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      String line = pageLine.get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(line).as("the demo prints the live page's address").isNotNull();
      URI page = URI.create(line.substring(line.indexOf("http://")).split(" ")[0]);
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> html =
          http.send(HttpRequest.newBuilder(page).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(html.statusCode()).isEqualTo(200);
      assertThat(html.body()).contains("app.js");
      HttpResponse<String> client =
          http.send(
              HttpRequest.newBuilder(page.resolve("/client/tablecast.js")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(client.statusCode()).isEqualTo(200);
      assertThat(client.body()).contains("TablecastClient");
    } finally {
      demo.destroyForcibly().waitFor();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void lookupServiceAnswersFromItsMirrorAndFollowsChanges(Kind kind) throws Exception {
    List<String> ddl =
        List.of(
            "CREATE TABLE products (id int PRIMARY KEY, name varchar(80) NOT NULL, price decimal(10,2) NOT NULL, "
                + "in_stock boolean NOT NULL)",
            "INSERT INTO products VALUES (1, 'Espresso', 2.50, true)");
    try (Pipeline p = Pipeline.start(kind, "example", ddl, "products");
        ProductLookupService service =
            new ProductLookupService(p.address(), p.db.table("products"), 0)) {
      HttpClient http = HttpClient.newHttpClient();
      URI one = URI.create("http://127.0.0.1:" + service.port() + "/products/1");
      HttpResponse<String> r =
          http.send(HttpRequest.newBuilder(one).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body())
          .isEqualTo("{\"id\":1,\"name\":\"Espresso\",\"price\":2.50,\"in_stock\":true}");

      p.sql("UPDATE products SET price = 2.75 WHERE id = 1");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  http.send(
                          HttpRequest.newBuilder(one).build(), HttpResponse.BodyHandlers.ofString())
                      .body()
                      .contains("2.75"));

      URI missing = URI.create("http://127.0.0.1:" + service.port() + "/products/99");
      assertThat(
              http.send(
                      HttpRequest.newBuilder(missing).build(), HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(404);
    }
  }
}
