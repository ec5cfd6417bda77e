package io.tablecast.it;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One writer's database session in the shop workload, with what application code uses: prepared
 * statements with parameters, random picks of existing rows, unique references. Counts the rows its
 * statements changed in the current transaction, so the workload knows whether an action wrote
 * anything.
 */
final class ShopSession {
  private static final String[] WORDS = {
    "organic",
    "cotton",
    "wireless",
    "charger",
    "ceramic",
    "mug",
    "waterproof",
    "jacket",
    "bamboo",
    "cutting",
    "board",
    "stainless",
    "steel",
    "bottle",
    "wool",
    "socks",
    "garden",
    "hose",
    "leather",
    "wallet",
    "recycled",
    "paper",
    "notebook",
    "linen",
    "shirt",
    "solar",
    "lamp",
    "oak",
    "table",
    "vintage",
    "poster",
    "trail",
    "running",
    "shoes",
    "ergonomic",
    "chair"
  };

  final Connection connection;
  final Random rnd;

  /** The writer's number, part of every reference it makes so that writers never collide. */
  final int writer;

  private int sequence;
  private long rowsWritten;

  ShopSession(Connection connection, Random rnd, int writer) {
    this.connection = connection;
    this.rnd = rnd;
    this.writer = writer;
  }

  /** Runs an INSERT, UPDATE, DELETE or REPLACE with parameters; returns the update count. */
  int update(String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(sql, params)) {
      int n = ps.executeUpdate();
      rowsWritten += Math.max(n, 0);
      return n;
    }
  }

  /** Runs a statement whose update count says nothing (PostgreSQL rules make it 0). */
  void execute(String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(sql, params)) {
      ps.execute();
      rowsWritten++;
    }
  }

  /** Runs an INSERT ... RETURNING of one number (a generated key); -1 when it inserted nothing. */
  long returning(String sql, Object... params) throws SQLException {
    long v = pickLong(sql, params);
    rowsWritten += v < 0 ? 0 : 1;
    return v;
  }

  /** The first column of the first row, or null. */
  Object pick(String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(sql, params);
        ResultSet rs = ps.executeQuery()) {
      return rs.next() ? rs.getObject(1) : null;
    }
  }

  /** The first column of every row. */
  List<Object> column(String sql, Object... params) throws SQLException {
    List<Object> out = new ArrayList<>();
    try (PreparedStatement ps = prepare(sql, params);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getObject(1));
      }
    }
    return out;
  }

  long pickLong(String sql, Object... params) throws SQLException {
    Object v = pick(sql, params);
    return v == null ? -1 : ((Number) v).longValue();
  }

  /** A reference no other writer makes: {@code prefix-writer-sequence}. */
  String nextRef(String prefix) {
    return prefix + "-" + writer + "-" + (++sequence);
  }

  int nextNumber() {
    return ++sequence;
  }

  int between(int low, int high) {
    return low + rnd.nextInt(high - low + 1);
  }

  boolean chance(int percent) {
    return rnd.nextInt(100) < percent;
  }

  @SafeVarargs
  final <T> T oneOf(T... values) {
    return values[rnd.nextInt(values.length)];
  }

  <T> T oneOf(List<T> values) {
    return values.get(rnd.nextInt(values.size()));
  }

  String words(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : " ").append(WORDS[rnd.nextInt(WORDS.length)]);
    }
    return sb.toString();
  }

  byte[] bytes(int max) {
    byte[] b = new byte[1 + rnd.nextInt(max)];
    rnd.nextBytes(b);
    return b;
  }

  /** A price between 1.00 and {@code max}.99, as the text of a decimal with two digits. */
  String price(int max) {
    return between(1, max) + "." + String.format("%02d", rnd.nextInt(100));
  }

  void beginTransaction() {
    rowsWritten = 0;
  }

  long rowsWritten() {
    return rowsWritten;
  }

  private PreparedStatement prepare(String sql, Object... params) throws SQLException {
    PreparedStatement ps = connection.prepareStatement(sql);
    for (int i = 0; i < params.length; i++) {
      ps.setObject(i + 1, params[i]);
    }
    return ps;
  }
}
