package dev.lockstep.bench.report;

import dev.lockstep.bench.Workloads.Contention;
import dev.lockstep.bench.Workloads.Ingest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Lockstep-to-Paimon ratios of one run, keyed by what they compare, so that a rerun can be set
 * beside them. Stored as {@code ratios.csv} next to {@code RESULTS.md}: a {@code #} line saying
 * when the run was made, then {@code name,ratio} lines. Every ratio is oriented so that above 1 is
 * better for Lockstep.
 */
public final class Ratios {

  private final String measured;
  private final Map<String, Double> values;

  public Ratios(String measured, Map<String, Double> values) {
    this.measured = measured;
    this.values = Map.copyOf(values);
  }

  /** The ratios of one run's contention and ingest results. */
  public static Ratios of(String measured, List<Contention> contention, List<Ingest> ingest) {
    Map<String, Double> values = new LinkedHashMap<>();
    for (Contention l : contention) {
      if (!l.system().equals("lockstep")) {
        continue;
      }
      for (Contention p : contention) {
        if (p.system().equals("paimon")
            && p.table().equals(l.table())
            && p.committers() == l.committers()) {
          String at = l.table() + " K=" + l.committers();
          values.put(at + " commits/s", l.commitsPerSecond() / p.commitsPerSecond());
          values.put(at + " p99", p.p99Millis() / l.p99Millis());
        }
      }
    }
    Ingest li = null;
    Ingest pi = null;
    for (Ingest i : ingest) {
      li = i.system().equals("lockstep") ? i : li;
      pi = i.system().equals("paimon") ? i : pi;
    }
    if (li != null && pi != null) {
      values.put("ingest rows/s", li.rowsPerSecond() / pi.rowsPerSecond());
      values.put("scan rows/s", li.scanRowsPerSecond() / pi.scanRowsPerSecond());
    }
    return new Ratios(measured, values);
  }

  public String measured() {
    return measured;
  }

  public Map<String, Double> values() {
    return values;
  }

  public void write(Path file) throws IOException {
    StringBuilder csv = new StringBuilder("# ").append(measured).append('\n');
    new java.util.TreeMap<>(values)
        .forEach(
            (k, v) ->
                csv.append(k)
                    .append(',')
                    .append(String.format(Locale.ROOT, "%.4f", v))
                    .append('\n'));
    Files.writeString(file, csv);
  }

  public static Ratios read(Path file) throws IOException {
    String measured = "an earlier run";
    Map<String, Double> values = new LinkedHashMap<>();
    for (String line : Files.readAllLines(file)) {
      if (line.startsWith("# ")) {
        measured = line.substring(2).trim();
      } else if (!line.isBlank()) {
        int comma = line.lastIndexOf(',');
        values.put(line.substring(0, comma), Double.parseDouble(line.substring(comma + 1)));
      }
    }
    return new Ratios(measured, values);
  }

  /**
   * A markdown section setting this run's ratios beside {@code previous}'s: each ratio, the change
   * relative to the previous run, and how many moved by more than 30%.
   */
  public String compareWith(Ratios previous) {
    StringBuilder md = new StringBuilder();
    md.append("\n## Rerun variance\n\n");
    md.append(
            "The same ratios (above 1 is better for Lockstep) in this run and in the previous run"
                + " written to the same directory (")
        .append(previous.measured())
        .append(
            "). Change ="
                + " this / previous - 1; the issue asks for reruns within about 30%.\n\n");
    md.append("| ratio | previous run | this run | change |\n|---|---|---|---|\n");
    List<Double> changes = new ArrayList<>();
    for (Map.Entry<String, Double> e : new java.util.TreeMap<>(values).entrySet()) {
      Double before = previous.values().get(e.getKey());
      if (before == null || before == 0) {
        continue;
      }
      double change = e.getValue() / before - 1;
      changes.add(Math.abs(change));
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.2fx | %.2fx | %s%+.0f%%%s |%n",
              e.getKey(),
              before,
              e.getValue(),
              Math.abs(change) > 0.3 ? "**" : "",
              100 * change,
              Math.abs(change) > 0.3 ? "**" : ""));
    }
    if (!changes.isEmpty()) {
      long within = changes.stream().filter(c -> c <= 0.3).count();
      changes.sort(null);
      md.append(
          String.format(
              Locale.ROOT,
              "%n%d of %d ratios within 30%% of the previous run;"
                  + " median change %.0f%%, largest %.0f%%.%n",
              within,
              changes.size(),
              100 * changes.get(changes.size() / 2),
              100 * changes.get(changes.size() - 1)));
    }
    return md.toString();
  }
}
