package dev.lockstep.fs.hdfs;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotLog;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;

/**
 * One committer's loop as a table writer runs it: commit at latest+1; on conflict rebase and retry; on
 * an unknown state or a failure (NameNode down), wait and decide by reading the snapshot back, never by
 * guessing.
 */
final class CommitLoop {

  private CommitLoop() {}

  /** Commits one snapshot carrying a fresh commit id; returns the commit id. */
  static String commitOnce(SnapshotCommitter committer, String user, int sequence)
      throws IOException, InterruptedException {
    String commitId = user + "/" + sequence + "/" + UUID.randomUUID();
    byte[] content = ("{\"commitId\":\"" + commitId + "\"}").getBytes(StandardCharsets.UTF_8);
    SnapshotLog log = committer.log();
    long id = -1;
    for (int attempt = 0; attempt < 10_000; attempt++) {
      try {
        if (id < 0) {
          id = log.latestId().orElse(0) + 1;
        }
        CommitOutcome outcome = committer.commit(id, content);
        if (outcome == CommitOutcome.COMMITTED) {
          return commitId;
        }
        id = -1;
      } catch (CommitStateUnknownException | java.net.ConnectException e) {
        Thread.sleep(100);
        id = settle(log, id, content);
        if (id == 0) {
          return commitId;
        }
      } catch (IOException e) {
        Thread.sleep(100);
        if (id > 0) {
          id = settle(log, id, content);
          if (id == 0) {
            return commitId;
          }
        }
      }
    }
    throw new IllegalStateException("No progress committing " + commitId);
  }

  /**
   * After an unknown outcome at {@code id}: 0 when snapshot {@code id} is ours, {@code id} to try the
   * same id again when it is absent, -1 to rebase when another commit owns it.
   */
  private static long settle(SnapshotLog log, long id, byte[] content) throws InterruptedException {
    while (true) {
      try {
        byte[] found = log.read(id);
        return Arrays.equals(found, content) ? 0 : -1;
      } catch (FileNotFoundException e) {
        return id;
      } catch (IOException e) {
        Thread.sleep(200);
      }
    }
  }

  /** The commit id inside a snapshot written by {@link #commitOnce}. */
  static String commitIdOf(byte[] snapshot) {
    String text = new String(snapshot, StandardCharsets.UTF_8);
    return text.substring("{\"commitId\":\"".length(), text.length() - 2);
  }
}
