package io.tablecast.server.net;

/** What {@code GET /health} reports: UP, or DOWN with a reason. */
@FunctionalInterface
public interface HealthCheck {

  /**
   * @param status {@code UP} (HTTP 200) or {@code DOWN} (HTTP 503)
   * @param reason why it is DOWN; null when UP
   */
  record Report(String status, String reason) {
    public static final Report UP = new Report("UP", null);

    public boolean up() {
      return "UP".equals(status);
    }

    public static Report down(String reason) {
      return new Report("DOWN", reason);
    }
  }

  Report check();

  /** Always UP (tests, embedded servers without a tail loop). */
  static HealthCheck alwaysUp() {
    return () -> Report.UP;
  }
}
