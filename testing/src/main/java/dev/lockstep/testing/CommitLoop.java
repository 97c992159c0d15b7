package dev.lockstep.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.commit.SnapshotCommitter;
import dev.lockstep.commit.SnapshotContent;
import dev.lockstep.commit.SnapshotLog;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * A committer's loop as a table writer runs it, for tests only: commit at latest+1 and, on a
 * conflict, move on to the next id. Each snapshot carries a fresh commit id ({@link #commitIdOf}),
 * so a test can check that every acknowledged commit is in exactly one snapshot ({@link
 * #assertEachCommitOnce}).
 *
 * <ul>
 *   <li>{@link #commitOnce}: any failure ends the commit (the store is expected to stay up).
 *   <li>{@link #commitThroughFailures}: on an unknown outcome or a failure (a NameNode restarting)
 *       waits and decides by reading the snapshot back, never by guessing.
 * </ul>
 */
public final class CommitLoop {

  private static final String COMMIT_ID = "\"commitId\":\"";

  private CommitLoop() {}

  /** Commits one snapshot for {@code user}; returns its unique commit id. Failures propagate. */
  public static String commitOnce(SnapshotCommitter committer, String user, int identifier)
      throws IOException, InterruptedException {
    String commitId = commitId(user, identifier);
    SnapshotContent content = SnapshotContent.of(snapshot(commitId, user, identifier));
    long next = committer.log().latestId().orElse(0) + 1;
    while (!committer.commit(next, content).committed()) {
      next++;
    }
    return commitId;
  }

  /**
   * Commits one snapshot for {@code user} through store failures and unknown outcomes (settled by
   * reading the snapshot back); returns its unique commit id.
   */
  public static String commitThroughFailures(
      SnapshotCommitter committer, String user, int identifier)
      throws IOException, InterruptedException {
    String commitId = commitId(user, identifier);
    byte[] bytes = snapshot(commitId, user, identifier);
    SnapshotContent content = SnapshotContent.of(bytes);
    SnapshotLog log = committer.log();
    long id = -1;
    for (int attempt = 0; attempt < 10_000; attempt++) {
      try {
        if (id < 0) {
          id = log.latestId().orElse(0) + 1;
        }
        if (committer.commit(id, content).committed()) {
          return commitId;
        }
        id = -1;
      } catch (CommitStateUnknownException | java.net.ConnectException e) {
        Thread.sleep(100);
        id = settle(log, id, bytes);
        if (id == 0) {
          return commitId;
        }
      } catch (IOException e) {
        Thread.sleep(100);
        if (id > 0) {
          id = settle(log, id, bytes);
          if (id == 0) {
            return commitId;
          }
        }
      }
    }
    throw new IllegalStateException("No progress committing " + commitId);
  }

  /**
   * After an unknown outcome at {@code id}: 0 when snapshot {@code id} is ours, {@code id} to try
   * the same id again when it is absent, -1 to rebase when another commit owns it.
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

  private static String commitId(String user, int identifier) {
    return user + "-" + identifier + "-" + UUID.randomUUID();
  }

  /** The bytes of a snapshot carrying {@code commitId}, as {@link #commitOnce} writes them. */
  public static byte[] snapshot(String commitId, String user, int identifier) {
    return ("{\"commitId\":\""
            + commitId
            + "\",\"commitUser\":\""
            + user
            + "\",\"commitIdentifier\":"
            + identifier
            + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The commit id inside a snapshot written by this loop. */
  public static String commitIdOf(byte[] snapshot) {
    String text = new String(snapshot, StandardCharsets.UTF_8);
    int start = text.indexOf(COMMIT_ID) + COMMIT_ID.length();
    return text.substring(start, text.indexOf('"', start));
  }

  /**
   * After a race of {@link CommitLoop} committers: the snapshots in {@code snapshots} are exactly
   * 1..{@code expected}, each carries another commit id, and those are exactly the {@code
   * committed} ones (no acknowledged commit lost, none in two snapshots).
   */
  public static void assertEachCommitOnce(
      FileIO store, Path snapshots, Set<String> committed, int expected) throws IOException {
    SnapshotLog log = new SnapshotLog(store, snapshots);
    List<Long> ids = log.listIds();
    List<Long> contiguous = new ArrayList<>();
    for (long id = 1; id <= expected; id++) {
      contiguous.add(id);
    }
    assertThat(ids).as("snapshot ids in %s", store.list(snapshots)).isEqualTo(contiguous);
    Set<String> inSnapshots = new HashSet<>();
    for (long id : ids) {
      assertThat(inSnapshots.add(commitIdOf(log.read(id))))
          .as("commit id of snapshot %d appears once", id)
          .isTrue();
    }
    assertThat(inSnapshots).isEqualTo(committed);
    assertThat(log.latestId()).hasValue(expected);
  }
}
