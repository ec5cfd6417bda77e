package io.tablecast.bench;

import java.util.Collection;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/** Runs a JMH benchmark class of this module for one database, in a fork of its own. */
final class JmhRuns {
  private JmhRuns() {}

  /** Warm-up and measured iterations of 1 s each: fewer with {@code --quick}. */
  static int[] iterations(Options o) {
    return o.quick() ? new int[] {3, 5} : new int[] {5, 10};
  }

  /** Every method of {@code benchmark} with its {@code db} parameter set to {@code db}. */
  static Collection<RunResult> run(Class<?> benchmark, Db db, int[] iterations)
      throws RunnerException {
    return new Runner(
            new OptionsBuilder()
                .include(benchmark.getName() + "\\.")
                .param("db", db.name().toLowerCase(Locale.ROOT))
                .forks(1)
                .warmupIterations(iterations[0])
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(iterations[1])
                .measurementTime(TimeValue.seconds(1))
                .jvmArgsAppend("-Xmx2g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .verbosity(VerboseMode.NORMAL)
                .shouldFailOnError(true)
                .build())
        .run();
  }
}
