package io.tablecast.bench;

import io.tablecast.protocol.row.TemporalValues;
import java.time.LocalDate;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What an index by column names pays per row of a DATE or TIMESTAMP column when it is built: one
 * {@link TemporalValues} parse of the row's text, in the form most rows have ({@code 2024-02-29},
 * {@code 2024-02-29T12:34:56.123456}) and in one the regular expression reads ({@code 0044-03-15
 * BC}). No database: run it alone with JMH,
 *
 * <pre>
 * java -cp bench/target/tablecast-bench.jar org.openjdk.jmh.Main TemporalValuesBenchmark -f 1 -wi 3 -w 1s -i 5 -r 1s
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TemporalValuesBenchmark {
  private static final int N = 4096;
  private final String[] dates = new String[N];
  private final String[] dateTimes = new String[N];
  private final String[] datesBc = new String[N];
  private int i;

  @Setup
  public void setUp() {
    for (int k = 0; k < N; k++) {
      LocalDate d = LocalDate.of(2000, 1, 1).plusDays(k * 7L);
      dates[k] = d.toString();
      dateTimes[k] = d + "T12:34:56.123456";
      datesBc[k] = String.format("%04d-%02d-%02d BC", 1 + k % 3000, d.getMonthValue(), 1 + k % 28);
    }
  }

  @Benchmark
  public Object date() {
    return TemporalValues.date(dates[i++ & (N - 1)]);
  }

  @Benchmark
  public Object dateTime() {
    return TemporalValues.dateTime(dateTimes[i++ & (N - 1)]);
  }

  @Benchmark
  public Object dateBc() {
    return TemporalValues.date(datesBc[i++ & (N - 1)]);
  }
}
