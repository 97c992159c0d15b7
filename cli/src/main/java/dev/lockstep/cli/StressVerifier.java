package dev.lockstep.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.snapshot.CommitKind;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/** Checks a finished stress run against the table and reports what it measured. */
final class StressVerifier {

  private StressVerifier() {}

  /** What the dedicated compaction job did. */
  static final class Compaction {
    final AtomicLong commits = new AtomicLong();
    final AtomicLong fileConflicts = new AtomicLong();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
  }

  /** The verdict and the numbers. */
  record Report(
      boolean ok,
      List<String> problems,
      long commits,
      long expectedCommits,
      double seconds,
      double commitsPerSecond,
      double p50Millis,
      double p99Millis,
      double maxMillis,
      long retries,
      long giveUps,
      long compactionsDropped,
      long compactionFileConflicts,
      long dedicatedCompactions,
      long snapshots,
      long appendSnapshots,
      long compactSnapshots,
      int keys) {

    String toText() {
      StringBuilder sb = new StringBuilder();
      sb.append(
          String.format(
              Locale.ROOT, "  commits          %d of %d planned%n", commits, expectedCommits));
      sb.append(
          String.format(
              Locale.ROOT,
              "  throughput       %.1f commits/s over %.1f s%n",
              commitsPerSecond,
              seconds));
      sb.append(
          String.format(
              Locale.ROOT,
              "  commit latency   p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
              p50Millis,
              p99Millis,
              maxMillis));
      sb.append(
          String.format(
              Locale.ROOT,
              "  retries          %d snapshot conflicts rebased;"
                  + " %d commits re-sent after the engine gave up%n",
              retries,
              giveUps));
      sb.append(
          String.format(
              Locale.ROOT,
              "  conflicts        %d compactions dropped after a file"
                  + " conflict and redone; %d in the dedicated job%n",
              compactionsDropped,
              compactionFileConflicts));
      sb.append(
          String.format(
              Locale.ROOT,
              "  snapshots        %d (%d APPEND, %d COMPACT)%n",
              snapshots,
              appendSnapshots,
              compactSnapshots));
      if (ok) {
        sb.append(
            String.format(
                Locale.ROOT,
                "  verdict          OK: every commit is in exactly one"
                    + " snapshot, every commit id is unique, and the table equals the model (%d keys)",
                keys));
      } else {
        sb.append("  verdict          FAILED:");
        for (String p : problems) {
          sb.append(System.lineSeparator()).append("    - ").append(p);
        }
      }
      return sb.toString();
    }

    String toJson() {
      ObjectNode root = Json.object();
      root.put("ok", ok);
      root.put("commits", commits);
      root.put("expectedCommits", expectedCommits);
      root.put("seconds", Json.threeDecimals(seconds));
      root.put("commitsPerSecond", Json.threeDecimals(commitsPerSecond));
      root.putObject("commitLatencyMillis")
          .put("p50", Json.threeDecimals(p50Millis))
          .put("p99", Json.threeDecimals(p99Millis))
          .put("max", Json.threeDecimals(maxMillis));
      root.put("retries", retries);
      root.put("giveUps", giveUps);
      root.put("conflictsResolved", compactionsDropped + compactionFileConflicts);
      root.put("snapshots", snapshots);
      root.put("appendSnapshots", appendSnapshots);
      root.put("compactSnapshots", compactSnapshots);
      root.put("keys", keys);
      ArrayNode list = root.putArray("problems");
      problems.forEach(list::add);
      return Json.write(root);
    }
  }

