package dev.lockstep.bench.flink;

import dev.lockstep.bench.report.Args;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns {@link FlinkSinkBench}'s result lines into the section "6. Flink sink" of RESULTS.md,
 * between the markers {@value #BEGIN} and {@value #END} (replaced when present, appended
 * otherwise). Reports the goal (issue 21: at least 1.3x Paimon's rows/s, zero restarts where Paimon
 * restarts), never asserts it.
 *
 * <p>Columns of a result line: {@code flink-sink, system, round, rows, seconds, rows/s, completed
 * checkpoints, failed checkpoints, checkpoint p50 ms, p99 ms, restarts, load before, load after,
 * keys read back, keys expected, parallelism, buckets, checkpoint interval ms, key range, the
 * failed checkpoints by reason}.
 *
 * <p>Arguments: {@code --results FILE --markdown RESULTS.md --command TEXT}, optionally {@code
 * --note TEXT}.
 */
public final class FlinkSinkReport {

  static final String BEGIN = "<!-- flink-sink:begin -->";
  static final String END = "<!-- flink-sink:end -->";

  private FlinkSinkReport() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    List<String[]> runs = FlinkSinkBench.lines(Paths.get(Args.required(a, "results")));
    if (runs.isEmpty()) {
      throw new IllegalStateException("No flink-sink result lines in " + a.get("results"));
    }
    String[] first = runs.get(0);
    StringBuilder md = new StringBuilder();
    md.append(BEGIN).append("\n## 7. Flink sink: Lockstep vs Paimon 1.3.1 (issue 21)\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "A streaming Flink SQL job (`INSERT INTO t SELECT ...`"
                + " from a `fromSequence` stream) writes %s rows, keys scrambled over [0, %s)"
                + " (later rows update earlier keys) into a primary-key table `(k BIGINT, v BIGINT, s"
                + " STRING)`, %s buckets, compaction on, %s, on one Flink 1.20.3 MiniCluster at"
                + " parallelism %s, a checkpoint every %s ms. Lockstep: `lockstep-flink-1.20` bundle;"
                + " Paimon: `paimon-flink-1.20` 1.3.1; both through their Flink catalogs, runs"
                + " alternating. rows/s = rows / job wall time (submission to finish). Checkpoint"
                + " durations are Flink's end-to-end checkpoint statistics. Restarts = the highest task"
                + " attempt number. Keys read = `SELECT COUNT(*)` in batch afterwards (expected %s).\n\n",
            first[3],
            first[18],
            first[16],
            System.getenv().getOrDefault("FLINK_BENCH_FORMAT", "").isEmpty()
                ? "each system's default data files (Parquet, zstd, in both)"
                : System.getenv("FLINK_BENCH_FORMAT") + " data files in both",
            first[15],
            first[17],
            first[14]));
    md.append(
        "| system | round | seconds | rows/s | checkpoints (failed) | checkpoint p50 ms |"
            + " p99 ms | restarts | load avg before / after | keys read |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (String[] r : runs) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s (%s) | %s | %s | %s |" + " %s / %s | %s%s |\n",
              r[1],
              r[2],
              r[4],
              r[5],
              r[6],
              r[7],
              r[8],
              r[9],
              r[10],
              r[11],
              r[12],
              r[13],
              r[13].equals(r[14]) ? "" : " **(expected " + r[14] + ")**"));
    }
    md.append("\nFailed checkpoints by reason (Flink's messages, task ids blanked):\n\n");
    for (String[] r : runs) {
      md.append("- ")
          .append(r[1])
          .append(" round ")
          .append(r[2])
          .append(": ")
          .append(r.length > 19 ? r[19] : "-")
          .append("\n");
    }
    List<Double> lockstep = rates(runs, "lockstep");
    List<Double> paimon = rates(runs, "paimon");
    md.append("\n");
    if (!lockstep.isEmpty() && !paimon.isEmpty()) {
      List<String> perRound = new ArrayList<>();
      for (int i = 0; i < Math.min(lockstep.size(), paimon.size()); i++) {
        perRound.add(FlinkSinkBench.fmt(lockstep.get(i) / paimon.get(i)) + "x");
      }
      double ratio = median(lockstep) / median(paimon);
      md.append(
          String.format(
              Locale.ROOT,
              "Median rows/s: Lockstep %.0f, Paimon %.0f:"
                  + " **%.2fx** (per round: %s). Restarts: Lockstep %d, Paimon %d. Goal >= 1.3x and zero"
                  + " restarts where Paimon restarts: rows/s %s.\n",
              median(lockstep),
              median(paimon),
              ratio,
              String.join(", ", perRound),
              restarts(runs, "lockstep"),
              restarts(runs, "paimon"),
              ratio >= 1.3 ? "met" : "not met"));
    }
    if (a.containsKey("note")) {
      md.append("\n").append(a.get("note")).append("\n");
    }
    md.append("\n```\n").append(a.getOrDefault("command", "")).append("\n```\n");
    md.append(END).append("\n");

    Args.replaceSection(Paths.get(Args.required(a, "markdown")), BEGIN, END, md.toString());
    System.out.print(md);
  }

  private static List<Double> rates(List<String[]> runs, String system) {
    List<Double> out = new ArrayList<>();
    for (String[] r : runs) {
      if (r[1].equals(system)) {
        out.add(Double.parseDouble(r[5]));
      }
    }
    return out;
  }

  private static int restarts(List<String[]> runs, String system) {
    int n = 0;
    for (String[] r : runs) {
      if (r[1].equals(system)) {
        n += Integer.parseInt(r[10]);
      }
    }
    return n;
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
