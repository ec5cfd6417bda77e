package io.tablecast.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ProcessAgeTest {

  @Test
  void theStartLineSaysHowLongTheProcessHasRunNotOnlyTheServersOwnPartAndNoMore() {
    long before = ManagementFactory.getRuntimeMXBean().getUptime();
    String described = ProcessAge.describe();
    long after = ManagementFactory.getRuntimeMXBean().getUptime();
    assertThat(described).matches("\\d+ ms since the process started");
    long age = Long.parseLong(described.substring(0, described.indexOf(' ')));
    // this test's JVM was started by Maven without a launcher script: the process is as old as the
    // JVM, to a tick or two (10 ms each). The JDK's ProcessHandle start instant read early by the
    // boot time's lost fraction of a second (1,500 ms here against the JVM's 1,029).
    assertThat(age).isBetween(before - 20, after + 150);
  }

  @Test
  void theAgeIsTheUptimeLessTheStartTicksWhateverTheCommandsName() {
    String stat =
        "4242 (java (tc) x) S 1 4242 4242 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 27 0 12345 1000 100 18";
    assertThat(ProcessAge.millis(stat, "130.25 200.00\n")).hasValue(130_250 - 123_450);
  }

  @Test
  void whatDoesNotReadAsStatAndUptimeGivesNoAge() {
    String stat = "4242 (java) S 1 4242 4242 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 27 0 12345 10 1";
    assertThat(ProcessAge.millis("4242 java S 1", "130.25 1")).isEmpty();
    assertThat(ProcessAge.millis("4242 (java) S 1 2 3", "130.25 1")).isEmpty();
    assertThat(ProcessAge.millis(stat, "")).isEmpty();
    assertThat(ProcessAge.millis(stat, "up")).isEmpty();
    assertThat(ProcessAge.millis(stat, "100.00 1")).isEqualTo(OptionalLong.empty()); // before start
  }
}
