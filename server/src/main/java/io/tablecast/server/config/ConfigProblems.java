package io.tablecast.server.config;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * The problems of a configuration, told together ({@link ConfigMapper#bindAll}): how an unknown key
 * is named, one problem per key, the listing, and the default put in place of a bad value so that
 * binding goes on to the next.
 */
public final class ConfigProblems {

  private ConfigProblems() {}

  /**
   * Adds {@code problem} unless one about the same key (its first word: {@code source.jdbc_url}),
   * or a key within it or around it, is there already: a required key's absence found before its
   * record said so too, or a section left out because a key in it was wrong.
   */
  public static void addOncePerKey(List<String> problems, String problem) {
    String key = problem.split(" ", 2)[0];
    if (problems.stream().map(p -> p.split(" ", 2)[0]).noneMatch(k -> sameOrWithin(k, key))) {
      problems.add(problem);
    }
  }

  private static boolean sameOrWithin(String a, String b) {
    return a.equals(b) || a.startsWith(b + ".") || b.startsWith(a + ".");
  }

  /** One problem as it is; several as a count and an indented line each. */
  public static IllegalArgumentException listing(List<String> problems) {
    if (problems.size() == 1) {
      return new IllegalArgumentException(problems.get(0));
    }
    return new IllegalArgumentException(
        problems.size()
            + " problems in the configuration:"
            + problems.stream().map(p -> "\n  - " + p).collect(Collectors.joining()));
  }

  /**
   * Puts {@code fallback}'s value at {@code path} in {@code tree} (or removes the key, when {@code
   * fallback} has none), so that binding goes on; false when nothing changed.
   */
  static boolean replaced(
      JsonNode tree, List<JsonMappingException.Reference> path, JsonNode fallback) {
    if (path.isEmpty()) {
      return false;
    }
    JsonNode parent = tree;
    JsonNode alternative = fallback;
    for (JsonMappingException.Reference r : path.subList(0, path.size() - 1)) {
      parent = r.getFieldName() != null ? parent.get(r.getFieldName()) : parent.get(r.getIndex());
      alternative =
          alternative == null
              ? null
              : r.getFieldName() != null ? alternative.get(r.getFieldName()) : null;
      if (parent == null) {
        return false;
      }
    }
    JsonMappingException.Reference last = path.get(path.size() - 1);
    if (last.getFieldName() != null && parent instanceof ObjectNode object) {
      JsonNode now = object.get(last.getFieldName());
      JsonNode instead = alternative == null ? null : alternative.get(last.getFieldName());
      if (instead == null) {
        return object.remove(last.getFieldName()) != null;
      }
      if (instead.equals(now)) {
        return false;
      }
      object.set(last.getFieldName(), instead.deepCopy());
      return true;
    }
    if (last.getFieldName() == null && parent instanceof ArrayNode array) {
      return array.remove(last.getIndex()) != null;
    }
    return false;
  }

  /**
   * The problem of {@code key}, unknown among {@code known} in the section at {@code path} (empty
   * at the top): named with its path, with the key meant when one is spelt alike, and those known.
   */
  public static String unknownKey(
      String path, String key, Collection<String> known, UnaryOperator<String> keyName) {
    String meant = KeySpelling.closest(key, known);
    String prefix = path.isEmpty() ? "" : path + ".";
    return "unknown configuration key '"
        + keyName.apply(prefix + key)
        + "'"
        + (meant == null ? "" : ": did you mean '" + keyName.apply(prefix + meant) + "'?")
        + " (expected one of "
        + new TreeSet<>(known)
        + ")";
  }

  /**
   * The warning for the environment variable {@code name}, which has the server's prefix but is
   * none of {@code known}: named, with the variable meant when one is spelt alike.
   */
  public static String unknownVariable(String name, Collection<String> known) {
    String meant = KeySpelling.closest(name, known);
    return "environment variable "
        + name
        + " is set but the server reads no such variable, so it changes nothing"
        + (meant == null ? "" : ": did you mean " + meant + "?")
        + " (the server reads "
        + String.join(", ", new TreeSet<>(known))
        + ")";
  }

  /**
   * The name of {@code known} that {@code name} was meant to be, when it is spelt alike (at most
   * two edits away, no other as close); else null.
   */
  public static String closest(String name, Collection<String> known) {
    return KeySpelling.closest(name, known);
  }
}
