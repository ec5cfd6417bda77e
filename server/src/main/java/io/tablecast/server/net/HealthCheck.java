package io.tablecast.server.net;

/** What {@code GET /health} reports: UP, or DOWN with a reason; and how many tables are stale. */
@FunctionalInterface
public interface HealthCheck {

  /**
   * What {@code GET /health} answers.
   *
   * @param status {@code UP} (HTTP 200) or {@code DOWN} (HTTP 503)
   * @param reason why it is DOWN; null when UP
   * @param staleTables how many cached tables the server knows its mirrors may differ from (they
   *     are named in the metrics and to the clients that read them, not to anyone who asks)
   */
  record Report(String status, String reason, int staleTables) {
    public static final Report UP = new Report("UP", null, 0);

    public boolean up() {
      return "UP".equals(status);
    }

    public static Report down(String reason) {
      return new Report("DOWN", reason, 0);
    }

    /** This report, with {@code count} stale tables. */
    public Report withStaleTables(int count) {
      return new Report(status, reason, count);
    }
  }

  Report check();

  /** Always UP (tests, embedded servers without a tail loop). */
  static HealthCheck alwaysUp() {
    return () -> Report.UP;
  }
}
