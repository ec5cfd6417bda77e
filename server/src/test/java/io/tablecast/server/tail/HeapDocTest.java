package io.tablecast.server.tail;

import static io.tablecast.server.hub.FakeChangeSource.bytes;
import static io.tablecast.server.hub.FakeChangeSource.table;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.tablecast.server.capture.TableSchema;
import io.tablecast.server.testing.TestHeap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps docs/GUARANTEES.md, "A table bigger than the heap", true: its example refusal is the one
 * the server gives for the figures it names, word for word.
 */
class HeapDocTest {

  private static List<byte[]> firstRows(int n) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(bytes(i, "n".repeat(40)));
    }
    return out;
  }

  @Test
  void theExampleRefusalIsTheServersOwn() throws IOException {
    Path root = Path.of(System.getenv().getOrDefault("TABLECAST_REPO_ROOT", ".."));
    String doc = Files.readString(root.resolve("docs/GUARANTEES.md"));
    TableSchema items = table("items");
    TableSchema orders = table("orders");
    TableSchema countries = table("countries");
    TestHeap heap = new TestHeap(64L << 20, 10L << 20);
    ImageSizeCheck check =
        new ImageSizeCheck(heap, 20, List.of(items, orders, countries), (t, row) -> {});
    HeapTooSmallException refusal =
        catchThrowableOfType(
            () ->
                check.sizes(
                    List.of(
                        new TableSize(items, 1_000_000, firstRows(1000)),
                        new TableSize(orders, 400_000, firstRows(1000)),
                        new TableSize(countries, -1, firstRows(250)))),
            HeapTooSmallException.class);

    String example = refusal.getMessage().indent(2);
    assertThat(doc).contains("  ```text\n" + example + "  ```\n");
  }
}
