package dev.lockstep.fs.s3;

import dev.lockstep.commit.CommitOutcome;
import dev.lockstep.commit.SnapshotCommitter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** A committer's loop as an engine runs it: take the next id, and on conflict move on to the next. */
final class CommitLoop {

  private CommitLoop() {}

  /** Commits one snapshot for {@code user}; returns its unique commit id. */
  static String commitOnce(SnapshotCommitter committer, String user, int identifier)
      throws IOException, InterruptedException {
    String commitId = user + "-" + identifier + "-" + UUID.randomUUID();
    byte[] content = snapshot(commitId, user, identifier);
    long next = committer.log().latestId().orElse(0) + 1;
    while (committer.commit(next, content) != CommitOutcome.COMMITTED) {
      next++;
    }
    return commitId;
  }

  static byte[] snapshot(String commitId, String user, int identifier) {
    return ("{\"commitId\":\"" + commitId + "\",\"commitUser\":\"" + user
        + "\",\"commitIdentifier\":" + identifier + "}").getBytes(StandardCharsets.UTF_8);
  }

  static String commitIdOf(byte[] snapshot) {
    String text = new String(snapshot, StandardCharsets.UTF_8);
    int start = text.indexOf("\"commitId\":\"") + "\"commitId\":\"".length();
    return text.substring(start, text.indexOf('"', start));
  }
}
