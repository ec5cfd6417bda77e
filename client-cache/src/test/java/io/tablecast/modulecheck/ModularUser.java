package io.tablecast.modulecheck;

import io.tablecast.client.TableMirror;
import io.tablecast.client.TablecastClient;
import java.time.Duration;
import java.util.Map;

/**
 * An application using the client as a module (started by {@code ModuleBoundaryTest} with the
 * client, the protocol and their dependencies on the module path, itself on the class path):
 * mirrors a table with typed and generic rows, and finds the engine unreachable. Prints {@code
 * MODULE OK} when all holds, else what failed, and exits non-zero.
 */
public final class ModularUser {

  /** The application's row type. */
  public record Item(long id, String name) {}

  private ModularUser() {}

  public static void main(String[] args) throws Exception {
    Module client = TablecastClient.class.getModule();
    check(
        client.isNamed() && client.getName().equals("io.tablecast.client"),
        "the client is the named module io.tablecast.client, was " + client);
    check(client.isExported("io.tablecast.client"), "the API package is exported");
    check(!client.isExported("io.tablecast.client.internal"), "the engine package is not exported");
    try (TablecastClient c = TablecastClient.builder().servers(args[0]).build()) {
      TableMirror<Item> typed = c.mirror("shop.items", Item.class);
      check(typed.awaitReady(Duration.ofSeconds(30)), "the typed mirror is ready");
      check(new Item(1, "one").equals(typed.get(1)), "a typed row, was " + typed.get(1));
      TableMirror<Map<String, Object>> generic = c.mirror("shop.items");
      check(generic.awaitReady(Duration.ofSeconds(30)), "the generic mirror is ready");
      check("two".equals(generic.get(2L).get("name")), "a generic row, was " + generic.get(2L));
    }
    Class<?> engine = Class.forName("io.tablecast.client.internal.ServerSession");
    try {
      engine.getConstructors()[0].newInstance(null, null);
      check(false, "the engine's public constructor is out of reach");
    } catch (IllegalAccessException expected) {
      // the module does not export it
    }
    System.out.println("MODULE OK");
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      System.out.println("FAILED: " + what);
      System.exit(1);
    }
  }
}
