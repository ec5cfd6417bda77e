package io.tablecast.server.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** How {@code cached_tables} entries name tables. */
class TableIdTest {

  /** Spaces, hyphens, capitals and reserved words are part of a name, as the catalog has it. */
  @Test
  void aNameIsTakenAsTheCatalogHasIt() {
    assertThat(TableId.parse("Tc-Probe x.Order Items", "public"))
        .isEqualTo(new TableId("Tc-Probe x", "Order Items"));
    assertThat(TableId.parse("select", "app")).isEqualTo(new TableId("app", "select"));
  }

  /**
   * A schema or table with a dot in its own name cannot be named: the refusal says so and what to
   * do, where it said only that the name had the wrong form.
   */
  @Test
  void aNameWithADotOfItsOwnIsRefusedSayingWhy() {
    assertThatThrownBy(() -> TableId.parse("sales.2024.orders", "public"))
        .hasMessageStartingWith(
            "table name must be 'table' or 'schema.table', was 'sales.2024.orders': a schema or"
                + " table whose own name has a dot in it cannot be cached")
        .hasMessageContaining("rename it");
    assertThatThrownBy(() -> TableId.parse(".orders", "public"))
        .hasMessage("table name must be 'table' or 'schema.table', was '.orders'");
  }
}
