package dev.lockstep.engine.commit;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Fairness between optimistic committers, best effort: a committer that lost a snapshot race on a
 * lock-free strategy (or on a free lock) claims priority in {@code snapshot/PRIORITY} ("millis
 * losses user"), unless another user's fresh claim has more losses; other committers, before each
 * attempt, yield to a fresh claim of another user with at least their own losses until the claimant
 * releases it (after it committed, or when it starts backing off on a contended lock) or a short
 * time passes.
 *
 * <p>The hint never affects safety (every publish still goes through the commit protocol) and is
 * never trusted for long: a claim older than {@link #FRESH_MILLIS} is ignored and a yield lasts at
 * most {@link #MAX_YIELD_MILLIS}, so a crashed claimant delays others by that much at most. Without
 * it, a committer racing steady writers loses each race with a fixed probability: measured with 8
 * committers in a tight loop on 2 cores, commits lost up to 37–53 races in a row without the claim
 * and at most 7–9 with it (16 committers: at most 14, about one race per other committer).
 */
final class ContentionHint {

  static final String FILE_NAME = "PRIORITY";
  static final long FRESH_MILLIS = 1000;
  static final long MAX_YIELD_MILLIS = 100;
  static final long POLL_MILLIS = 2;

  private final FileIO fileIO;
  private final Path file;
  private final Path snapshotDirectory;
  private final String commitUser;
  private boolean claimed;

  ContentionHint(FileIO fileIO, Path snapshotDirectory, String commitUser) {
    this.fileIO = fileIO;
    this.snapshotDirectory = snapshotDirectory;
    this.file = snapshotDirectory.child(FILE_NAME);
    this.commitUser = commitUser;
  }

  /**
   * Claims priority after {@code losses} conflicts in a row, unless another user's fresh claim has
   * more. Failures are ignored.
   */
  void claim(int losses) {
    String[] current = read();
    if (current != null
        && !current[2].equals(commitUser)
        && fresh(current)
        && Integer.parseInt(current[1]) >= losses) {
      return;
    }
    try (OutputStream out = fileIO.newOutputStream(file, true)) {
      out.write(
          (System.currentTimeMillis() + " " + losses + " " + commitUser)
              .getBytes(StandardCharsets.UTF_8));
      claimed = true;
    } catch (IOException ignored) {
      // Only fairness is lost.
    }
  }

  /** Removes our claim after we committed, when it is still ours. Failures are ignored. */
  void release() {
    if (!claimed) {
      return;
    }
    claimed = false;
    String[] claim = read();
    if (claim != null && claim[2].equals(commitUser)) {
      try {
        fileIO.delete(file, false);
      } catch (IOException ignored) {
        // It goes stale on its own.
      }
    }
  }

  private static boolean fresh(String[] claim) {
    long age = System.currentTimeMillis() - Long.parseLong(claim[0]);
    return age >= 0 && age <= FRESH_MILLIS;
  }

  /**
   * Waits while another user holds a fresh claim with at least {@code losses} losses, until that
   * claim is released or replaced by another user's, at most {@link #MAX_YIELD_MILLIS}.
   *
   * @param losses our own conflicts in a row in this commit
   * @return whether it waited (the caller then catches up before its attempt)
   */
  boolean yieldToClaimant(int losses) throws InterruptedIOException {
    String[] claim = read();
    if (claim == null
        || claim[2].equals(commitUser)
        || !fresh(claim)
        || Integer.parseInt(claim[1]) < losses) {
      return false;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_YIELD_MILLIS);
    try {
      while (System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        String[] now = read();
        if (now == null || !now[2].equals(claim[2])) {
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while yielding to " + claim[2]);
    }
    return true;
  }

  /** {millis, losses, user} of the current claim, or {@code null}. */
  private String[] read() {
    try (InputStream in = fileIO.newInputStream(file)) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      in.transferTo(bytes);
      String[] parts = bytes.toString(StandardCharsets.UTF_8).split(" ", 3);
      if (parts.length != 3) {
        return null;
      }
      Long.parseLong(parts[0]);
      Integer.parseInt(parts[1]);
      return parts;
    } catch (IOException | NumberFormatException e) {
      return null;
    }
  }
}
