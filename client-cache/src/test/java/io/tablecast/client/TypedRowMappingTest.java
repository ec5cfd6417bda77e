package io.tablecast.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;

/**
 * The size a typed row object is priced at when a snapshot is sized ({@link
 * TypedRowMapping#objectBytes(Class)}) is the instance size JOL reads from this JVM's layout, for
 * row types of several shapes; a boxed field adds its box.
 */
class TypedRowMappingTest {
  static {
    // JOL reads field offsets without attaching an agent to this JVM
    System.setProperty("jol.magicFieldOffset", "true");
  }

  /** The benchmark's row ({@code bench/}'s {@code BenchTable.Row}). */
  record BenchRow(long id, long version, String name, BigDecimal price, int qty) {}

  record OnlyLongs(long a, long b, double c) {}

  record Small(byte a, boolean b, short c, char d) {}

  record Empty() {}

  /** A bean with an inherited field. */
  static class Base {
    long id;
  }

  static class Derived extends Base {
    int qty;
    String name;
    static String ignored;
  }

  @Test
  void aRowObjectIsPricedAtItsInstanceSize() {
    for (Class<?> type :
        new Class<?>[] {BenchRow.class, OnlyLongs.class, Small.class, Empty.class, Derived.class}) {
      assertThat(TypedRowMapping.objectBytes(type))
          .as(type.getSimpleName())
          .isEqualTo(ClassLayout.parseClass(type).instanceSize());
    }
    assertThat(TypedRowMapping.objectBytes(BenchRow.class)).isEqualTo(40);
  }

  record Boxed(Long id, Integer qty) {}

  @Test
  void aBoxedFieldAddsItsBox() {
    assertThat(TypedRowMapping.objectBytes(Boxed.class))
        .isEqualTo(ClassLayout.parseClass(Boxed.class).instanceSize() + 2 * 16);
  }
}
