package io.tablecast.protocol.row;

/**
 * A row's bytes do not follow the row form of its layout (truncated, corrupt, or of another
 * layout).
 */
public final class MalformedRowException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  MalformedRowException(String message) {
    super(message);
  }
}
