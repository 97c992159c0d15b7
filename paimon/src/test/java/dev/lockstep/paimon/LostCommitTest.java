package dev.lockstep.paimon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.fs.s3.testing.S3ProxyServer;
import dev.lockstep.paimon.testing.ConcurrentAppends;
import dev.lockstep.paimon.testing.ConcurrentAppends.ClassPath;
import dev.lockstep.paimon.testing.ConcurrentAppends.Outcome;
import dev.lockstep.paimon.testing.PaimonTables;
import dev.lockstep.paimon.testing.S3Warehouse;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Four JVMs, each a Paimon 1.3.1 filesystem catalog on one s3proxy bucket with no {@code
 * lock.type}, each appending {@code lockstep.paimon.commits} one-row commits (default 200, the
 * issue's size; a smaller number for a quick local run) to one table: on Paimon's own {@code
 * paimon-s3} commits are lost (counted, printed, and recorded in the README); on Lockstep's s3
 * FileIO none is.
 */
class LostCommitTest {

  static final int WRITERS = 4;
  static final int COMMITS = Integer.getInteger("lockstep.paimon.commits", 200);

  private static S3ProxyServer server;

  @BeforeAll
  static void start() throws Exception {
    server = S3ProxyServer.start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void lockstepsS3FileIoLosesNoCommitWithoutALock() throws Exception {
    Map<String, String> options = S3Warehouse.options(server);
    PaimonTables.create(options, "db", "t");

    Outcome outcome =
        ConcurrentAppends.run(ClassPath.LOCKSTEP, WRITERS, COMMITS, options, "db", "t");

    Map<Integer, Set<Integer>> rows = PaimonTables.rows(options, "db", "t");
    long rowsRead = PaimonTables.rowsRead(options, "db", "t");
    int snapshots = PaimonTables.snapshotFiles(options, "db", "t");
    System.out.printf(
        "Lockstep s3, no lock, %d JVMs x %d commits: %d acknowledged, %d failed,"
            + " %d rows read (%d distinct), %d snapshots%n",
        WRITERS,
        COMMITS,
        outcome.ackedCount(),
        outcome.errors().size(),
        rowsRead,
        PaimonTables.rowCount(rows),
        snapshots);
    assertThat(outcome.errors()).isEmpty();
    assertThat(outcome.ackedCount()).isEqualTo(WRITERS * COMMITS);
    assertThat(rows).isEqualTo(outcome.acked());
    assertThat(rowsRead).as("rows read, duplicates included").isEqualTo(WRITERS * COMMITS);
    assertThat(snapshots).isEqualTo(WRITERS * COMMITS);
  }

  /**
   * The default a Paimon user gets: {@code paimon-s3}, whose snapshot commit is a temp file and a
   * copy-and-delete rename, and no lock. The test counts; it asserts only that the count is
   * consistent (rows and snapshots never exceed what landed), since the number of losses depends on
   * timing. The README records the numbers of real runs.
   */
  @Test
  void paimonsOwnS3PathCountsTheCommitsItLoses() throws Exception {
    Map<String, String> options = S3Warehouse.options(server);
    PaimonTables.create(options, "db", "t");

    Outcome outcome =
        ConcurrentAppends.run(ClassPath.PAIMON_S3, WRITERS, COMMITS, options, "db", "t");

    Map<Integer, Set<Integer>> rows = PaimonTables.rows(options, "db", "t");
    int snapshots = PaimonTables.snapshotFiles(options, "db", "t");
    int lost = 0;
    for (Map.Entry<Integer, Set<Integer>> writer : outcome.acked().entrySet()) {
      Set<Integer> missing = new HashSet<>(writer.getValue());
      missing.removeAll(rows.getOrDefault(writer.getKey(), Set.of()));
      lost += missing.size();
    }
    System.out.printf(
        "paimon-s3, no lock, %d JVMs x %d commits: %d reported committed, %d failed,"
            + " %d rows, %d snapshots, %d acknowledged commits lost (%.1f %%)%n",
        WRITERS,
        COMMITS,
        outcome.ackedCount(),
        outcome.errors().size(),
        PaimonTables.rowCount(rows),
        snapshots,
        lost,
        100.0 * lost / Math.max(1, outcome.ackedCount()));
    outcome.errors().stream().limit(5).forEach(System.out::println);
    assertThat(snapshots).isEqualTo(PaimonTables.rowCount(rows));
    assertThat(PaimonTables.rowCount(rows)).isLessThanOrEqualTo(WRITERS * COMMITS);
  }
}
