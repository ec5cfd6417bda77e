package io.tablecast.protocol.row;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tablecast.protocol.ColumnInfo;
import io.tablecast.protocol.ColumnKind;
import io.tablecast.protocol.MessageCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.List;

/**
 * The row form of one version of a table: its rows as compact, positional, canonical bytes.
 *
 * <pre>
 * row := key length (varint), then the key,
 *        then the null bitmap of the other columns, ceil(others / 8) bytes: bit (j % 8) of byte
 *        (j / 8) set = the j-th non-key column (in table order) is NULL,
 *        then each non-null other column's value, in table order
 * key := the primary-key columns' values, in key order (key columns are never NULL)
 * value := the form of the column's kind ({@link ValueForm})
 * </pre>
 *
 * The key comes first so that a row's key is a slice of it: an index hashes and compares it in
 * place ({@link RowTable}), and an event carries it without computing it again. The column list is
 * the table version's, sent once per table, never per row. Each value has exactly one encoding, so
 * two rows are equal exactly when their bytes are, and the key of a whole row equals the key of a
 * key-only image ({@link #encodeKey}). {@link #toNode} gives back the JSON form of {@code
 * docs/TYPES.md} that {@link #encode} took, node for node. Immutable and thread-safe.
 */
public final class RowForm {
  static final ObjectMapper JSON = MessageCodec.jsonMapper();

  private final List<ColumnInfo> columns;
  private final List<String> primaryKey;
  private final RowLayout layout;

  // the layout's arrays, read on every row (RowLayout documents them)
  private final ValueForm[] forms;
  private final String[] names;

  private final RowJson json;

  private final int[] keyColumns;

  /** Writes rows and keys from their values' JSON forms. */
  private final RowWriter writer;

  /**
   * @param columns the table's columns in table order
   * @param primaryKey the key's column names in key order, each one of {@code columns}
   * @throws IllegalArgumentException when a key column is not a column
   */
  public RowForm(List<ColumnInfo> columns, List<String> primaryKey) {
    this.columns = List.copyOf(columns);
    this.primaryKey = List.copyOf(primaryKey);
    this.layout = new RowLayout(this.columns, this.primaryKey);
    this.forms = layout.forms;
    this.names = layout.names;
    this.json = new RowJson(layout);
    this.keyColumns = layout.keyColumns;
    this.writer = new RowWriter(this.columns, layout);
  }

  public List<ColumnInfo> columns() {
    return columns;
  }

  public List<String> primaryKey() {
    return primaryKey;
  }

  /**
   * The index of the column named {@code name}, or -1. A name written as a literal in the caller's
   * code (interned, as the form's own names are) is found by identity, without comparing
   * characters: this is on every column read by name.
   */
  public int indexOf(String name) {
    return layout.indexOf(name);
  }

  /**
   * The row form of a row given as a JSON object in the forms of {@code docs/TYPES.md}; a column
   * missing from it, or JSON {@code null}, is NULL.
   *
   * @throws IllegalArgumentException naming the column when a value is not of its kind's form, or a
   *     key column is missing or NULL
   */
  public byte[] encode(JsonNode row) {
    JsonNode[] values = new JsonNode[names.length];
    for (int i = 0; i < names.length; i++) {
      values[i] = row.get(names[i]);
    }
    return writer.row(values, null, row);
  }

  /**
   * The row form of a row given as its columns' values in table order, each in the form of {@code
   * docs/TYPES.md} (null or JSON {@code null} for NULL): {@link #encode(JsonNode)} without the
   * object around the values.
   *
   * @throws IllegalArgumentException as {@link #encode(JsonNode)}
   */
  public byte[] encode(JsonNode[] valuesInTableOrder) {
    return writer.row(allColumns(valuesInTableOrder), null, null);
  }

