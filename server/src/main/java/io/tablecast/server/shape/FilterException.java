package io.tablecast.server.shape;

/** A filter that cannot be used, with where in its text (1-based; 0 when not at one place). */
public final class FilterException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final int position;

  FilterException(String message, int position) {
    super(message);
    this.position = position;
  }

  /** Where in the filter's text the problem is, from 1; 0 when it is not at one place. */
  public int position() {
    return position;
  }
}
