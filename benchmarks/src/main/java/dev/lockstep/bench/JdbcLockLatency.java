package dev.lockstep.bench;

import dev.lockstep.bench.jmh.ScratchDirectory;
import dev.lockstep.commit.CommitOptions;
import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.lock.LockOptions;
import dev.lockstep.lock.LockService;
import dev.lockstep.lock.LockServiceDiscovery;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Commit latency under the JDBC lock with K writers (issue 25): each writer is a client of its own
 * (its own {@code LockService} and pool, as separate processes would be) committing snapshots of
 * one table on the local store with {@code commit.strategy=lock}, as fast as it can. One commit is
 * one {@link SnapshotCommitter#holding} call that reads the latest snapshot id and commits the
 * next: the wait for the lock plus the locked commit, what a writer pays per commit. Every
 * configuration ({@code lock.jdbc.wait} = {@code poll}, the behaviour before issue 25, or {@code
 * database}) runs on the machine's MariaDB and PostgreSQL with the default {@code
 * lock-check-max-sleep} (8 s) and lease TTL (60 s).
 *
 * <p>Prints a Markdown table: database, wait, writers, commits, commits/s, the fewest and most
 * commits of one writer (a writer starved by the others shows here: the percentiles are over all
 * commits, so the writer that keeps the lock and commits most weighs most), p50, p99 and max
 * latency (ms). Every commit that starts inside the measured window, which opens after the warm-up,
 * counts with its whole latency: writers start no commit after the window but finish the one they
 * are in, so a writer starved for longer than the window still shows in the tail.
 */
public final class JdbcLockLatency {

  private static final Map<String, String[]> DATABASES =
      Map.of(
          "mariadb", new String[] {"jdbc:mariadb://127.0.0.1:3306/test", "root"},
          "postgresql", new String[] {"jdbc:postgresql://127.0.0.1:5432/test", "postgres"});

  private JdbcLockLatency() {}

  public static void main(String[] args) throws Exception {
    List<String> databases = List.of("mariadb", "postgresql");
    List<String> waits = List.of("poll", "database");
    List<Integer> writers = List.of(4, 8);
    int seconds = 20;
    int warmupSeconds = 3;
    for (int i = 0; i < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--databases" -> databases = List.of(value.split(","));
        case "--waits" -> waits = List.of(value.split(","));
        case "--writers" ->
            writers = Arrays.stream(value.split(",")).map(Integer::valueOf).toList();
        case "--seconds" -> seconds = Integer.parseInt(value);
        case "--warmup-seconds" -> warmupSeconds = Integer.parseInt(value);
        default ->
            throw new IllegalArgumentException(
                "Unknown argument '"
                    + args[i]
                    + "'; known:"
                    + " --databases, --waits, --writers, --seconds, --warmup-seconds");
      }
    }
    System.out.println(
        "| database | lock.jdbc.wait | writers | commits | commits/s"
            + " | per writer | p50 ms | p99 ms | max ms |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (String database : databases) {
      for (int k : writers) {
        for (String wait : waits) {
          List<LatencyRecorder> writersLatencies = run(database, wait, k, warmupSeconds, seconds);
          LatencyRecorder latencies = new LatencyRecorder();
          writersLatencies.forEach(latencies::addAll);
          IntSummaryStatistics perWriter =
              writersLatencies.stream().mapToInt(LatencyRecorder::count).summaryStatistics();
          System.out.printf(
              Locale.ROOT,
              "| %s | %s | %d | %d | %.1f | %d-%d | %.1f | %.1f | %.1f |%n",
              database,
              wait,
              k,
              latencies.count(),
              latencies.count() / (double) seconds,
              perWriter.getMin(),
              perWriter.getMax(),
              latencies.percentileMillis(50),
              latencies.percentileMillis(99),
              latencies.maxMillis());
        }
      }
    }
  }

  /** One configuration: the latencies of each writer. */
  private static List<LatencyRecorder> run(
      String database, String wait, int writers, int warmupSeconds, int seconds) throws Exception {
    String[] server = DATABASES.get(database);
    if (server == null) {
      throw new IllegalArgumentException(
          "Unknown database '" + database + "'; known: " + DATABASES.keySet());
    }
    String table =
        "lockstep_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    Map<String, String> options = new HashMap<>();
    options.put(LockOptions.LOCK_ENABLED, "true");
    options.put(LockOptions.LOCK_TYPE, "jdbc");
    options.put("lock.jdbc.url", server[0]);
    options.put("lock.jdbc.user", server[1]);
    options.put("lock.jdbc.table", table);
    options.put("lock.jdbc.wait", wait);
    options.put(CommitOptions.COMMIT_STRATEGY, "lock");
    Path directory = ScratchDirectory.create("lockstep-jdbc-latency-");
    LocalFileIO store = new LocalFileIO();
    List<LockService> services = new ArrayList<>();
    List<SnapshotCommitter> committers = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(writers);
    try {
      for (int i = 0; i < writers; i++) {
        LockService service = LockServiceDiscovery.open(options);
        services.add(service);
        committers.add(
            SnapshotCommitter.builder(
                    store,
                    dev.lockstep.fs.Path.of(directory.resolve("snapshot").toString()),
                    "bench.t")
                .options(CommitOptions.from(options))
                .lockService(service)
                .build());
      }
      long start = System.nanoTime();
      long measureFrom = start + warmupSeconds * 1_000_000_000L;
      long measureTo = measureFrom + seconds * 1_000_000_000L;
      List<Future<LatencyRecorder>> results = new ArrayList<>();
      for (SnapshotCommitter committer : committers) {
        results.add(
            threads.submit(
                () -> {
                  LatencyRecorder mine = new LatencyRecorder();
                  while (System.nanoTime() < measureTo) {
                    long began = System.nanoTime();
                    CommitOutcome outcome =
                        committer.holding(
                            () -> {
                              long next = committer.log().latestId().orElse(0) + 1;
                              byte[] content =
                                  ("{\"id\":"
                                          + next
                                          + ",\"commitId\":\""
                                          + UUID.randomUUID()
                                          + "\"}")
                                      .getBytes(StandardCharsets.UTF_8);
                              return committer.commit(next, SnapshotContent.of(content)).outcome();
                            });
                    long ended = System.nanoTime();
                    if (outcome != CommitOutcome.COMMITTED) {
                      throw new IllegalStateException(
                          "A commit under the lock conflicted: "
                              + outcome
                              + " (only the holder commits, so this must never happen)");
                    }
                    if (began >= measureFrom) {
                      mine.record(ended - began);
                    }
                  }
                  return mine;
                }));
      }
      List<LatencyRecorder> all = new ArrayList<>();
      for (Future<LatencyRecorder> result : results) {
        all.add(result.get());
      }
      return all;
    } finally {
      threads.shutdownNow();
      for (SnapshotCommitter committer : committers) {
        committer.close();
      }
      for (LockService service : services) {
        service.close();
      }
      store.close();
      try (Connection admin = DriverManager.getConnection(server[0], server[1], "");
          Statement statement = admin.createStatement()) {
        statement.execute("DROP TABLE IF EXISTS " + table);
      }
      ScratchDirectory.delete(directory);
    }
  }
}
