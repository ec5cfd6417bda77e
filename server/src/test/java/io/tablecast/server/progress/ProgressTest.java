package io.tablecast.server.progress;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablecast.server.progress.Progress.Output;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The progress line: counts, rate, share and time left; where it goes; its last line. */
class ProgressTest {
  private final AtomicLong clock = new AtomicLong(TimeUnit.SECONDS.toNanos(100));
  private final List<String> terminal = new ArrayList<>();
  private final List<String> log = new ArrayList<>();

  @AfterEach
  void clearProperty() {
    System.clearProperty(Progress.OUTPUT_PROPERTY);
  }

  private Progress progress(String task, String unit, long total, Output output) {
    return new Progress(task, unit, total, output, clock::get, terminal::add, log::add);
  }

  private void seconds(long s) {
    clock.addAndGet(TimeUnit.SECONDS.toNanos(s));
  }

  @Test
  void aKnownTotalShowsTheShareTheRateAndTheTimeLeft() {
    Progress p = progress("install", "statements", 400, Output.TERMINAL);
    p.advance(120);
    seconds(3);
    assertThat(p.line(clock.get()))
        .isEqualTo("install: 120/400 statements (30%), 40 statements/s, ETA 7s");
    p.advance(1_000_000);
    p.total(2_000_000);
    seconds(997);
    assertThat(p.line(clock.get()))
        .isEqualTo("install: 1,000,120/2,000,000 statements (50%), 1,000 statements/s, ETA 16m40s");
  }

  @Test
  void anUnknownTotalShowsTheCountTheRateAndWhatIsBeingDone() {
    Progress p = progress("snapshot", "rows", -1, Output.LOG);
    p.advance(412_000);
    p.detail("public.orders (2 of 5 tables)");
    seconds(8);
    assertThat(p.line(clock.get()))
        .isEqualTo("snapshot: 412,000 rows, 51,500 rows/s, public.orders (2 of 5 tables)");
  }

  @Test
  void nothingDoneYetHasNoEtaAndACountFromASourceIsRead() {
    Progress p = progress("dump shop.orders", "rows", 3_600_000, Output.TERMINAL);
    seconds(1);
    assertThat(p.line(clock.get()))
        .isEqualTo("dump shop.orders: 0/3,600,000 rows (0%), 0 rows/s, ETA ?");
    p.countFrom(() -> 3_000_000, () -> 3_600_001);
    assertThat(p.line(clock.get()))
        .isEqualTo("dump shop.orders: 3,000,000/3,600,001 rows (83%), 3,000,000 rows/s, ETA 0s");
  }

  @Test
  void aTerminalLineIsRedrawnInPlaceAndEndsWithASummaryLine() {
    Progress p = progress("snapshot", "rows", -1, Output.TERMINAL);
    p.advance(50);
    seconds(2);
    p.tick();
    p.advance(150);
    seconds(2);
    p.tick();
    p.close();
    p.tick(); // after close: nothing
    assertThat(terminal)
        .containsExactly(
            "\rsnapshot: 50 rows, 25 rows/s\033[K\r",
            "\rsnapshot: 200 rows, 50 rows/s\033[K\r",
            "\rsnapshot: 200 rows in 4s (50 rows/s)\033[K\n");
    assertThat(log).isEmpty();
  }

  @Test
  void workDoneBeforeTheFirstDrawShowsNothing() {
    Progress p = progress("snapshot", "rows", -1, Output.TERMINAL);
    p.advance(3);
    p.close();
    assertThat(terminal).isEmpty();
  }

  @Test
  void logOutputWritesLinesAndNoTerminalControl() {
    Progress p = progress("snapshot", "rows", -1, Output.LOG);
    p.advance(10);
    seconds(10);
    p.tick();
    p.close();
    assertThat(log).containsExactly("snapshot: 10 rows, 1 rows/s");
    assertThat(terminal).isEmpty();
  }

  @Test
  void offShowsNothing() {
    Progress p = progress("snapshot", "rows", 5, Output.OFF);
    p.advance(5);
    seconds(5);
    p.tick();
    p.close();
    assertThat(terminal).isEmpty();
    assertThat(log).isEmpty();
  }

  @Test
  void theSystemPropertyChoosesTheOutputAndLogIsTheDefault() {
    assertThat(Output.configured()).isEqualTo(Output.LOG);
    System.setProperty(Progress.OUTPUT_PROPERTY, "terminal");
    assertThat(Output.configured()).isEqualTo(Output.TERMINAL);
    System.setProperty(Progress.OUTPUT_PROPERTY, "off");
    assertThat(Output.configured()).isEqualTo(Output.OFF);
    System.setProperty(Progress.OUTPUT_PROPERTY, "bogus");
    assertThat(Output.configured()).isEqualTo(Output.LOG);
  }

  @Test
  void durationsReadAsSecondsMinutesOrHours() {
    assertThat(Progress.duration(7.4)).isEqualTo("7s");
    assertThat(Progress.duration(185)).isEqualTo("3m05s");
    assertThat(Progress.duration(7260)).isEqualTo("2h01m");
  }
}