  static Report verify(
      StressConfig config, List<Path> resultFiles, double seconds, Compaction compaction)
      throws IOException {
    List<CommitRecord> records = new ArrayList<>();
    for (Path file : resultFiles) {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          records.add(CommitRecord.parse(line));
        }
      }
    }
    List<String> problems = new ArrayList<>();
    try (StressTable opened = StressTable.open(config)) {
      FileStoreTable table = opened.table();
      SnapshotManager snapshots = table.snapshotManager();
      Map<String, Long> appendSnapshotOf = new HashMap<>();
      Set<String> commitIds = new HashSet<>();
      long total = 0;
      long appends = 0;
      long compacts = 0;
      OptionalLong earliest = snapshots.earliestId();
      OptionalLong latest = snapshots.latestId();
      if (earliest.isPresent() && earliest.getAsLong() != 1) {
        problems.add(
            "snapshots before "
                + earliest.getAsLong()
                + " are gone (expired during the"
                + " run?), so the run cannot be checked from snapshot 1");
      }
      for (long id = earliest.orElse(1); latest.isPresent() && id <= latest.getAsLong(); id++) {
        Snapshot s = snapshots.get(id);
        total++;
        if (!commitIds.add(s.commitId())) {
          problems.add("commit id " + s.commitId() + " appears in more than one snapshot");
        }
        if (s.commitKind() == CommitKind.COMPACT) {
          compacts++;
        }
        if (s.commitKind() == CommitKind.APPEND
            && s.commitUser().startsWith(StressWorker.WRITER_PREFIX)) {
          appends++;
          Long previous = appendSnapshotOf.put(s.commitUser() + "#" + s.commitIdentifier(), id);
          if (previous != null) {
            problems.add(
                "commit "
                    + s.commitUser()
                    + "#"
                    + s.commitIdentifier()
                    + " is in two snapshots: "
                    + previous
                    + " and "
                    + id);
          }
        }
      }
      Set<String> reported = new HashSet<>();
      for (CommitRecord r : records) {
        String key = r.user() + "#" + r.identifier();
        if (!reported.add(key)) {
          problems.add("commit " + key + " was reported twice by its writer");
        }
        if (!appendSnapshotOf.containsKey(key)) {
          problems.add("commit " + key + " was acknowledged but is in no snapshot (lost)");
        }
      }
      for (String key : appendSnapshotOf.keySet()) {
        if (!reported.contains(key)) {
          problems.add(
              "snapshot "
                  + appendSnapshotOf.get(key)
                  + " holds commit "
                  + key
                  + ", which no writer acknowledged");
        }
      }
      records.sort(
          Comparator.comparingLong(
              r -> appendSnapshotOf.getOrDefault(r.user() + "#" + r.identifier(), Long.MAX_VALUE)));
      Map<Integer, Long> model = new HashMap<>();
      for (CommitRecord r : records) {
        for (int i = 0; i < r.keys().length; i++) {
          model.put(r.keys()[i], r.values()[i]);
        }
      }
      Map<Integer, Long> actual = new HashMap<>();
      for (GenericRow row : table.newRead().readAll(table.newScan().plan())) {
        Integer k = (Integer) row.get(0);
        if (actual.put(k, (Long) row.get(1)) != null) {
          problems.add("key " + k + " appears more than once in a merged read");
        }
      }
      if (!actual.equals(model)) {
        int wrong = 0;
        String example = null;
        Set<Integer> all = new HashSet<>(model.keySet());
        all.addAll(actual.keySet());
        for (Integer k : all) {
          if (!java.util.Objects.equals(model.get(k), actual.get(k))) {
            wrong++;
            if (example == null) {
              example = "key " + k + ": expected " + model.get(k) + ", read " + actual.get(k);
            }
          }
        }
        problems.add("the table differs from the model in " + wrong + " keys (" + example + ")");
      }
      LatencyStats latency = new LatencyStats(records);
      long retries = records.stream().mapToLong(CommitRecord::retries).sum();
      long giveUps = records.stream().mapToLong(CommitRecord::giveUps).sum();
      long dropped = records.stream().mapToLong(CommitRecord::droppedCompactions).sum();
      long expected = (long) config.writers() * config.processes() * config.commits();
      if (config.deadlineMillis() == 0 && records.size() != expected) {
        problems.add(records.size() + " commits acknowledged, " + expected + " planned");
      }
      if (compaction.failure.get() != null) {
        problems.add("the dedicated compaction job failed: " + compaction.failure.get());
      }
      return new Report(
          problems.isEmpty(),
          problems,
          records.size(),
          expected,
          seconds,
          records.size() / Math.max(seconds, 1e-9),
          latency.percentile(50),
          latency.percentile(99),
          latency.percentile(100),
          retries,
          giveUps,
          dropped,
          compaction.fileConflicts.get(),
          compaction.commits.get(),
          total,
          appends,
          compacts,
          actual.size());
    }
  }

  /** Commit latency percentiles in milliseconds, nearest rank. */
  private static final class LatencyStats {
    private final long[] sorted;

    LatencyStats(List<CommitRecord> records) {
      sorted = records.stream().mapToLong(CommitRecord::latencyNanos).sorted().toArray();
    }

    double percentile(double p) {
      if (sorted.length == 0) {
        return 0;
      }
      int rank = (int) Math.ceil(p / 100.0 * sorted.length);
      return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] / 1e6;
    }
  }
}
