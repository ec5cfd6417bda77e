package io.tablecast.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * The report being built: sections of Markdown (text, tables, PNG charts) written to {@code
 * <out>/REPORT.md}. Figures add a {@link Section} each. Thread-safe.
 */
public final class Report {
  private final Path outDir;
  private final List<Section> sections = new ArrayList<>();
  private String header = "";

  public Report(Path outDir) {
    this.outDir = outDir;
  }

  public Path outDir() {
    return outDir;
  }

  public synchronized void header(String markdown) {
    header = markdown;
  }

  public synchronized Section section(String title) {
    Section s = new Section(title);
    sections.add(s);
    return s;
  }

  /**
   * Writes REPORT.md (again: called after every figure, so a partial run still leaves a report).
   */
  public synchronized Path write() throws IOException {
    Files.createDirectories(outDir);
    StringBuilder sb = new StringBuilder(header).append('\n');
    for (Section s : sections) {
      sb.append("## ").append(s.title).append("\n\n").append(s.body).append('\n');
    }
    Path p = outDir.resolve("REPORT.md");
    Files.writeString(p, sb.toString());
    return p;
  }

  /** One titled part of the report. */
  public final class Section {
    private final String title;
    private final StringBuilder body = new StringBuilder();

    private Section(String title) {
      this.title = title;
    }

    public Section text(String markdown) {
      synchronized (Report.this) {
        body.append(markdown).append("\n\n");
      }
      return this;
    }

    public Section table(List<String> headers, List<List<String>> rows) {
      return text(markdownTable(headers, rows));
    }

    /** Saves the chart as {@code <out>/<fileName>.png} and links it. */
    public Section chart(String fileName, Chart<?, ?> chart) {
      try {
        Files.createDirectories(outDir);
        BitmapEncoder.saveBitmap(
            chart, outDir.resolve(fileName).toString(), BitmapEncoder.BitmapFormat.PNG);
        return text("![" + title + "](" + fileName + ".png)");
      } catch (IOException | RuntimeException e) {
        return text("_(chart " + fileName + " could not be drawn: " + e + ")_");
      }
    }
  }

  public static String markdownTable(List<String> headers, List<List<String>> rows) {
    StringBuilder sb = new StringBuilder("| ").append(String.join(" | ", headers)).append(" |\n|");
    for (int i = 0; i < headers.size(); i++) {
      sb.append(i == 0 ? " --- |" : " ---: |");
    }
    sb.append('\n');
    for (List<String> r : rows) {
      sb.append("| ").append(String.join(" | ", r)).append(" |\n");
    }
    return sb.toString();
  }

  /**
   * Puts a bar chart's Y axis on a log scale. XChart anchors bar charts at zero, which a log axis
   * refuses, so the axis starts at the power of ten at or below the smallest positive value.
   */
  public static void logYAxis(CategoryChart chart) {
    double min = Double.MAX_VALUE;
    for (CategorySeries series : chart.getSeriesMap().values()) {
      for (Number n : series.getYData()) {
        if (n != null && n.doubleValue() > 0) {
          min = Math.min(min, n.doubleValue());
        }
      }
    }
    chart.getStyler().setYAxisLogarithmic(true);
    chart
        .getStyler()
        .setYAxisMin(min == Double.MAX_VALUE ? 1 : Math.pow(10, Math.floor(Math.log10(min))));
  }

  public static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a >= 100) {
      return String.format("%,.0f", v);
    }
    if (a >= 10) {
      return String.format("%.1f", v);
    }
    if (a >= 0.1) {
      return String.format("%.2f", v);
    }
    return String.format("%.3g", v);
  }
}
