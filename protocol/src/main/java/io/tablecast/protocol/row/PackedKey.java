package io.tablecast.protocol.row;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;
import java.io.IOException;
import java.util.AbstractList;
import java.util.Arrays;

/**
 * A row's key in its row form ({@link RowForm#encodeKey}) that reads as the JSON array of the key's
 * values in key order: the {@code key} of a change in protocol version 3. Decoded on the first read
 * that needs it, once; immutable. Like {@link PackedRow}, a key decoded from a frame has no layout
 * until the connection's decoder binds it. Equal bytes are equal keys; a key and an array are equal
 * when the key reads as the array (so both can key the same map).
 */
// Jackson's own deepCopy() signature, inherited: javac warns on every subclass of a node type
@SuppressWarnings("unchecked")
public final class PackedKey extends ArrayNode {
  private static final long serialVersionUID = 1L;

  private final Values values;

  private PackedKey(Values values) {
    super(ValueForm.NODES, values);
    this.values = values;
  }

  /** A key of {@code form} (null: to be bound by the decoder). */
  public static PackedKey of(RowForm form, byte[] bytes) {
    return new PackedKey(new Values(form, bytes));
  }

  /** The key's bytes (not copied: do not change them). */
  public byte[] bytes() {
    return values.bytes;
  }

  /** The layout of the key's table version, or null while unbound. */
  public RowForm form() {
    return values.form;
  }

  /**
   * Gives a key decoded from a frame its table's layout, once, by the connection's decoder.
   *
   * @throws MalformedRowException when the bytes are not a key of {@code form}
   * @throws IllegalStateException when the key already has another layout
   */
  public void bind(RowForm form) {
    if (values.form == form) {
      return;
    }
    if (values.form != null) {
      throw new IllegalStateException("the key is already bound to a layout");
    }
    form.checkKey(values.bytes);
    values.form = form;
  }

  @Override
  public void serialize(JsonGenerator g, SerializerProvider provider) throws IOException {
    if (g instanceof CBORGenerator
        && Boolean.TRUE.equals(provider.getAttribute(PackedRow.ROWS_AS_BYTES))) {
      g.writeBinary(values.bytes);
    } else if (values.form != null && values.decoded == null && PackedRow.writesText(g)) {
      values.form.writeKeyJson(values.bytes, g); // JSON text straight from the bytes
    } else {
      super.serialize(g, provider);
    }
  }

  /** Whether the key's values were decoded (a read needed them); for tests. */
  public boolean decoded() {
    return values.decoded != null;
  }

  @Override
  public boolean equals(Object o) {
    if (o instanceof PackedKey p) {
      return Arrays.equals(values.bytes, p.values.bytes);
    }
    return super.equals(o);
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }

  /** The key's values, decoded on first use; read-only. */
  private static final class Values extends AbstractList<JsonNode> {
    private final byte[] bytes;
    private volatile RowForm form;
    private volatile ArrayNode decoded;

    Values(RowForm form, byte[] bytes) {
      this.form = form;
      this.bytes = bytes;
    }

    private ArrayNode array() {
      ArrayNode a = decoded;
      if (a == null) {
        RowForm f = form;
        if (f == null) {
          throw new IllegalStateException(
              "a key in the row form read before its table's layout was bound");
        }
        a = f.keyToNode(bytes);
        decoded = a;
      }
      return a;
    }

    @Override
    public JsonNode get(int index) {
      return array().get(index);
    }

    @Override
    public int size() {
      return array().size();
    }
  }
}
