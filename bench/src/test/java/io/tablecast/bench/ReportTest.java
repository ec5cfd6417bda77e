package io.tablecast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

class ReportTest {
  static {
    System.setProperty("java.awt.headless", "true");
  }

  @TempDir Path dir;

  @Test
  void logScaleBarChartIsDrawnWithItsAxisStartingBelowTheSmallestBar() throws Exception {
    CategoryChart chart = new CategoryChartBuilder().width(400).height(300).build();
    chart.addSeries("mirror", List.of("MariaDB", "PostgreSQL"), List.of(31.0, 46.6));
    chart.addSeries("jdbc", List.of("MariaDB", "PostgreSQL"), List.of(35_904.0, 212_913.0));
    Report.logYAxis(chart);
    Report report = new Report(dir);

    report.section("reads").chart("reads", chart);
    report.write();

    assertThat(chart.getStyler().getYAxisMin()).isEqualTo(10.0);
    assertThat(dir.resolve("reads.png")).isRegularFile();
    assertThat(Files.readString(dir.resolve("REPORT.md")))
        .contains("![reads](reads.png)")
        .doesNotContain("could not be drawn");
  }
}