  /**
   * {@link #encode(JsonNode[])} of a row read as its columns' texts: a column with a value in
   * {@code values} (JSON {@code null} for NULL) is written from it, any other from its text in
   * {@code texts}, which must be one {@link #writesText} takes for the column's kind (the bytes are
   * those of the value the text prints).
   *
   * @throws IllegalArgumentException as {@link #encode(JsonNode)}
   */
  public byte[] encodeTexts(String[] texts, JsonNode[] values) {
    return writer.row(allColumns(values), texts, null);
  }

  /**
   * {@link #encodeTexts(String[], JsonNode[])} of a row read as UTF-8 column texts, each text one
   * {@link #writesText} takes (or NULL outside the key): the same bytes, with no {@code String}
   * made for a value; null when a text is not, a key column is NULL or the key takes 128 bytes or
   * more (the caller then gives the row as strings and values).
   *
   * @throws IllegalArgumentException when the texts are not one per column
   */
  public byte[] encodeTexts(TextSlices row) {
    return SliceValues.encode(layout, row);
  }

  /** Whether {@link #encodeTexts} writes {@code text} of a column of {@code kind} as it is. */
  public static boolean writesText(ColumnKind kind, String text) {
    return TextValues.writes(kind, text);
  }

  /** {@code values}, checked to hold one value per column. */
  private JsonNode[] allColumns(JsonNode[] values) {
    if (values.length != names.length) {
      throw new IllegalArgumentException(
          values.length + " values for the " + names.length + " columns " + columns);
    }
    return values;
  }

  /**
   * The key of a row given as a JSON object holding at least the key columns (a whole row, or a
   * key-only image such as a MySQL trigger records).
   *
   * @throws IllegalArgumentException naming the column when a key column is missing or NULL
   */
  public byte[] encodeKey(JsonNode image) {
    JsonNode[] values = new JsonNode[names.length];
    for (int column : keyColumns) {
      values[column] = image.get(names[column]);
    }
    return writer.key(values, image);
  }

  /**
   * The key of a row given as its columns' values in table order (only the key columns' are read),
   * each in the form of {@code docs/TYPES.md}: {@link #encodeKey(JsonNode)} without the object
   * around the values.
   *
   * @throws IllegalArgumentException as {@link #encodeKey(JsonNode)}
   */
  public byte[] encodeKey(JsonNode[] valuesInTableOrder) {
    return writer.key(allColumns(valuesInTableOrder), null);
  }

  /** The key of an encoded row: the same bytes as {@link #encodeKey} of the row's JSON form. */
  public byte[] keyOf(byte[] row) {
    RowSource in = new RowSource(row, 0, row.length);
    int length = Varints.readLength(in);
    int start = in.skip(length);
    return java.util.Arrays.copyOfRange(row, start, start + length);
  }

  /**
   * Where a row's key begins: its bytes are {@code [keyStart(row), keyStart(row) +
   * keyLength(row))}.
   */
  public static int keyStart(byte[] row) {
    int i = 0;
    while ((row[i] & 0x80) != 0) {
      i++;
    }
    return i + 1;
  }

