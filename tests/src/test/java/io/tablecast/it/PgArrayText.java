package io.tablecast.it;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Parses PostgreSQL's text form of an array ({@code {1,NULL,"a \"b\""}}, nested for several
 * dimensions) into lists, each element converted by a function; NULL elements stay null. Elements
 * are separated by commas (every type of the tests; {@code box} would use semicolons).
 */
final class PgArrayText {
  private final String text;
  private int pos;

  private PgArrayText(String text) {
    this.text = text;
  }

  static List<Object> parse(String text, Function<String, Object> element) {
    PgArrayText p = new PgArrayText(text);
    if (text.startsWith("[")) { // explicit bounds: [0:1]={...}
      p.pos = text.indexOf('=') + 1;
    }
    return p.array(element);
  }

  private List<Object> array(Function<String, Object> element) {
    expect('{');
    List<Object> out = new ArrayList<>();
    if (text.charAt(pos) == '}') {
      pos++;
      return out;
    }
    while (true) {
      char c = text.charAt(pos);
      if (c == '{') {
        out.add(array(element));
      } else if (c == '"') {
        out.add(element.apply(quoted()));
      } else {
        int end = pos;
        while (text.charAt(end) != ',' && text.charAt(end) != '}') {
          end++;
        }
        String token = text.substring(pos, end).trim();
        pos = end;
        out.add(token.equals("NULL") ? null : element.apply(token));
      }
      char next = text.charAt(pos++);
      if (next == '}') {
        return out;
      }
      if (next != ',') {
        throw new IllegalArgumentException(
            "unexpected '" + next + "' at " + (pos - 1) + " in array " + text);
      }
    }
  }

  private String quoted() {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = text.charAt(pos++);
      if (c == '"') {
        return sb.toString();
      }
      sb.append(c == '\\' ? text.charAt(pos++) : c);
    }
  }

  private void expect(char c) {
    if (text.charAt(pos) != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + pos + " in array " + text);
    }
    pos++;
  }
}
