package io.tablecast.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of a SQL script on the test class path, split at the semicolons that end them: not
 * inside quotes ({@code '...'}, {@code "..."}, {@code `...`}), PostgreSQL dollar-quoted bodies
 * ({@code $tag$...$tag$}) or comments ({@code -- ...}, which are dropped).
 */
final class SqlScript {
  private SqlScript() {}

  /** The statements of class-path resource {@code path} (e.g. {@code realistic/mariadb.sql}). */
  static List<String> statements(String path) {
    try (InputStream in = SqlScript.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("no SQL script " + path + " on the test class path");
      }
      return split(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read SQL script " + path, e);
    }
  }

  static List<String> split(String script) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int i = 0;
    while (i < script.length()) {
      char ch = script.charAt(i);
      if (ch == '-' && script.startsWith("--", i)) {
        int end = script.indexOf('\n', i);
        i = end < 0 ? script.length() : end;
      } else if (ch == '\'' || ch == '"' || ch == '`') {
        int end = closingQuote(script, i, ch);
        current.append(script, i, end);
        i = end;
      } else if (ch == '$' && dollarTag(script, i) != null) {
        String tag = dollarTag(script, i);
        int close = script.indexOf(tag, i + tag.length());
        int end = close < 0 ? script.length() : close + tag.length();
        current.append(script, i, end);
        i = end;
      } else if (ch == ';') {
        add(out, current);
        i++;
      } else {
        current.append(ch);
        i++;
      }
    }
    add(out, current);
    return out;
  }

  /**
   * The index after the quote closing the one at {@code start} (a doubled quote is part of the
   * text).
   */
  private static int closingQuote(String s, int start, char quote) {
    int i = start + 1;
    while (i < s.length()) {
      char ch = s.charAt(i);
      if (ch == '\\' && quote == '\'') {
        i += 2; // MySQL escapes; PostgreSQL scripts here use standard strings without backslashes
      } else if (ch == quote) {
        if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
          i += 2;
        } else {
          return i + 1;
        }
      } else {
        i++;
      }
    }
    return s.length();
  }

  /** {@code $tag$} or {@code $$} starting at {@code i}, or null. */
  private static String dollarTag(String s, int i) {
    int j = i + 1;
    while (j < s.length() && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
      j++;
    }
    return j < s.length()
            && s.charAt(j) == '$'
            && (j == i + 1 || !Character.isDigit(s.charAt(i + 1)))
        ? s.substring(i, j + 1)
        : null;
  }

  private static void add(List<String> out, StringBuilder current) {
    String statement = current.toString().strip();
    if (!statement.isEmpty()) {
      out.add(statement);
    }
    current.setLength(0);
  }
}
