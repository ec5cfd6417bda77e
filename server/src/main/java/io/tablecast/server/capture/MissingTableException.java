package io.tablecast.server.capture;

/**
 * A configured table the catalog does not know: never created, dropped, renamed away, or not
 * visible to the user. Refused at start like any other problem; while serving, its mirrors are
 * stale and the tail leaves it out until it exists again.
 */
public final class MissingTableException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public MissingTableException(TableId id) {
    this(id, java.util.List.of());
  }

  /**
   * @param alike tables named as {@code id} but for case or quotes ({@link Catalog#namedAlike}),
   *     named in the message as what was probably meant
   */
  public MissingTableException(TableId id, java.util.List<String> alike) {
    super(
        "table "
            + id.qualified()
            + " does not exist (or is not visible to this user)"
            + (alike.isEmpty()
                ? ""
                : "; "
                    + String.join(", ", alike)
                    + (alike.size() == 1 ? " is" : " are")
                    + " named alike: cached_tables names a table as the catalog does, in its case"
                    + " and without quotes"));
  }
}
