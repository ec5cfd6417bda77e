package io.tablecast.server.capture;

/**
 * A configured table the catalog does not know: never created, dropped, renamed away, or not
 * visible to the user ({@link InaccessibleTableException} when the catalog can tell that). Refused
 * at start like any other problem; while serving, its mirrors are stale and the tail leaves it out
 * until it exists again.
 */
public class MissingTableException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public MissingTableException(TableId id) {
    this(id, java.util.List.of());
  }

  /**
   * @param alike tables named as {@code id} but for case or quotes ({@link Catalog#namedAlike}),
   *     named in the message as what was probably meant
   */
  public MissingTableException(TableId id, java.util.List<String> alike) {
    this(
        "table "
            + id.qualified()
            + " does not exist (or is not visible to this user)"
            + (alike.isEmpty()
                ? ""
                : "; "
                    + String.join(", ", alike)
                    + (alike.size() == 1 ? " is" : " are")
                    + " named alike: cached_tables names a table as the catalog does, in its case"
                    + " and without quotes"),
        "table "
            + id.qualified()
            + " no longer exists (or is not visible to this user, dropped or renamed away): the"
            + " mirror keeps its last rows, and follows it again once it exists again");
  }

  /**
   * @param whileServing what a mirror of the table is told while the server runs ({@link
   *     #whileServing})
   */
  protected MissingTableException(String message, String whileServing) {
    super(message);
    this.whileServing = whileServing;
  }

  private final String whileServing;

  /** Why a mirror of the table is stale when this is found while the server runs. */
  public String whileServing() {
    return whileServing;
  }
}
