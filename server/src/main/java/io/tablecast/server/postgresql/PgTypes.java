package io.tablecast.server.postgresql;

import io.tablecast.protocol.ColumnKind;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL column types to {@link ColumnKind}s and capture functions, from {@code pg_type} rather
 * than a list of names: a domain takes its base type's form, arrays and composite types are JSON
 * (as {@code to_jsonb} renders them), a base type with a cast to {@code json}/{@code jsonb}
 * (hstore, PostGIS geometry) is JSON through that cast, enums, ranges, multiranges and every other
 * base type are their text. See docs/TYPES.md.
 *
 * <p>Some values print differently under a writer's own session settings; the triggers run in the
 * writer's session. The server undoes that for top-level {@code timestamptz} (an instant) and
 * {@code bytea} (hex or escape); for the rest, a table is captured by the pinned capture function,
 * which runs with {@link PgTriggers#PINNED_SETTINGS} (the server reads tables with them too).
 */
final class PgTypes {
  /**
   * Built-in types whose {@code to_jsonb} form is not their text, by name in {@code pg_catalog}.
   */
  private static final Map<String, ColumnKind> BUILT_IN =
      Map.ofEntries(
          Map.entry("int2", ColumnKind.INTEGER),
          Map.entry("int4", ColumnKind.INTEGER),
          Map.entry("int8", ColumnKind.INTEGER),
          Map.entry("oid", ColumnKind.INTEGER),
          Map.entry("numeric", ColumnKind.DECIMAL),
          Map.entry("money", ColumnKind.DECIMAL),
          Map.entry("float4", ColumnKind.FLOAT),
          Map.entry("float8", ColumnKind.FLOAT),
          Map.entry("bool", ColumnKind.BOOLEAN),
          Map.entry("bytea", ColumnKind.BINARY),
          Map.entry("date", ColumnKind.DATE),
          Map.entry("time", ColumnKind.TIME),
          Map.entry("timestamp", ColumnKind.TIMESTAMP),
          Map.entry("timestamptz", ColumnKind.TIMESTAMP_TZ),
          Map.entry("json", ColumnKind.JSON),
          Map.entry("jsonb", ColumnKind.JSON));

  /**
   * Types whose text depends on the session wherever they are (money: lc_monetary; interval:
   * IntervalStyle).
   */
  private static final Set<String> SESSION_DEPENDENT = Set.of("money", "interval");

  /**
   * Types the server normalizes at the top level but whose form inside arrays, composites and
   * ranges depends on the session (timestamptz: TimeZone; bytea: bytea_output). Dates and times in
   * arrays and composites print in ISO form whatever DateStyle says; in ranges see {@code
   * rangeDependsOnSession}.
   */
  private static final Set<String> SESSION_DEPENDENT_NESTED = Set.of("timestamptz", "bytea");

  private PgTypes() {}

  /**
   * How one column's values are captured.
   *
   * @param kind the JSON form's kind, or null when the column cannot be captured
   * @param pinned whether the table needs the pinned capture function for this column
   * @param refusal why it cannot be captured (null when it can)
   */
  record Form(ColumnKind kind, boolean pinned, String refusal) {}

  /** One {@code pg_type} row, as far as capture cares. */
  private record PgType(
      String schema,
      String name,
      char type,
      char category,
      long baseType,
      long element,
      long relation,
      long rangeSubtype,
      long multirangeOf,
      boolean jsonCast) {
    boolean builtIn() {
      return schema.equals("pg_catalog");
    }
  }

  /** Reads types on demand, each once; one per describe. */
  static final class Resolver {
    private final Connection c;
    private final Map<Long, PgType> types = new HashMap<>();
    private Integer moneyDigits;

    Resolver(Connection c) {
      this.c = c;
    }

    /** The form of values of type {@code oid} in a column. */
    Form form(long oid) throws SQLException {
      return form(oid, false, 0);
    }

    private Form form(long oid, boolean nested, int depth) throws SQLException {
      PgType t = type(oid);
      if (depth > 32) {
        return new Form(null, false, "nests types more than 32 levels deep");
      }
      switch (t.type()) {
        case 'd':
          return form(t.baseType(), nested, depth + 1);
        case 'e':
          return new Form(ColumnKind.STRING, false, null);
        case 'c':
          return composite(t, depth);
        case 'r':
          return textOf(
              form(t.rangeSubtype(), true, depth + 1),
              ColumnKind.STRING,
              "range",
              rangeDependsOnSession(t));
        case 'm':
          return textOf(
              form(t.multirangeOf(), true, depth + 1), ColumnKind.STRING, "multirange", false);
        case 'b':
          return base(t, nested, depth);
        default:
          return new Form(null, false, "is a pseudo-type (" + t.type() + ")");
      }
    }

    private Form base(PgType t, boolean nested, int depth) throws SQLException {
      if (t.category() == 'A' && t.element() != 0) {
        return textOf(form(t.element(), true, depth + 1), ColumnKind.JSON, "array", false);
      }
      if (t.builtIn()) {
        ColumnKind kind = BUILT_IN.get(t.name());
        if (t.name().equals("money") && moneyDigits() != 2) {
          return new Form(
              null,
              false,
              "has type money and this database's lc_monetary ("
                  + lcMonetary()
                  + ") has "
                  + moneyDigits()
                  + " fraction digits: Tablecast reads money under lc_monetary = C, with 2, "
                  + "so its amounts would be off by a power of ten");
        }
        if (kind == null
            && t.category()
                == 'N') { // regclass, regtype, ...: an oid whose text follows the catalog
          return new Form(
              null,
              false,
              "has type "
                  + t.name()
                  + ", an object identifier whose text changes when the "
                  + "object it names is renamed or dropped, without any change of the row (store the oid instead)");
        }
        boolean pinned =
            SESSION_DEPENDENT.contains(t.name())
                || (nested && SESSION_DEPENDENT_NESTED.contains(t.name()));
        return new Form(kind == null ? ColumnKind.STRING : kind, pinned, null);
      }
      return new Form(t.jsonCast() ? ColumnKind.JSON : ColumnKind.STRING, false, null);
    }

    private Form composite(PgType t, int depth) throws SQLException {
      boolean pinned = false;
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT atttypid FROM pg_catalog.pg_attribute "
                  + "WHERE attrelid = ? AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
        ps.setLong(1, t.relation());
        List<Long> fields = new java.util.ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            fields.add(rs.getLong(1));
          }
        }
        for (long field : fields) {
          Form f = form(field, true, depth + 1);
          if (f.kind() == null) {
            return new Form(
                null,
                false,
                "is the composite type " + t.name() + " holding a field that " + f.refusal());
          }
          pinned |= f.pinned();
        }
      }
      return new Form(ColumnKind.JSON, pinned, null);
    }

    /** Ranges of dates and times print their bounds per DateStyle and TimeZone. */
    private boolean rangeDependsOnSession(PgType range) throws SQLException {
      PgType subtype = type(range.rangeSubtype());
      while (subtype.type() == 'd') {
        subtype = type(subtype.baseType());
      }
      return subtype.category() == 'D' || subtype.category() == 'T';
    }

    private static Form textOf(Form inner, ColumnKind kind, String what, boolean pinned) {
      if (inner.kind() == null) {
        return new Form(null, false, "is a " + what + " of a type that " + inner.refusal());
      }
      return new Form(kind, pinned || inner.pinned(), null);
    }

    private PgType type(long oid) throws SQLException {
      PgType t = types.get(oid);
      if (t == null) {
        read(List.of(oid));
        t = types.get(oid);
        if (t == null) {
          throw new IllegalStateException("type oid " + oid + " is not in pg_type");
        }
      }
      return t;
    }

    /**
     * Reads the types of {@code oids} not read yet in one query, so that describing a table costs
     * one catalog query for its columns' types instead of one per type (the types they nest, a
     * domain's base or an array's element, are read when a form asks for them).
     */
    void read(Collection<Long> oids) throws SQLException {
      List<Long> missing = oids.stream().filter(o -> !types.containsKey(o)).distinct().toList();
      if (missing.isEmpty()) {
        return;
      }
      boolean multiranges = c.getMetaData().getDatabaseMajorVersion() >= 14;
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT t.oid, n.nspname, t.typname, t.typtype, t.typcategory, "
                  + "t.typbasetype, t.typelem, t.typrelid, COALESCE(r.rngsubtype, 0), "
                  + (multiranges
                      ? "COALESCE((SELECT m.rngtypid FROM pg_catalog.pg_range m WHERE m.rngmultitypid = t.oid), 0)"
                      : "0")
                  + ", EXISTS (SELECT 1 FROM pg_catalog.pg_cast k WHERE k.castsource = t.oid AND k.casttarget IN "
                  + "('pg_catalog.json'::regtype, 'pg_catalog.jsonb'::regtype)) FROM pg_catalog.pg_type t "
                  + "JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace "
                  + "LEFT JOIN pg_catalog.pg_range r ON r.rngtypid = t.oid"
                  + " WHERE t.oid = ANY(?::int8[]::oid[])")) {
        ps.setArray(1, c.createArrayOf("int8", missing.toArray()));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            types.put(
                rs.getLong(1),
                new PgType(
                    rs.getString(2),
                    rs.getString(3),
                    rs.getString(4).charAt(0),
                    rs.getString(5).charAt(0),
                    rs.getLong(6),
                    rs.getLong(7),
                    rs.getLong(8),
                    rs.getLong(9),
                    rs.getLong(10),
                    rs.getBoolean(11)));
          }
        }
      }
    }

    /** Fraction digits of money under this session's (the database's default) lc_monetary. */
    private int moneyDigits() throws SQLException {
      if (moneyDigits == null) {
        try (PreparedStatement ps = c.prepareStatement("SELECT scale('1'::money::numeric)");
            ResultSet rs = ps.executeQuery()) {
          rs.next();
          moneyDigits = rs.getInt(1);
        }
      }
      return moneyDigits;
    }

    private String lcMonetary() throws SQLException {
      try (PreparedStatement ps = c.prepareStatement("SELECT current_setting('lc_monetary')");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  /**
   * The decimal form of a money value as {@code lc_monetary = C} prints it ({@code -$1,234.56}):
   * {@code -1234.56}. Other text is returned as it is.
   */
  static String moneyDecimal(String text) {
    int dollar = text.indexOf('$');
    if (dollar < 0) {
      return text;
    }
    return text.substring(0, dollar) + text.substring(dollar + 1).replace(",", "");
  }

  /**
   * Bytes of a {@code bytea} in either output format: hex ({@code \x0001}) or escape ({@code
   * \000A\\}, a writer session with {@code bytea_output = escape}).
   */
  static byte[] bytea(String text) {
    if (text.startsWith("\\x")) {
      return java.util.HexFormat.of().parseHex(text, 2, text.length());
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(text.length());
    byte[] in = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (int i = 0; i < in.length; i++) {
      if (in[i] != '\\') {
        out.write(in[i]);
      } else if (in[i + 1] == '\\') {
        out.write('\\');
        i++;
      } else {
        out.write(((in[i + 1] - '0') << 6) | ((in[i + 2] - '0') << 3) | (in[i + 3] - '0'));
        i += 3;
      }
    }
    return out.toByteArray();
  }

  /**
   * The type modifier as {@code information_schema} shows it: {@code varchar(50)}, {@code
   * numeric(12,4)}, {@code bit(4)}.
   */
  static String modifier(String type, int typmod) {
    switch (type) {
      case "varchar":
      case "bpchar":
        return typmod >= 4 ? "(" + (typmod - 4) + ")" : "";
      case "bit":
      case "varbit":
        return typmod > 0 ? "(" + typmod + ")" : "";
      case "numeric":
        return typmod >= 4
            ? "(" + (((typmod - 4) >> 16) & 0xffff) + "," + ((typmod - 4) & 0xffff) + ")"
            : "";
      default:
        return "";
    }
  }
}
