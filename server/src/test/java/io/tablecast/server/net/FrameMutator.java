package io.tablecast.server.net;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import io.tablecast.protocol.MessageCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

/**
 * Seeded mutations of valid messages, at three levels: the message tree before it is serialized
 * (hostile values, huge numbers, deep nesting, missing, unknown and duplicated fields), the
 * serialized bytes (bit flips, truncation, insertion, deletion, copies, CBOR headers announcing
 * huge items; for binary frames also the length prefix and the type byte), and the raw bytes of a
 * WebSocket frame (opcode, flags, mask bit, length field). {@link #applied()} says what was done.
 */
final class FrameMutator {
  private static final ObjectMapper MAPPER = MessageCodec.jsonMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
  private static final CBORFactory CBOR = new CBORFactory();
  private static final JsonFactory JSON = new JsonFactory();
  private static final String[] FIELD_NAMES = {
    "type",
    "protocolVersion",
    "clientName",
    "user",
    "password",
    "token",
    "tables",
    "resumeEpoch",
    "resumePosition",
    "nonce",
    "position",
    "changes",
    "rows",
    "code",
    "x"
  };

  /** CBOR items whose headers promise far more than any frame holds, or odd simple values. */
  private static final byte[][] CBOR_BOMBS = {
    hex("1bffffffffffffffff"),
    hex("3bffffffffffffffff"),
    hex("7b7fffffffffffffff"),
    hex("5a7fffffff"),
    hex("9b0000000100000000"),
    hex("bb7fffffffffffffff"),
    hex("c25a7fffffff"),
    hex("c4821b7fffffffffffffff01"),
    hex("fb7ff8000000000000"),
    hex("f97c00"),
    hex("d9d9f7"),
    hex("ff"),
    hex("1c"),
    hex("5f5f"),
    hex("f8")
  };

  private final Random random;
  private final List<String> applied = new ArrayList<>();

  FrameMutator(Random random) {
    this.random = random;
  }

  /** What was done to the current case. */
  String applied() {
    return String.join(", ", applied);
  }

  void reset() {
    applied.clear();
  }

  boolean chance(double p) {
    return random.nextDouble() < p;
  }

  int between(int lo, int hi) {
    return lo + random.nextInt(hi - lo + 1);
  }

  // ---------------------------------------------------------------- tree

  /** A message as the tree both encodings serialize (without the JSON {@code type}). */
  static ObjectNode tree(io.tablecast.protocol.Message m) {
    return (ObjectNode) MAPPER.valueToTree(m);
  }

  /** Applies one to three tree mutations in place. */
  void mutateTree(ObjectNode tree) {
    for (int n = between(1, 3); n > 0; n--) {
      List<JsonNode[]> slots = new ArrayList<>();
      collect(tree, slots);
      if (slots.isEmpty()) {
        tree.set("x", hostileValue());
        continue;
      }
      JsonNode[] slot = slots.get(random.nextInt(slots.size())); // {container, key or index}
      switch (random.nextInt(4)) {
        case 0 -> {
          JsonNode v = hostileValue();
          applied.add("tree: set " + slot[1] + " to " + abbreviate(v));
          put(slot, v);
        }
        case 1 -> {
          applied.add("tree: remove " + slot[1]);
          if (slot[0] instanceof ObjectNode o) {
            o.remove(slot[1].asText());
          } else {
            ((ArrayNode) slot[0]).remove(slot[1].asInt());
          }
        }
        case 2 -> {
          String name = FIELD_NAMES[random.nextInt(FIELD_NAMES.length)];
          JsonNode v = hostileValue();
          applied.add("tree: add field " + name + " = " + abbreviate(v));
          tree.set(name, v);
        }
        default -> {
          int depth = between(100, 400);
          applied.add("tree: nest " + slot[1] + " " + depth + " deep");
          put(slot, deep(depth, random.nextBoolean()));
        }
      }
    }
  }

