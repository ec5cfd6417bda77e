package io.tablecast.server.shape;

import java.util.ArrayList;
import java.util.List;

/** The tokens of a filter's text, each with its position (from 1), ending with {@code END}. */
final class FilterTokens {

  enum Kind {
    NAME,
    QUOTED_NAME,
    NUMBER,
    STRING,
    OPERATOR,
    PARAMETER,
    LEFT,
    RIGHT,
    COMMA,
    DOT,
    END
  }

  /** A token: its kind, its text (a string's or quoted name's without quotes) and position. */
  record Token(Kind kind, String text, int position) {}

  private FilterTokens() {}

  /**
   * The tokens of {@code text}.
   *
   * @throws FilterException at the first character that starts no token
   */
  static List<Token> of(String text) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      int start = i;
      if (Character.isWhitespace(c)) {
        i++;
      } else if (Character.isLetter(c) || c == '_') {
        while (i < n && (Character.isLetterOrDigit(text.charAt(i)) || text.charAt(i) == '_')) {
          i++;
        }
        out.add(new Token(Kind.NAME, text.substring(start, i), start + 1));
      } else if (Character.isDigit(c)
          || ((c == '-' || c == '.') && i + 1 < n && Character.isDigit(text.charAt(i + 1)))) {
        i = number(text, i);
        out.add(new Token(Kind.NUMBER, text.substring(start, i), start + 1));
      } else if (c == '\'' || c == '"') {
        StringBuilder value = new StringBuilder();
        i++;
        while (true) {
          if (i >= n) {
            throw error(
                text,
                (c == '\'' ? "a text" : "a quoted name") + " is not closed with " + c,
                start + 1);
          }
          char d = text.charAt(i++);
          if (d == c) {
            if (i < n && text.charAt(i) == c) {
              value.append(c);
              i++;
            } else {
              break;
            }
          } else {
            value.append(d);
          }
        }
        out.add(new Token(c == '\'' ? Kind.STRING : Kind.QUOTED_NAME, value.toString(), start + 1));
      } else if (c == '?') {
        i++;
        out.add(new Token(Kind.PARAMETER, "?", start + 1));
      } else if (c == '$' && i + 1 < n && Character.isDigit(text.charAt(i + 1))) {
        i++;
        while (i < n && Character.isDigit(text.charAt(i))) {
          i++;
        }
        if (i - start > 5) {
          throw error(text, "parameter number too large", start + 1);
        }
        out.add(new Token(Kind.PARAMETER, text.substring(start + 1, i), start + 1));
      } else if (c == '.') {
        i++;
        out.add(new Token(Kind.DOT, ".", i));
      } else if (c == '(' || c == ')' || c == ',') {
        i++;
        out.add(new Token(c == '(' ? Kind.LEFT : c == ')' ? Kind.RIGHT : Kind.COMMA, "" + c, i));
      } else if (c == '=' || c == '<' || c == '>' || c == '!') {
        i++;
        if (i < n && (text.charAt(i) == '=' || (c == '<' && text.charAt(i) == '>'))) {
          i++;
        }
        String op = text.substring(start, i);
        if (op.equals("!")) {
          throw error(text, "'!' must be followed by '='", start + 1);
        }
        out.add(new Token(Kind.OPERATOR, op, start + 1));
      } else {
        throw error(text, "unexpected character '" + c + "'", start + 1);
      }
    }
    out.add(new Token(Kind.END, "", n + 1));
    return out;
  }

  /** The end of the number starting at {@code i}: {@code -?digits[.digits][e[+-]digits]}. */
  private static int number(String text, int i) {
    int n = text.length();
    if (text.charAt(i) == '-') {
      i++;
    }
    while (i < n && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
      i++;
    }
    if (i < n && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      int e = i + 1;
      if (e < n && (text.charAt(e) == '+' || text.charAt(e) == '-')) {
        e++;
      }
      if (e < n && Character.isDigit(text.charAt(e))) {
        i = e;
        while (i < n && Character.isDigit(text.charAt(i))) {
          i++;
        }
      }
    }
    return i;
  }

  /**
   * A {@link FilterException} at {@code position} (from 1), its message showing the text with a
   * caret under the position.
   */
  static FilterException error(String text, String message, int position) {
    String shown = text.length() > 120 ? text.substring(0, 120) + "..." : text;
    String caret =
        position >= 1 && position <= shown.length() + 1 ? " ".repeat(position - 1) + "^" : "";
    return new FilterException(
        "filter, position " + position + ": " + message + "\n  " + shown + "\n  " + caret,
        position);
  }
}
