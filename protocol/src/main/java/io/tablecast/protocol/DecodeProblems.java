package io.tablecast.protocol;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What was wrong with a message's body, in the words of the error sent back to its sender: the
 * field by its path in the message ({@code "tables[2]"}, {@code "schemas[0].columns"}) and the
 * reason, without Jackson's advice on how its mapper could be configured to accept the input (which
 * the sender cannot act on) or internal messages such as a JDK method's null check.
 */
final class DecodeProblems {

  /** A field name as the records' null checks give it ({@code requireNonNull(x, "x")}). */
  private static final Pattern FIELD = Pattern.compile("[A-Za-z][A-Za-z0-9]*");

  /** Jackson's parenthesized hints: mapper settings, coercion config, token names. */
  private static final Pattern ADVICE =
      Pattern.compile("\\s*\\((?:set |but could if |token `|through reference chain)[^)]*\\)");

  /** Jackson's message for a null (or missing) value of a primitive field. */
  private static final Pattern NULL_PRIMITIVE =
      Pattern.compile("Cannot map `null` into type `(\\w+)`");

  private DecodeProblems() {}

  /** The reason {@code e}, thrown while mapping a message's body, gives to the sender. */
  static String of(Throwable e) {
    if (!(e instanceof JsonMappingException m)) {
      return rootMessage(e);
    }
    String path = path(m.getPath());
    if (m instanceof ValueInstantiationException) {
      Throwable cause = m.getCause();
      if (cause instanceof NullPointerException) {
        String field = cause.getMessage();
        if (field != null && FIELD.matcher(field).matches()) {
          return quoted(path.isEmpty() ? field : path + "." + field) + " is missing or null";
        }
        return (path.isEmpty() ? "" : quoted(path) + ": ") + "a required field is missing or null";
      }
      return (path.isEmpty() ? "" : quoted(path) + ": ") + rootMessage(m);
    }
    String reason = ADVICE.matcher(m.getOriginalMessage()).replaceAll("");
    Matcher nullPrimitive = NULL_PRIMITIVE.matcher(reason);
    if (nullPrimitive.matches() && !path.isEmpty()) {
      return quoted(path) + " is missing or null (it takes a " + nullPrimitive.group(1) + ")";
    }
    return path.isEmpty() ? reason : quoted(path) + ": " + reason;
  }

  /** The first line of the message of {@code e}'s innermost cause. */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage();
    if (m == null) {
      return t.getClass().getSimpleName();
    }
    int nl = m.indexOf('\n');
    return nl > 0 ? m.substring(0, nl) : m;
  }

  private static String path(List<JsonMappingException.Reference> references) {
    StringBuilder b = new StringBuilder();
    for (JsonMappingException.Reference r : references) {
      if (r.getFieldName() != null) {
        if (b.length() > 0) {
          b.append('.');
        }
        b.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        b.append('[').append(r.getIndex()).append(']');
      }
    }
    return b.toString();
  }

  private static String quoted(String path) {
    return '"' + path + '"';
  }
}
