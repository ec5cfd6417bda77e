package io.tablecast.client;

import io.tablecast.protocol.row.InstantText;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The one form of a secondary index's key, for the keys read from rows and the keys asked for
 * alike: integral numbers (and decimals without a fraction that fit) become {@code Long}, other
 * decimals lose trailing zeros, floats become {@code Double}, a text that is an instant as {@link
 * Instant#toString()} prints it (a TIMESTAMP_TZ value) becomes that {@code Instant}, so that it
 * orders by time, a composite key is an unmodifiable {@code List} of parts (which may be null).
 * Sorted indexes order keys with {@link #ORDER}.
 */
final class IndexKeys {
  private IndexKeys() {}

  /** {@code value} in index form. */
  static Object normalize(Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof String text) {
      // a TIMESTAMP_TZ value of a generic row: as text, 30Z sorted after 30.500Z
      Instant instant = InstantText.parsePrinted(text);
      return instant != null ? instant : text;
    }
    if (value instanceof Long) {
      return value;
    }
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigInteger b) {
      return b.bitLength() < 64 ? (Object) b.longValue() : b;
    }
    if (value instanceof BigDecimal d) {
      BigDecimal s = d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
      if (s.scale() <= 0 && s.precision() - s.scale() < 19) {
        return s.longValueExact();
      }
      return s;
    }
    if (value instanceof Float f) {
      return f.doubleValue();
    }
    if (value instanceof List<?> parts) {
      List<Object> out = new ArrayList<>(parts.size());
      for (Object p : parts) {
        out.add(normalize(p));
      }
      return Collections.unmodifiableList(out);
    }
    return value;
  }

  /** Whether {@code key} is null or a composite key with a null part (never a unique clash). */
  static boolean hasNull(Object key) {
    if (key == null) {
      return true;
    }
    if (key instanceof List<?> parts) {
      for (Object p : parts) {
        if (p == null) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The order of a sorted index: numbers by value, text by {@link String#compareTo}, composite keys
   * part by part (a null part first), other comparable values of one class naturally; values of
   * different kinds by the name of their class, so that any two keys compare.
   */
  static final Comparator<Object> ORDER = IndexKeys::compare;

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a == b) {
      return 0;
    }
    if (a == null || b == null) {
      return a == null ? -1 : 1;
    }
    if (a instanceof Long x && b instanceof Long y) {
      return Long.compare(x, y);
    }
    if (a instanceof String x && b instanceof String y) {
      return x.compareTo(y);
    }
    if (a instanceof Number x && b instanceof Number y) {
      return decimal(x).compareTo(decimal(y));
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
        int c = compare(x.get(i), y.get(i));
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(x.size(), y.size());
    }
    if (a.getClass() == b.getClass() && a instanceof Comparable c) {
      return c.compareTo(b);
    }
    return a.getClass().getName().compareTo(b.getClass().getName());
  }

  private static BigDecimal decimal(Number n) {
    if (n instanceof BigDecimal d) {
      return d;
    }
    if (n instanceof BigInteger b) {
      return new BigDecimal(b);
    }
    if (n instanceof Double || n instanceof Float) {
      double d = n.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        return d > 0 ? BigDecimal.valueOf(Double.MAX_VALUE) : BigDecimal.valueOf(-Double.MAX_VALUE);
      }
      return BigDecimal.valueOf(d);
    }
    return BigDecimal.valueOf(n.longValue());
  }
}
