package dev.lockstep.engine.commit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import java.nio.file.Files;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The priority claim between optimistic committers ({@link ContentionHint}), on the real local
 * store: who may claim over whom, whose claim a release deletes, and when a committer yields. Found
 * unchecked by mutation testing (scripts/mutation).
 */
class ContentionHintTest {

  @TempDir java.nio.file.Path dir;
  private final LocalFileIO io = new LocalFileIO();

  private ContentionHint hint(String user) {
    return new ContentionHint(io, Path.of(dir.toString()), user);
  }

  private java.nio.file.Path file() {
    return dir.resolve(ContentionHint.FILE_NAME);
  }

  private String[] claim() throws Exception {
    return Files.exists(file()) ? Files.readString(file(), UTF_8).split(" ", 3) : null;
  }

  private void claimOf(String user, int losses, long ageMillis) throws Exception {
    Files.writeString(file(), (System.currentTimeMillis() - ageMillis) + " " + losses + " " + user);
  }

  @Test
  void aClaimNamesItsUserAndLossesAndItsReleaseDeletesIt() throws Exception {
    ContentionHint a = hint("a");
    a.claim(3);
    assertThat(claim()).containsExactly(claim()[0], "3", "a");
    long age = System.currentTimeMillis() - Long.parseLong(claim()[0]);
    assertThat(age).isBetween(0L, 5_000L);
    a.release();
    assertThat(file()).doesNotExist();
  }

  @Test
  void anotherUsersFreshClaimWithAsManyLossesIsKept() throws Exception {
    claimOf("b", 3, 0);
    hint("a").claim(3);
    assertThat(claim()[2]).isEqualTo("b");
    // Fewer losses than ours: ours replaces it.
    claimOf("b", 2, 0);
    hint("a").claim(3);
    assertThat(claim()[2]).isEqualTo("a");
    assertThat(claim()[1]).isEqualTo("3");
  }

  @Test
  void aStaleOrFutureClaimIsReplaced() throws Exception {
    claimOf("b", 9, ContentionHint.FRESH_MILLIS + 2_000);
    hint("a").claim(1);
    assertThat(claim()[2]).isEqualTo("a");
    claimOf("b", 9, -60_000); // a clock far ahead: not trusted
    hint("a").claim(1);
    assertThat(claim()[2]).isEqualTo("a");
    // Our own claim is refreshed whatever its losses.
    claimOf("a", 9, 0);
    hint("a").claim(1);
    assertThat(claim()[1]).isEqualTo("1");
  }

  @Test
  void aReleaseDeletesOnlyItsOwnClaim() throws Exception {
    // Never claimed: another's claim stays.
    claimOf("b", 1, 0);
    hint("a").release();
    assertThat(claim()[2]).isEqualTo("b");
    // Claimed, then another user claimed over it: the release leaves theirs.
    Files.delete(file());
    ContentionHint a = hint("a");
    a.claim(1);
    claimOf("b", 5, 0);
    a.release();
    assertThat(claim()[2]).isEqualTo("b");
    // A second release after a successful one deletes nothing.
    Files.delete(file());
    a.claim(1);
    a.release();
    claimOf("a", 1, 0); // as written by another committer of the same user
    a.release();
    assertThat(file()).exists();
  }

  @Test
  void aCommitterYieldsOnlyToAnotherUsersFreshClaimWithAtLeastItsLosses() throws Exception {
    ContentionHint a = hint("a");
    assertThat(a.yieldToClaimant(1)).as("no claim").isFalse();
    claimOf("a", 5, 0);
    assertThat(a.yieldToClaimant(1)).as("own claim").isFalse();
    claimOf("b", 5, ContentionHint.FRESH_MILLIS + 2_000);
    assertThat(a.yieldToClaimant(1)).as("stale claim").isFalse();
    claimOf("b", 1, 0);
    assertThat(a.yieldToClaimant(2)).as("fewer losses than ours").isFalse();
    Files.writeString(file(), "garbage");
    assertThat(a.yieldToClaimant(0)).as("unreadable claim").isFalse();
    Files.writeString(file(), "12 x b");
    assertThat(a.yieldToClaimant(0)).as("unreadable losses").isFalse();

    claimOf("b", 2, 0);
    long start = System.nanoTime();
    assertThat(a.yieldToClaimant(2)).as("as many losses").isTrue();
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    // The claimant never released: the yield lasted its bound, not less.
    assertThat(waited).isGreaterThanOrEqualTo(ContentionHint.MAX_YIELD_MILLIS);
  }

  @Test
  void aYieldEndsWhenTheClaimantReleases() throws Exception {
    claimOf("b", 2, 0);
    ContentionHint a = hint("a");
    CompletableFuture<Boolean> yielded =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return a.yieldToClaimant(1);
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    TimeUnit.MILLISECONDS.sleep(20);
    // Another user's claim replaces b's: the yield to b ends too.
    claimOf("c", 1, 0);
    assertThat(yielded.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(claim()[2]).isEqualTo("c");
  }
}
