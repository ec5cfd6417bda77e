package io.tablecast.protocol;

/**
 * The kind of a row change. The one-letter codes are stable and stored in the outbox's {@code op}
 * column; on the wire (both encodings) the operation travels by its name ({@code "INSERT"}, {@code
 * "UPDATE"}, {@code "DELETE"}).
 */
public enum Op {
  INSERT('I'),
  UPDATE('U'),
  DELETE('D');

  private final char code;

  Op(char code) {
    this.code = code;
  }

  /** The one-letter code used in the outbox. */
  public char code() {
    return code;
  }

  /**
   * Looks up an operation by its code.
   *
   * @throws IllegalArgumentException naming the unknown code
   */
  public static Op forCode(char code) {
    switch (code) {
      case 'I':
        return INSERT;
      case 'U':
        return UPDATE;
      case 'D':
        return DELETE;
      default:
        throw new IllegalArgumentException(
            "unknown operation code '" + code + "', expected one of I, U, D");
    }
  }

  /** Looks up an operation by its one-letter code given as a string. */
  public static Op forCode(String code) {
    if (code == null || code.length() != 1) {
      throw new IllegalArgumentException(
          "operation code must be one letter (I, U or D), was " + code);
    }
    return forCode(code.charAt(0));
  }
}