  private static void collect(ContainerNode<?> node, List<JsonNode[]> out) {
    if (node instanceof ObjectNode o) {
      for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        out.add(new JsonNode[] {o, NODES.textNode(k)});
        if (o.get(k) instanceof ContainerNode<?> c) {
          collect(c, out);
        }
      }
    } else {
      ArrayNode a = (ArrayNode) node;
      for (int i = 0; i < a.size(); i++) {
        out.add(new JsonNode[] {a, NODES.numberNode(i)});
        if (a.get(i) instanceof ContainerNode<?> c) {
          collect(c, out);
        }
      }
    }
  }

  private static void put(JsonNode[] slot, JsonNode value) {
    if (slot[0] instanceof ObjectNode o) {
      o.set(slot[1].asText(), value);
    } else {
      ((ArrayNode) slot[0]).set(slot[1].asInt(), value);
    }
  }

  private JsonNode hostileValue() {
    return switch (random.nextInt(16)) {
      case 0 -> NODES.numberNode(BigInteger.TWO.pow(between(64, 4000)));
      case 1 -> NODES.numberNode(BigInteger.TWO.pow(70).negate());
      case 2 -> NODES.numberNode(new BigDecimal("1e" + between(400, 999_999_999)));
      case 3 -> NODES.numberNode(new BigDecimal("-1e-" + between(400, 999_999_999)));
      case 4 -> NODES.numberNode(Long.MIN_VALUE);
      case 5 -> NODES.numberNode((long) Integer.MAX_VALUE + random.nextInt(1000));
      case 6 -> NODES.numberNode(random.nextBoolean() ? Double.NaN : Double.NEGATIVE_INFINITY);
      case 7 -> NODES.numberNode(1.5);
      case 8 -> NODES.textNode("x".repeat(between(0, 3000)));
      case 9 -> NODES.textNode(random.nextBoolean() ? "1" : "\u0000\uFFFF\uD83C\uDF89");
      case 10 -> NODES.nullNode();
      case 11 -> NODES.booleanNode(random.nextBoolean());
      case 12 -> NODES.arrayNode();
      case 13 -> NODES.objectNode();
      case 14 -> NODES.arrayNode().add("a").add(1).addNull();
      default -> deep(between(150, 300), random.nextBoolean());
    };
  }

  private static JsonNode deep(int depth, boolean arrays) {
    JsonNode n = NODES.textNode("t");
    for (int i = 0; i < depth; i++) {
      n = arrays ? NODES.arrayNode().add(n) : NODES.objectNode().set("a", n);
    }
    return n;
  }

  /** CBOR of the tree; sometimes one top-level field is written twice. */
  byte[] cbor(ObjectNode tree) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = CBOR.createGenerator(out)) {
      write(g, tree);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * JSON text of the tree with {@code type} first; sometimes one top-level field is written twice.
   */
  byte[] json(String type, ObjectNode tree) {
    ObjectNode withType = NODES.objectNode();
    if (type != null) {
      withType.put("type", type);
    }
    withType.setAll(tree);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      write(g, withType);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private void write(JsonGenerator g, ObjectNode top) throws IOException {
    int duplicate = top.size() > 0 && chance(0.15) ? random.nextInt(top.size()) : -1;
    g.writeStartObject();
    int i = 0;
    for (Iterator<String> it = top.fieldNames(); it.hasNext(); i++) {
      String k = it.next();
      g.writeFieldName(k);
      MAPPER.writeTree(g, top.get(k));
      if (i == duplicate) {
        JsonNode again = chance(0.5) ? top.get(k) : hostileValue();
        applied.add("duplicate field " + k + " = " + abbreviate(again));
        g.writeFieldName(k);
        MAPPER.writeTree(g, again);
      }
    }
    g.writeEndObject();
  }

  // ---------------------------------------------------------------- bytes

  /**
   * One to three byte-level mutations; with {@code framed}, {@code b} is a whole binary frame
   * (length prefix, type byte, body) and the prefix and type byte are targets too.
   */
  byte[] mutateBytes(byte[] b, boolean framed) {
    for (int n = between(1, 3); n > 0; n--) {
      int op = random.nextInt(framed ? 10 : 9);
      switch (op) {
        case 0 -> {
          int flips = between(1, 8);
          applied.add("flip " + flips + " bits");
          for (int i = 0; i < flips && b.length > 0; i++) {
            b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
          }
        }
        case 1 -> {
          int len = b.length == 0 ? 0 : random.nextInt(b.length);
          applied.add("truncate to " + len);
          b = Arrays.copyOf(b, len);
        }
        case 2 -> {
          byte[] junk = new byte[between(1, 16)];
          random.nextBytes(junk);
          b = insert(b, junk, "random bytes");
        }
        case 3 -> {
          if (b.length > 0) {
            int from = random.nextInt(b.length);
            int to = from + between(1, Math.min(64, b.length - from));
            b = insert(b, Arrays.copyOfRange(b, from, to), "a copy of bytes " + from + ".." + to);
          }
        }
        case 4 -> {
          if (b.length > 1) {
            int from = random.nextInt(b.length);
            int to = Math.min(b.length, from + between(1, 16));
            applied.add("delete bytes " + from + ".." + to);
            byte[] out = new byte[b.length - (to - from)];
            System.arraycopy(b, 0, out, 0, from);
            System.arraycopy(b, to, out, from, b.length - to);
            b = out;
          }
        }
        case 5 -> b = insert(b, CBOR_BOMBS[random.nextInt(CBOR_BOMBS.length)], "a CBOR bomb");
        case 6 ->
            b =
                insert(
                    b,
                    ("[".repeat(between(100, 400))).getBytes(StandardCharsets.US_ASCII),
                    "brackets");
        case 7 ->
            b =
                insert(
                    b,
                    ("9".repeat(between(19, 2000)) + (chance(0.5) ? "e999999999" : ""))
                        .getBytes(StandardCharsets.US_ASCII),
                    "a huge number");
        case 8 -> {
          if (framed && b.length >= 5) {
            int type = chance(0.5) ? between(0, 12) : random.nextInt(256);
            applied.add("type byte " + type);
            b[4] = (byte) type;
          } else if (b.length > 0) {
            b[random.nextInt(b.length)] = (byte) random.nextInt(256);
            applied.add("replace a byte");
          }
        }
        default -> { // framed only
          if (b.length >= 4) {
            int[] choices = {
              0,
              -1,
              Integer.MAX_VALUE,
              Integer.MIN_VALUE,
              b.length - 4 + between(-8, 8),
              random.nextInt(),
              EmbeddedServer.MAX_FRAME - 4,
              EmbeddedServer.MAX_FRAME - 3
            };
            int len = choices[random.nextInt(choices.length)];
            applied.add("length prefix " + len);
            ByteBuffer.wrap(b).putInt(0, len);
          }
        }
      }
      if (framed && op != 9 && b.length >= 4 && chance(0.5)) {
        applied.add("prefix fixed to the body");
        ByteBuffer.wrap(b).putInt(0, b.length - 4);
      }
    }
    return b;
  }

  private byte[] insert(byte[] b, byte[] what, String name) {
    int at = random.nextInt(b.length + 1);
    applied.add("insert " + name + " (" + what.length + " bytes) at " + at);
    byte[] out = new byte[b.length + what.length];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(what, 0, out, at, what.length);
    System.arraycopy(b, at, out, at + what.length, b.length - at);
    return out;
  }

  /** One or two mutations of a masked client WebSocket frame's header (or a truncation). */
  byte[] mutateWebSocketFrame(byte[] f) {
    for (int n = between(1, 2); n > 0 && f.length >= 2; n--) {
      switch (random.nextInt(5)) {
        case 0 -> {
          int opcode = random.nextInt(16);
          applied.add("ws opcode " + opcode);
          f[0] = (byte) ((f[0] & 0xf0) | opcode);
        }
        case 1 -> {
          applied.add("ws FIN/RSV bits");
          f[0] ^= (byte) (0x10 << random.nextInt(4));
        }
        case 2 -> {
          applied.add("ws mask bit cleared");
          f[1] &= 0x7f;
        }
        case 3 -> {
          int len = random.nextInt(128);
          applied.add("ws length field " + len);
          f[1] = (byte) ((f[1] & 0x80) | len);
        }
        default -> {
          int len = random.nextInt(f.length);
          applied.add("ws frame truncated to " + len);
          f = Arrays.copyOf(f, len);
        }
      }
    }
    return f;
  }

  // ---------------------------------------------------------------- feeding

  /** Splits the bytes into one to three reads. */
  List<byte[]> chunks(byte[] b) {
    List<byte[]> out = new ArrayList<>();
    int parts = b.length < 2 ? 1 : between(1, 3);
    int from = 0;
    for (int i = 1; i < parts; i++) {
      int cut = from + random.nextInt(b.length - from);
      out.add(Arrays.copyOfRange(b, from, cut));
      from = cut;
    }
    out.add(Arrays.copyOfRange(b, from, b.length));
    return out;
  }

  private static String abbreviate(JsonNode v) {
    String s = v.toString();
    return s.length() > 40 ? s.substring(0, 40) + "...(" + s.length() + " chars)" : s;
  }

  private static byte[] hex(String s) {
    return java.util.HexFormat.of().parseHex(s);
  }
}
