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
    List<String[]> conflicts =
        FlinkSinkBench.lines(Paths.get(Args.required(a, "results")), "flink-conflict");
    if (!conflicts.isEmpty()) {
      String[] c0 = conflicts.get(0);
      md.append("\n### Two writing jobs on one table (restarts)\n\n");
      md.append(
          String.format(
              Locale.ROOT,
              "Two streaming `INSERT INTO` jobs, each its own commit user and compaction on (neither"
                  + " write-only), write %s rows each into one primary-key table at once (same table"
                  + " shape, the same key range: both jobs update the same keys in every bucket), at"
                  + " parallelism %s each, a checkpoint every %s ms, fixed-delay restarts (1 s, up to"
                  + " 100); each system in turn. Paimon documents several writing jobs with"
                  + " compaction as unsupported (write-only writers plus one compaction job instead):"
                  + " its committer fails a commit whose compaction conflicts with the other job's"
                  + " files, and the job restarts. Restarts = the highest task attempt number of each"
                  + " job. Keys read = `SELECT COUNT(*)` afterwards (expected: every distinct key of"
                  + " both jobs).\n\n",
              c0[3],
              c0[4],
              c0[6]));
      md.append(
          "| system | round | job 1: s, restarts, checkpoints (failed), outcome |"
              + " job 2: s, restarts, checkpoints (failed), outcome | keys read | load avg before /"
              + " after |\n");
      md.append("|---|---|---|---|---|---|\n");
      for (String[] r : conflicts) {
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s s, %s, %s (%s), %s | %s s, %s, %s (%s), %s | %s%s | %s / %s |\n",
                r[1],
                r[2],
                r[7],
                r[8],
                r[9],
                r[10],
                r[11],
                r[12],
                r[13],
                r[14],
                r[15],
                r[16],
                r[17],
                r[17].equals(r[18]) ? "" : " **(expected " + r[18] + ")**",
                r[19],
                r[20]));
      }
      md.append("\nFirst failure of a job that restarted or did not finish:\n\n");
      for (String[] r : conflicts) {
        md.append("- ")
            .append(r[1])
            .append(" round ")
            .append(r[2])
            .append(": ")
            .append(r.length > 21 ? "`" + r[21].replace("`", "'") + "`" : "-")
            .append("\n");
      }
      md.append("\nFailed checkpoints by reason (Flink's messages, task ids blanked):\n\n");
      for (String[] r : conflicts) {
        md.append("- ")
            .append(r[1])
            .append(" round ")
            .append(r[2])
            .append(": ")
            .append(r.length > 22 ? r[22] : "-")
            .append("\n");
      }
      int lockstepRestarts = conflictRestarts(conflicts, "lockstep");
      int paimonRestarts = conflictRestarts(conflicts, "paimon");
      md.append(
          String.format(
              Locale.ROOT,
              "\nRestarts with two writing jobs: Lockstep %d, Paimon %d. Zero restarts where"
                  + " Paimon restarts: %s.\n",
              lockstepRestarts,
              paimonRestarts,
              paimonRestarts == 0
                  ? "not exercised (Paimon did not restart)"
                  : lockstepRestarts == 0 ? "met" : "not met"));
    }
    if (a.containsKey("note")) {
      md.append("\n").append(a.get("note")).append("\n");
    }
    md.append("\n```\n").append(a.getOrDefault("command", "")).append("\n```\n");
    md.append(history(Paths.get(Args.required(a, "markdown"))));
    md.append(END).append("\n");

    Args.replaceSection(Paths.get(Args.required(a, "markdown")), BEGIN, END, md.toString());
    System.out.print(md);
  }

  /**
   * The section's earlier runs, kept under "### History": the section this run replaces (its main
   * part first, then its own history), so that every run's numbers stay in RESULTS.md.
   */
  static String history(java.nio.file.Path markdown) throws java.io.IOException {
    if (!java.nio.file.Files.exists(markdown)) {
      return "";
    }
    String text = java.nio.file.Files.readString(markdown);
    int b = text.indexOf(BEGIN);
    int e = text.indexOf(END);
    if (b < 0 || e < b) {
      return "";
    }
    String old = text.substring(b + BEGIN.length(), e).strip();
    String marker = "### History";
    int h = old.indexOf(marker);
    String main = (h < 0 ? old : old.substring(0, h)).strip();
    String older = h < 0 ? "" : old.substring(h + marker.length()).strip();
    main = main.replaceFirst("^## 7\\.[^\n]*\n", "").strip().replace("\n### ", "\n##### ");
    return "\n"
        + marker
        + "\n\n#### Previous run\n\n"
        + main
        + "\n"
        + (older.isEmpty() ? "" : "\n" + older + "\n");
  }

  private static int conflictRestarts(List<String[]> runs, String system) {
    int n = 0;
    for (String[] r : runs) {
      if (r[1].equals(system)) {
        n += Integer.parseInt(r[8]) + Integer.parseInt(r[13]);
      }
    }
    return n;
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
