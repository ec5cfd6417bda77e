package io.tablecast.server.capture;

/**
 * A configured table that exists but that the server's user has no privilege on, which the catalog
 * views a dialect reads ({@code information_schema}) hide as if it did not exist. Refused at start
 * with the grant that lets the user read it; while serving, its mirrors are stale as for a table
 * gone, until the user may read it again.
 */
public final class InaccessibleTableException extends MissingTableException {
  private static final long serialVersionUID = 1L;

  /**
   * @param user the user the server connects as
   * @param grant the statement that gives it SELECT on the table
   */
  public InaccessibleTableException(TableId id, String user, String grant) {
    super(
        "table "
            + id.qualified()
            + " exists, but "
            + user
            + ", the user this configuration connects as, has no privilege on it: "
            + grant
            + " (docs/SECURITY.md lists every grant serving needs)",
        "table "
            + id.qualified()
            + " can no longer be read by "
            + user
            + " (its privileges were revoked): the mirror keeps its last rows, and follows it"
            + " again once the user may read it");
  }
}
