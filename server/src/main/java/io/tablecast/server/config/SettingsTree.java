package io.tablecast.server.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.POJONode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Edits a configuration tree by dotted keys ({@code slow_consumer.coalesce_max_keys}), the form in
 * which the YAML file, the environment variables and the builder all name a setting. The values may
 * be YAML scalars or Java values ({@code POJONode}s) that {@link ConfigMapper} binds.
 */
public final class SettingsTree {

  private SettingsTree() {}

  /** Sets the dotted {@code key} of {@code tree} to {@code value}; null removes it. */
  public static void put(ObjectNode tree, String key, Object value) {
    int dot = key.indexOf('.');
    if (dot >= 0) {
      String section = key.substring(0, dot);
      JsonNode node = tree.get(section);
      if (node instanceof POJONode pojo) {
        // a settings record, taken apart to set one of its keys
        node = ConfigMapper.toTree(pojo.getPojo());
      }
      ObjectNode inner = node instanceof ObjectNode o ? o : JsonNodeFactory.instance.objectNode();
      tree.set(section, inner);
      put(inner, key.substring(dot + 1), value);
    } else if (value == null) {
      tree.remove(key);
    } else if (value instanceof JsonNode n) {
      tree.set(key, n);
    } else if (value instanceof String s) {
      tree.put(key, s);
    } else if (value instanceof Boolean b) {
      tree.put(key, b);
    } else if (value instanceof Integer || value instanceof Long) {
      tree.put(key, ((Number) value).longValue());
    } else if (value instanceof java.util.Collection<?> values) {
      tree.set(key, ConfigMapper.toArray(values)); // a list of values, not one embedded object
    } else {
      tree.putPOJO(key, value);
    }
  }

  /** The value at the dotted {@code key}, or null. */
  public static JsonNode get(ObjectNode tree, String key) {
    JsonNode node = tree;
    for (String part : key.split("\\.", -1)) {
      node = node == null ? null : node.get(part);
    }
    return node;
  }

  /** Moves a top-level key to {@code to}, unless that is set already (which wins). */
  public static void move(ObjectNode tree, String from, String to) {
    JsonNode value = tree.remove(from);
    if (value != null && get(tree, to) == null) {
      put(tree, to, value);
    }
  }

  /** Removes every key written without a value ({@code heartbeat:}): as if absent. */
  public static void dropNulls(ObjectNode tree) {
    for (Iterator<JsonNode> it = tree.elements(); it.hasNext(); ) {
      JsonNode value = it.next();
      if (value.isNull()) {
        it.remove();
      } else if (value instanceof ObjectNode o) {
        dropNulls(o);
      }
    }
  }

  /** {@code over} merged into {@code base}, mapping by mapping; returns {@code base}. */
  public static ObjectNode merge(ObjectNode base, ObjectNode over) {
    List<String> keys = new ArrayList<>();
    over.fieldNames().forEachRemaining(keys::add);
    for (String key : keys) {
      if (base.get(key) instanceof ObjectNode b && over.get(key) instanceof ObjectNode o) {
        merge(b, o);
      } else {
        base.set(key, over.get(key));
      }
    }
    return base;
  }
}
