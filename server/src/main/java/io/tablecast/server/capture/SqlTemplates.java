package io.tablecast.server.capture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders the SQL templates of {@code sql/triggers/} (classpath {@code
 * io/tablecast/server/capture/sql/}), shared by every dialect: a template's leading comment block
 * is dropped and its {@code ${name}} placeholders filled in one pass.
 */
public final class SqlTemplates {
  /** Every capture trigger's name starts with this (MySQL: how installed triggers are found). */
  public static final String TRIGGER_PREFIX = "tablecast_";

  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}");

  private SqlTemplates() {}

  /**
   * Loads a template, drops its leading comment block, fills {@code ${name}} placeholders ({@link
   * #fill}).
   */
  public static String render(String resource, Map<String, String> values) {
    String text;
    try (InputStream in = SqlTemplates.class.getResourceAsStream("sql/" + resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "trigger template io/tablecast/server/capture/sql/" + resource + " is missing");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    StringBuilder body = new StringBuilder();
    boolean header = true;
    for (String line : text.split("\n", -1)) {
      if (header && line.startsWith("--")) {
        continue;
      }
      header = false;
      body.append(line).append('\n');
    }
    return fill(resource, body.toString().strip(), values);
  }

  /**
   * Replaces every {@code ${name}} of {@code template} by its value in one pass over the template:
   * a value is copied as is, never searched for placeholders itself (a column named {@code
   * ${old_row}} stays that name).
   *
   * @throws IllegalStateException naming the template and the placeholder that has no value
   */
  public static String fill(String resource, String template, Map<String, String> values) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder(template.length() + 256);
    while (m.find()) {
      String value = values.get(m.group(1));
      if (value == null) {
        throw new IllegalStateException(
            "template "
                + resource
                + " has the placeholder "
                + m.group()
                + ", which has no value; expected one of "
                + new TreeSet<>(values.keySet()));
      }
      m.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    m.appendTail(out);
    return out.toString();
  }

  /**
   * Splits a rendered script into statements: each top-level statement starts a line with CREATE or
   * DO.
   */
  public static List<String> statements(String script) {
    List<String> out = new ArrayList<>();
    for (String s : script.split(";\\s*\\n(?=CREATE |DO )", -1)) {
      String t = s.strip();
      if (t.endsWith(";")) {
        t = t.substring(0, t.length() - 1);
      }
      if (!t.isEmpty()) {
        out.add(t);
      }
    }
    return out;
  }

  /**
   * The first 8 hex digits of the SHA-256 of {@code text}: ends trigger names, so a changed body
   * gets a new name.
   */
  public static String hash8(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
