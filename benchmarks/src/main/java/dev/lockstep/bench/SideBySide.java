package dev.lockstep.bench;

import dev.lockstep.bench.Workloads.Contention;
import dev.lockstep.bench.Workloads.FileConflicts;
import dev.lockstep.bench.Workloads.Ingest;
import dev.lockstep.bench.lockstep.LockstepSystem;
import dev.lockstep.bench.paimon.PaimonSystem;
import dev.lockstep.bench.report.LatencyPlot;
import dev.lockstep.bench.report.ResultsReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs workloads 1 to 3 of issue 12 for every system, alternating which system goes first in each
 * configuration, and writes {@code RESULTS.md} and {@code commit-latency.svg}.
 *
 * <pre>
 * SideBySide [--out DIR] [--systems lockstep,paimon] [--writers 1,2,4,8]
 *            [--contention-seconds 8] [--conflict-seconds 20] [--ingest-rows 2000000]
 *            [--commit-every 100000] [--work DIR] [--command TEXT]
 * </pre>
 */
public final class SideBySide {

  private SideBySide() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = parse(args);
    Path out = Path.of(a.getOrDefault("out", "benchmarks"));
    Path work = Path.of(a.getOrDefault("work", System.getProperty("java.io.tmpdir")))
        .resolve("lockstep-bench-" + System.currentTimeMillis());
    List<BenchSystem> systems = new ArrayList<>();
    for (String name : a.getOrDefault("systems", "lockstep,paimon").split(",")) {
      systems.add(system(name.trim()));
    }
    int[] writers = Arrays.stream(a.getOrDefault("writers", "1,2,4,8").split(","))
        .mapToInt(s -> Integer.parseInt(s.trim())).toArray();
    Duration contentionTime = Duration.ofSeconds(Long.parseLong(
        a.getOrDefault("contention-seconds", "8")));
    Duration conflictTime = Duration.ofSeconds(Long.parseLong(
        a.getOrDefault("conflict-seconds", "20")));
    int ingestRows = Integer.parseInt(a.getOrDefault("ingest-rows", "2000000"));
    int commitEvery = Integer.parseInt(a.getOrDefault("commit-every", "100000"));

    long t0 = System.nanoTime();
    List<Contention> contention = new ArrayList<>();
    int config = 0;
    for (int k : writers) {
      for (boolean pk : new boolean[] {false, true}) {
        TableSpec spec = pk ? TableSpec.primaryKey(4, true, 5) : TableSpec.append(4, true);
        for (BenchSystem system : alternate(systems, config++)) {
          Contention c = Workloads.contention(system, spec, k, 100, contentionTime,
              work.resolve("contention-" + system.name() + "-" + k + (pk ? "-pk" : "-append")));
          System.out.printf("contention %-8s %-22s K=%d: %6.1f commits/s p50 %6.1f ms p99 %7.1f ms"
              + " max %7.1f ms retries/commit %.2f failed %d%n", c.system(), c.table(), k,
              c.commitsPerSecond(), c.p50Millis(), c.p99Millis(), c.maxMillis(),
              c.retriesPerCommit(), c.failedCommits());
          contention.add(c);
        }
      }
    }
    List<FileConflicts> conflicts = new ArrayList<>();
    for (BenchSystem system : alternate(systems, config++)) {
      FileConflicts f = Workloads.fileConflicts(system, conflictTime,
          work.resolve("conflicts-" + system.name()));
      System.out.printf("conflicts  %-8s commits %d failed %d restarts %d correct %s%n", f.system(),
          f.commits(), f.failedCommits(), f.restarts(), f.tableCorrect());
      conflicts.add(f);
    }
    List<Ingest> ingest = new ArrayList<>();
    for (BenchSystem system : alternate(systems, config++)) {
      Ingest i = Workloads.ingest(system, ingestRows, commitEvery,
          work.resolve("ingest-" + system.name()));
      System.out.printf("ingest     %-8s %d rows in %.1f s (%.0f rows/s); scan %.2f s (%.0f rows/s)%n",
          i.system(), i.rows(), i.ingestSeconds(), i.rowsPerSecond(), i.scanSeconds(),
          i.scanRowsPerSecond());
      ingest.add(i);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;

    Map<String, String> versions = new LinkedHashMap<>();
    for (BenchSystem system : systems) {
      versions.put(system.name(), system.version());
    }
    String command = a.getOrDefault("command", "SideBySide " + String.join(" ", args));
    Files.createDirectories(out);
    List<Contention> append = contention.stream().filter(c -> c.table().equals("append")).toList();
    Files.writeString(out.resolve("commit-latency.svg"),
        LatencyPlot.svg("Commit latency, append table, write-only, local store", append));
    Files.writeString(out.resolve("RESULTS.md"), ResultsReport.markdown(new ResultsReport.Run(
        command, versions, contention, conflicts, ingest, seconds), "commit-latency.svg"));
    System.out.println("Wrote " + out.resolve("RESULTS.md") + " and "
        + out.resolve("commit-latency.svg"));
    deleteRecursively(work);
  }

  static BenchSystem system(String name) {
    switch (name) {
      case "paimon":
        return new PaimonSystem();
      case "lockstep":
        return new LockstepSystem();
      default:
        throw new IllegalArgumentException("Unknown system '" + name + "'; known: lockstep, paimon");
    }
  }

  /** The systems in an order that alternates with {@code config}, so neither always runs first. */
  private static List<BenchSystem> alternate(List<BenchSystem> systems, int config) {
    List<BenchSystem> order = new ArrayList<>(systems);
    if (config % 2 == 1) {
      java.util.Collections.reverse(order);
    }
    return order;
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("Expected --name value pairs, got '" + args[i] + "'");
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
