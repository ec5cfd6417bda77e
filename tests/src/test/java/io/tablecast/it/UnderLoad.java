package io.tablecast.it;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;

/** What the randomized tests under load share: their threads, and DDL queued behind a reader. */
final class UnderLoad {

  private UnderLoad() {}

  /** Work of one thread of a test under load. */
  interface Work {
    void run() throws Exception;
  }

  /** A thread (not started) that runs {@code work} and adds what it throws to {@code errors}. */
  static Thread thread(List<Throwable> errors, Work work) {
    return new Thread(
        () -> {
          try {
            work.run();
          } catch (Exception | Error e) {
            errors.add(e);
          }
        });
  }

  /**
   * Runs {@code ddl} while an open transaction that has read {@code table} holds it for {@code
   * holdMillis}: the DDL waits meanwhile, and every later read of the table waits behind it. A DDL
   * statement the database refuses is left.
   */
  static void ddlQueuedBehindAReader(Pipeline p, String table, String ddl, long holdMillis)
      throws Exception {
    try (Connection reader = p.connect()) {
      reader.setAutoCommit(false);
      try (Statement s = reader.createStatement()) {
        s.executeQuery("SELECT * FROM " + table).close();
      }
      Thread queued =
          new Thread(
              () -> {
                try {
                  p.sql(ddl);
                } catch (IllegalStateException refused) {
                  // the state was not what the statement needs
                }
              });
      queued.start();
      Thread.sleep(holdMillis); // the DDL waits meanwhile
      reader.commit();
      queued.join();
    }
  }
}
