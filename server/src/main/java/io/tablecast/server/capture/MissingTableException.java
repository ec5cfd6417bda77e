package io.tablecast.server.capture;

/**
 * A configured table the catalog does not know: never created, dropped, renamed away, or not
 * visible to the user. Refused at start like any other problem; while serving, its mirrors are
 * stale and the tail leaves it out until it exists again.
 */
public final class MissingTableException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public MissingTableException(TableId id) {
    super("table " + id.qualified() + " does not exist (or is not visible to this user)");
  }
}