  /** How many bytes a row's key takes (read without allocating: this is on every index probe). */
  public static int keyLength(byte[] row) {
    int value = 0;
    for (int i = 0, shift = 0; ; i++, shift += 7) {
      int b = row[i];
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
  }

  /** The JSON form of an encoded row: every column in table order, NULL as JSON null. */
  public ObjectNode toNode(byte[] row) {
    return json.toNode(row);
  }

  /**
   * Checks that {@code key} is a key of this form, as {@link #keyToNode} reads it, building
   * nothing.
   *
   * @throws MalformedRowException when it is not
   */
  public void checkKey(byte[] key) {
    layout.checkKey(key);
  }

  /** The key's values in key order, in their JSON forms. */
  public ArrayNode keyToNode(byte[] key) {
    return json.keyToNode(key);
  }

  /**
   * The JSON form of one column's value in an encoded row (JSON null for NULL), as {@link #toNode}
   * gives it, without decoding the other columns: those before it are skipped.
   *
   * @param column the column's index in table order
   */
  public JsonNode valueToNode(byte[] row, int column) {
    int start = layout.valueStart(row, column);
    return start < 0
        ? ValueForm.NODES.nullNode()
        : forms[column].toNode(new RowSource(row, start, row.length));
  }

  /**
   * One column's value in an encoded row as the Java value {@link JavaValues#toJava} makes of
   * {@link #valueToNode}'s node (null for NULL), decoded straight from the bytes: no node.
   *
   * @param column the column's index in table order
   */
  public Object valueToJava(byte[] row, int column) {
    return valueToJava(row, column, 0);
  }

  /**
   * As {@link #valueToJava(byte[], int)}, the walk to the column starting from the row's {@code
   * anchors} ({@link #anchors}), which its holder computed once and kept.
   */
  public Object valueToJava(byte[] row, int column, int anchors) {
    int start = layout.valueStart(row, column, anchors);
    return start < 0 ? null : DirectRead.toJava(forms[column], row, start);
  }

  /**
   * A DECIMAL column's value in an encoded row as a {@code BigDecimal} read straight from its
   * compact form (equal, scale included, to {@code new BigDecimal} of the text {@link #valueToJava}
   * gives), the walk starting from the row's {@code anchors}; null when the value is NULL, kept as
   * its text, or the column is not a DECIMAL: read those from {@link #valueToJava}.
   */
  public BigDecimal compactDecimal(byte[] row, int column, int anchors) {
    int start = forms[column] == ValueForm.DECIMAL ? layout.valueStart(row, column, anchors) : -1;
    return start < 0 ? null : DirectRead.bigDecimal(row, start);
  }

  /**
   * Where the walk to some of the columns of {@code row} may start, packed in a non-zero int for a
   * holder of the row to keep beside its bytes and pass to {@link #valueToJava(byte[], int, int)}:
   * reads of later columns then skip the values before the nearest anchor. Computed with one walk.
   */
  public int anchors(byte[] row) {
    return layout.anchors(row);
  }

  /**
   * Whether a read of {@code column} would start from one of a row's {@link #anchors}: a holder
   * need not compute them for reads of the columns before the first.
   */
  public boolean pastFirstAnchor(int column) {
    return layout.pastFirstAnchor(column);
  }

  /**
   * The values of the columns {@code wanted} in an encoded row, in one walk, as {@link
   * #valueToJava} reads each (null for NULL); the others are passed without decoding and left null.
   * A DECIMAL column flagged in {@code decimals} gives a {@code BigDecimal} equal to {@code new
   * BigDecimal(text)} of its text instead of the text, when that text is a plain number of at most
   * {@link #MAX_DECIMAL_TEXT} characters (any other, such as NaN, stays its text).
   *
   * @param wanted per column in table order, whether to decode it
   * @param decimals per column in table order, whether a DECIMAL is wanted as a BigDecimal
   * @param values per column in table order, filled
   */
  public void valuesToJava(byte[] row, boolean[] wanted, boolean[] decimals, Object[] values) {
    ChosenColumns.read(layout, row, wanted, decimals, values);
  }

  /** The longest decimal text read as a BigDecimal: Jackson's default number length limit. */
  public static final int MAX_DECIMAL_TEXT = 1000;

  /**
   * Checks that {@code row} has this form's shape: the key ends where its length says, each
   * non-null value lies where the layout puts it, and nothing follows the last. Reads without
   * allocating, so that a store of rows (the server's image) can refuse bytes of another layout or
   * cut short before it keeps them, rather than hold a row its readers cannot decode.
   *
   * @throws MalformedRowException naming where the row breaks
   */
  public void check(byte[] row) {
    layout.check(row);
  }

  /** Writes an encoded row as a JSON object: the same text as Jackson writes {@link #toNode}. */
  public void writeJson(byte[] row, JsonGenerator g) throws IOException {
    json.writeRow(row, g);
  }

  /** Writes an encoded key as a JSON array: the same text as Jackson writes {@link #keyToNode}. */
  public void writeKeyJson(byte[] key, JsonGenerator g) throws IOException {
    json.writeKey(key, g);
  }
}
