package io.tablecast.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tablecast.server.testing.TestDatabases.Kind;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Subscription shapes from the JavaScript client, in Node, against a real server, both databases:
 * after JDBC writes that move rows in and out of {@code region = ? AND price < ?}, the shaped
 * mirror ({@code tests/src/test/node/shaped-mirror.mjs}) equals the {@code SELECT} with the same
 * filter and holds only the key and the chosen column.
 */
class JsShapedMirrorTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aShapedJavaScriptMirrorEqualsTheSelect(Kind kind) throws Exception {
    try (Pipeline p = Pipeline.start(kind, "jsshape", ShapedMirrorEndToEndTest.ddl(), "products")) {
      String table = p.db.table("products");
      String shape =
          "{\"filter\":\"region = ? AND price < ?\",\"params\":[\"eu\",100],\"columns\":[\"price\"]}";
      try (NodeScript node =
              NodeScript.start("shaped-mirror.mjs", "ws://" + p.address() + "/ws", table, shape);
          Connection c = p.db.connect();
          PreparedStatement region =
              c.prepareStatement("UPDATE " + table + " SET region = ? WHERE id = ?");
          PreparedStatement price =
              c.prepareStatement("UPDATE " + table + " SET price = ? WHERE id = ?")) {
        assertThat(node.next()).as("the Node client's mirror").isEqualTo("READY");
        Random r = new Random(8);
        String[] regions = {"eu", "us", null};
        for (int i = 0; i < 300; i++) {
          int id = 1 + r.nextInt(300);
          if (r.nextBoolean()) {
            region.setString(1, regions[r.nextInt(regions.length)]);
            region.setInt(2, id);
            region.executeUpdate();
          } else {
            price.setBigDecimal(1, new BigDecimal(r.nextInt(200) + ".75"));
            price.setInt(2, id);
            price.executeUpdate();
          }
        }
        node.send("SYNC");
        String answer = node.next();
        assertThat(answer).as("the mirror after sync").isNotNull().doesNotStartWith("FAILED");
        Map<Long, String> mirrored = new TreeMap<>();
        for (JsonNode row : JSON.readTree(answer)) {
          assertThat(row.size()).as("only the key and the chosen column: %s", row).isEqualTo(2);
          mirrored.put(
              row.get("id").asLong(), new BigDecimal(row.get("price").asText()).toPlainString());
        }
        Map<Long, String> expected = new TreeMap<>();
        try (PreparedStatement q =
            c.prepareStatement(
                "SELECT id, price FROM " + table + " WHERE region = ? AND price < ?")) {
          q.setString(1, "eu");
          q.setBigDecimal(2, new BigDecimal(100));
          try (ResultSet rs = q.executeQuery()) {
            while (rs.next()) {
              expected.put(rs.getLong(1), rs.getBigDecimal(2).toPlainString());
            }
          }
        }
        assertThat(mirrored).isEqualTo(expected).isNotEmpty();
      }
    }
  }
}
