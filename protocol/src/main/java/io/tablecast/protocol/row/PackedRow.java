package io.tablecast.protocol.row;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

/**
 * A row in its row form ({@link RowForm}) that reads as the JSON object of {@code docs/TYPES.md}:
 * the {@code before}, {@code after} and snapshot rows of protocol version 3. It holds the row's
 * bytes and its table version's layout; the JSON children are decoded on the first read that needs
 * them, once, so a row that is only passed on (encoded as bytes for a version-3 session, written as
 * JSON text straight from the bytes for a WebSocket one) never becomes a tree.
 *
 * <p>Immutable: the tree it reads as cannot be changed ({@code put}, {@code remove} throw). A row
 * decoded from a frame has no layout until the connection's decoder binds the one its table was
 * announced with ({@link #bind}); reading an unbound row throws {@link IllegalStateException}.
 * Equal bytes are equal rows; a tree and a row are equal when the row reads as the tree.
 */
// Jackson's own deepCopy() signature, inherited: javac warns on every subclass of a node type
@SuppressWarnings("unchecked")
public final class PackedRow extends ObjectNode {
  private static final long serialVersionUID = 1L;

  /**
   * The attribute a writer sets ({@code ObjectWriter.withAttribute(ROWS_AS_BYTES, true)}) to have
   * rows written as CBOR byte strings of their row form (protocol version 3).
   */
  public static final String ROWS_AS_BYTES = "tablecast.rowsAsBytes";

  /** The lazily decoded children. */
  private final Children children;

  private PackedRow(Children children) {
    super(ValueForm.NODES, children);
    this.children = children;
  }

  /** A row of {@code form} (null: to be bound by the decoder). */
  public static PackedRow of(RowForm form, byte[] bytes) {
    return new PackedRow(new Children(form, bytes));
  }

  /** The row's bytes in its row form (not copied: do not change them). */
  public byte[] bytes() {
    return children.bytes;
  }

  /** The layout of the row's table version, or null while unbound. */
  public RowForm form() {
    return children.form;
  }

  /**
   * Gives a row decoded from a frame the layout its table was announced with, after checking the
   * bytes follow it. Called once, by the connection's decoder, before the row is handed on.
   *
   * @throws MalformedRowException when the bytes do not follow {@code form}
   * @throws IllegalStateException when the row already has another layout
   */
  public void bind(RowForm form) {
    if (children.form == form) {
      return;
    }
    if (children.form != null) {
      throw new IllegalStateException("the row is already bound to a layout");
    }
    form.check(children.bytes);
    children.form = form;
  }

  @Override
  public void serialize(JsonGenerator g, SerializerProvider provider) throws IOException {
    if (g instanceof CBORGenerator && Boolean.TRUE.equals(provider.getAttribute(ROWS_AS_BYTES))) {
      g.writeBinary(children.bytes);
    } else if (children.form != null && children.decoded == null && writesText(g)) {
      children.form.writeJson(children.bytes, g); // JSON text straight from the bytes
    } else {
      super.serialize(g, provider);
    }
  }

  /** Whether {@code g} writes JSON text (raw values allowed), not a token buffer or binary. */
  static boolean writesText(JsonGenerator g) {
    return g.getClass().getName().startsWith("com.fasterxml.jackson.core.json.");
  }

  /** Whether the row's JSON tree was built (a read needed it); for tests. */
  public boolean decoded() {
    return children.decoded != null;
  }

  @Override
  public boolean equals(Object o) {
    if (o instanceof PackedRow p) {
      return Arrays.equals(children.bytes, p.children.bytes);
    }
    return super.equals(o);
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }

  /**
   * The children map of a packed row: decoded from the bytes on first use, read-only. Safe to read
   * from several threads (the decoded map is published through a volatile field).
   */
  private static final class Children extends AbstractMap<String, JsonNode> {
    private final byte[] bytes;
    private volatile RowForm form;
    private volatile ObjectNode decoded;

    Children(RowForm form, byte[] bytes) {
      this.form = form;
      this.bytes = bytes;
    }

    private ObjectNode tree() {
      ObjectNode t = decoded;
      if (t == null) {
        RowForm f = form;
        if (f == null) {
          throw new IllegalStateException(
              "a row in the row form read before its table's layout was bound (protocol version"
                  + " 3: snapshot_begin, resumed or schema_changed announce it)");
        }
        t = f.toNode(bytes);
        decoded = t;
      }
      return t;
    }

    @Override
    public Set<Map.Entry<String, JsonNode>> entrySet() {
      return Collections.unmodifiableSet(tree().properties());
    }

    @Override
    public JsonNode get(Object key) {
      return key instanceof String name ? tree().get(name) : null;
    }

    @Override
    public boolean containsKey(Object key) {
      return key instanceof String name && tree().has(name);
    }

    @Override
    public int size() {
      return tree().size();
    }

    @Override
    public JsonNode put(String key, JsonNode value) {
      throw new UnsupportedOperationException("a row in the row form cannot be changed");
    }
  }
}
