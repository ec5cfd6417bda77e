package io.tablecast.examples;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A middle-tier service that answers product lookups from a live mirror instead of the database:
 * {@code GET /products/{id}} returns the product as JSON (404 when absent), straight from memory.
 * The mirror follows every committed change of the table.
 *
 * <p>Run: {@code java -cp examples/target/... io.tablecast.examples.ProductLookupService
 * 127.0.0.1:7070 public.tablecast_demo_products 8080} (for instance against {@code bin/tablecast
 * demo --keep-running}).
 */
public final class ProductLookupService implements AutoCloseable {

  /** A typed row: column names map to fields, decimals arrive exactly as BigDecimal. */
  public record Product(
      int id, String name, BigDecimal price, @JsonProperty("in_stock") boolean inStock) {}

  private final TablecastClient client;
  private final TableMirror<Product> products;
  private final HttpServer http;
  private final ObjectMapper json = new ObjectMapper();

  /**
   * Connects to the Tablecast server, waits for the snapshot, and starts answering HTTP.
   *
   * @param server Tablecast server {@code host:port}
   * @param table the products table, {@code schema.table}
   * @param httpPort port to answer on (0: any free port)
   */
  public ProductLookupService(String server, String table, int httpPort)
      throws IOException, InterruptedException {
    client = TablecastClient.builder().servers(server).clientName("product-lookup").build();
    products = client.mirror(table, Product.class);
    if (!products.awaitReady(Duration.ofSeconds(30))) {
      client.close();
      throw new IOException("no snapshot of " + table + " from " + server + " within 30 s");
    }
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), httpPort), 0);
    http.createContext("/products/", this::lookup);
    http.start();
  }

  /** The port HTTP is answered on. */
  public int port() {
    return http.getAddress().getPort();
  }

  private void lookup(HttpExchange exchange) throws IOException {
    try (exchange) {
      String idText = exchange.getRequestURI().getPath().substring("/products/".length());
      int id;
      try {
        id = Integer.parseInt(idText);
      } catch (NumberFormatException e) {
        respond(
            exchange,
            400,
            "{\"error\":\"product id must be an integer, was '"
                + idText.replace("\"", "")
                + "'\"}");
        return;
      }
      Product p = products.get(id); // a memory lookup, no database round trip
      if (p == null) {
        respond(exchange, 404, "{\"error\":\"no product " + id + "\"}");
      } else {
        respond(exchange, 200, json.writeValueAsString(p));
      }
    }
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream os = exchange.getResponseBody()) {
      os.write(bytes);
    }
  }

  @Override
  public void close() {
    http.stop(0);
    client.close();
  }

  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length != 3) {
      System.err.println("usage: ProductLookupService HOST:PORT SCHEMA.TABLE HTTP_PORT");
      System.exit(2);
    }
    ProductLookupService service =
        new ProductLookupService(args[0], args[1], Integer.parseInt(args[2]));
    System.out.println("answering on http://127.0.0.1:" + service.port() + "/products/{id}");
    Runtime.getRuntime().addShutdownHook(new Thread(service::close));
  }
}
