package io.tablecast.server.shape;

import java.util.List;

/**
 * The tokens of one filter's text ({@link FilterTokens}) and how far {@link FilterParser} has read
 * them, with the errors that name a token's position.
 */
final class TokenCursor {

  private final String text;
  private final List<FilterTokens.Token> tokens;
  private int next;

  /**
   * @throws FilterException at the first character of {@code text} that starts no token
   */
  TokenCursor(String text) {
    this.text = text;
    this.tokens = FilterTokens.of(text);
  }

  /** The next token, not taken ({@code END} at the end). */
  FilterTokens.Token peek() {
    return tokens.get(next);
  }

  /** Takes the next token. */
  void skip() {
    next++;
  }

  /** Takes the next token when it is the keyword {@code word}, in any case. */
  boolean keyword(String word) {
    FilterTokens.Token t = peek();
    if (t.kind() == FilterTokens.Kind.NAME && t.text().equalsIgnoreCase(word)) {
      next++;
      return true;
    }
    return false;
  }

  /** Takes the next token when it is of {@code kind}. */
  boolean accept(FilterTokens.Kind kind) {
    if (peek().kind() == kind) {
      next++;
      return true;
    }
    return false;
  }

  /** Takes the next token, which must be of {@code kind} ({@code what} says it in the error). */
  void expect(FilterTokens.Kind kind, String what) {
    if (!accept(kind)) {
      throw error("expected " + what, peek());
    }
  }

  /** The error {@code message} at the position of {@code at}. */
  FilterException error(String message, FilterTokens.Token at) {
    return FilterTokens.error(text, message, at.position());
  }
}
