package dev.lockstep.cli;

import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The writers of one stress process: {@code writers} threads, each its own commit user, each
 * committing {@code commits} batches of {@code rows} rows with identifiers 1, 2, 3... Every commit
 * is recorded in the process's result file for the parent to verify.
 *
 * <p>When the engine gives up a commit (its retry budget is spent) or cannot tell whether it
 * landed, the writer commits the same identifier again: the engine makes that idempotent, so a
 * commit is never lost or doubled. Such give-ups are counted and reported.
 *
 * <p>As a child process: {@code StressWorker <config-file> <process-index> <result-file>}; it
 * prints one {@code commit} line per commit (the parent's progress) and exits 0, or prints one
 * error line and exits 3.
 */
public final class StressWorker {

  static final String WRITER_PREFIX = "stress-writer-";
  private static final int MAX_GIVE_UPS = 1000;

  private StressWorker() {}

  public static void main(String[] args) {
    try {
      StressConfig config = StressConfig.read(Path.of(args[0]));
      int process = Integer.parseInt(args[1]);
      run(
          config,
          process,
          Path.of(args[2]),
          () -> {
            synchronized (System.out) {
              System.out.println("commit");
              System.out.flush();
            }
          });
      System.exit(0);
    } catch (Throwable t) {
      System.err.println("stress worker failed: " + OneLineErrors.describe(t));
      System.exit(3);
    }
  }

  /** Runs this process's writers to the end and writes their records to {@code resultFile}. */
  static void run(StressConfig config, int process, Path resultFile, Runnable onCommit)
      throws Exception {
    try (StressTable opened = StressTable.open(config);
        BufferedWriter results = Files.newBufferedWriter(resultFile, StandardCharsets.UTF_8)) {
      FileStoreTable table = opened.table();
      CyclicBarrier start = new CyclicBarrier(config.writers());
      ExecutorService pool = Executors.newFixedThreadPool(config.writers());
      List<Future<Void>> writers = new ArrayList<>();
      for (int w = 0; w < config.writers(); w++) {
        int writer = w;
        writers.add(
            pool.submit(
                () -> {
                  runWriter(config, table, process, writer, start, results, onCommit);
                  return null;
                }));
      }
      try {
        for (Future<Void> f : writers) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  private static void runWriter(
      StressConfig config,
      FileStoreTable table,
      int process,
      int writer,
      CyclicBarrier start,
      BufferedWriter results,
      Runnable onCommit)
      throws Exception {
    String user = WRITER_PREFIX + process + "-" + writer;
    SplittableRandom random = new SplittableRandom(31L * process + writer);
    long valueBase = (process * 1_000L + writer) * 1_000_000_000L;
    try (TableWrite write = table.newWrite(user);
        TableCommit commit = table.newCommit(user)) {
      start.await();
      for (int c = 1; c <= config.commits(); c++) {
        if (config.deadlineMillis() > 0 && System.currentTimeMillis() >= config.deadlineMillis()) {
          break;
        }
        int[] keys = new int[config.rows()];
        long[] values = new long[config.rows()];
        for (int r = 0; r < config.rows(); r++) {
          keys[r] = random.nextInt(config.keySpace());
          values[r] = valueBase + (long) c * config.rows() + r;
          write.write(GenericRow.of(keys[r], values[r], user));
        }
        List<CommitMessage> messages = write.prepareCommit();
        long t0 = System.nanoTime();
        int giveUps = 0;
        CommitResult result;
        while (true) {
          try {
            result = commit.commit(c, messages);
            break;
          } catch (CommitFailedException e) {
            giveUps = giveUp(giveUps, e);
          } catch (IOException e) {
            // Includes an unknown commit state: committing the same identifier again is a no-op
            // when it landed, and commits it when it did not.
            giveUps = giveUp(giveUps, e);
            Thread.sleep(50);
          }
        }
        long latency = System.nanoTime() - t0;
        CommitRecord record =
            new CommitRecord(
                user,
                c,
                result.dataSnapshotId(),
                latency,
                result.retries(),
                giveUps,
                result.droppedCompactions().size(),
                keys,
                values);
        synchronized (results) {
          results.write(record.toLine());
          results.newLine();
          results.flush();
        }
        onCommit.run();
      }
    }
  }

  private static int giveUp(int giveUps, Exception e) throws Exception {
    if (giveUps + 1 >= MAX_GIVE_UPS) {
      throw e;
    }
    return giveUps + 1;
  }

  /** Identifier of the stress table from {@code database.table}. */
  static Identifier identifier(String table) {
    return Identifier.parse(table);
  }
}
