import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The database server's CPU per execution of each of a few statements, run one after the other on
 * one connection, the statements alternated round by round: what one more column or statement in
 * the tail's read costs the database. PostgreSQL: the connection's backend's CPU; MySQL/MariaDB:
 * every thread of the server process ({@code mariadbd} or {@code mysqld}, which must be on this
 * machine). A statement may be several, separated by {@code ;} (the URL must then allow them).
 *
 * <pre>
 * java -cp ~/.m2/repository/org/mariadb/jdbc/mariadb-java-client/3.5.5/mariadb-java-client-3.5.5.jar \
 *   bench/scripts/StatementCost.java 'jdbc:mariadb://127.0.0.1:3306/test?user=root&password=&allowMultiQueries=true' \
 *   3000 10 'SELECT 1' 'SELECT 1; SELECT @@server_id, CONNECTION_ID()'
 * </pre>
 *
 * Prints each round's µs of server CPU per execution, then the median of each statement.
 */
public class StatementCost {
  public static void main(String[] args) throws Exception {
    String url = args[0];
    int executions = Integer.parseInt(args[1]);
    int rounds = Integer.parseInt(args[2]);
    List<String> statements = List.of(args).subList(3, args.length);
    try (Connection c = DriverManager.getConnection(url)) {
      List<Path> threads = threadsOf(c, url);
      List<List<Double>> costs = new ArrayList<>();
      statements.forEach(s -> costs.add(new ArrayList<>()));
      for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < statements.size(); k++) {
          long before = cpuNanos(threads);
          try (Statement s = c.createStatement()) {
            for (int i = 0; i < executions; i++) {
              drain(s, s.execute(statements.get(k)));
            }
          }
          double micros = (cpuNanos(threads) - before) / 1000.0 / executions;
          costs.get(k).add(micros);
          System.out.printf("round %d, statement %d: %.1f us%n", round + 1, k + 1, micros);
        }
      }
      for (int k = 0; k < statements.size(); k++) {
        List<Double> sorted = costs.get(k).stream().sorted().toList();
        double median =
            (sorted.get((sorted.size() - 1) / 2) + sorted.get(sorted.size() / 2)) / 2;
        System.out.printf("median %.1f us: %s%n", median, statements.get(k));
      }
    }
  }

  private static void drain(Statement s, boolean resultSet) throws Exception {
    boolean more = resultSet;
    while (true) {
      if (more) {
        try (ResultSet rs = s.getResultSet()) {
          while (rs.next()) {
            // read every row
          }
        }
      } else if (s.getUpdateCount() == -1) {
        return;
      }
      more = s.getMoreResults();
    }
  }

  /** The schedstat files of the threads whose CPU is the database's answer. */
  private static List<Path> threadsOf(Connection c, String url) throws Exception {
    if (url.startsWith("jdbc:postgresql:")) {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        return List.of(Path.of("/proc/" + rs.getLong(1) + "/schedstat"));
      }
    }
    Process p = new ProcessBuilder("pgrep", "-o", "-x", "mariadbd|mysqld").start();
    String pid = new String(p.getInputStream().readAllBytes()).trim();
    if (pid.isEmpty()) {
      throw new IllegalStateException("no mariadbd or mysqld process on this machine");
    }
    List<Path> threads = new ArrayList<>();
    try (var dir = Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
      dir.forEach(t -> threads.add(t.resolve("schedstat")));
    }
    return threads;
  }

  private static long cpuNanos(List<Path> threads) throws Exception {
    long sum = 0;
    for (Path t : threads) {
      if (Files.exists(t)) {
        sum += Long.parseLong(Files.readString(t).split(" ")[0]);
      }
    }
    return sum;
  }
}
