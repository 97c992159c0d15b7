package dev.lockstep.fs.local;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.fs.Path;
import dev.lockstep.testing.TestTiming;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 16 threads race for one path, 200 rounds, starting together on a barrier: exactly one winner per
 * round, the winner's bytes intact, every loser sees {@link FileAlreadyExistsException}.
 */
class LocalAtomicRaceTest {

  private static final int THREADS = 16;
  private static final int ROUNDS = 200;

  @TempDir java.nio.file.Path dir;
  private final LocalFileIO io = new LocalFileIO();
  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(TestTiming.seconds(10).toMillis(), TimeUnit.MILLISECONDS))
        .isTrue();
  }

  /** What one contender does for one round; returns normally only when it won. */
  private interface Contender {
    void contend(int thread, Path target, byte[] content) throws IOException;
  }

  @Test
  void atomicCreateHasExactlyOneWinnerPerRound() throws Exception {
    race("create", (thread, target, content) -> io.createAtomically(target, content));
  }

  @Test
  void atomicRenameHasExactlyOneWinnerPerRound() throws Exception {
    race(
        "rename",
        (thread, target, content) -> {
          Path source = target.parent().child("src-" + target.name() + "-" + thread);
          try (OutputStream out = io.newOutputStream(source, false)) {
            out.write(content);
          }
          try {
            io.renameAtomically(source, target);
          } catch (FileAlreadyExistsException lost) {
            io.delete(source, false); // the loser still owns its source
            throw lost;
          }
        });
  }

  private void race(String kind, Contender contender) throws Exception {
    CyclicBarrier start = new CyclicBarrier(THREADS);
    for (int round = 0; round < ROUNDS; round++) {
      Path target = Path.of(dir.toString()).child(kind + "-" + round);
      List<Future<String>> results = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        byte[] content = content(round, thread);
        results.add(
            pool.submit(
                () -> {
                  start.await(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS);
                  try {
                    contender.contend(thread, target, content);
                    return "won:" + thread;
                  } catch (FileAlreadyExistsException e) {
                    return "lost";
                  }
                }));
      }
      List<String> outcomes = new ArrayList<>();
      for (Future<String> result : results) {
        outcomes.add(result.get(TestTiming.seconds(30).toMillis(), TimeUnit.MILLISECONDS));
      }
      List<String> winners = outcomes.stream().filter(o -> o.startsWith("won:")).toList();
      assertThat(winners)
          .as("round %d of %s: %s; directory: %s", round, kind, outcomes, listing())
          .hasSize(1);
      assertThat(outcomes.stream().filter("lost"::equals)).hasSize(THREADS - 1);
      int winner = Integer.parseInt(winners.get(0).substring(4));
      try (InputStream in = io.newInputStream(target)) {
        assertThat(in.readAllBytes())
            .as("winner's bytes, round %d", round)
            .isEqualTo(content(round, winner));
      }
    }
    assertThat(listing())
        .as("nothing but the %d targets is left behind", ROUNDS)
        .hasSize(ROUNDS)
        .allMatch(name -> name.startsWith(kind + "-"));
  }

  /** Distinct, longish content per contender, so that a torn or foreign file cannot pass. */
  private static byte[] content(int round, int thread) {
    return ("round " + round + " thread " + thread + " ").repeat(200).getBytes(UTF_8);
  }

  private List<String> listing() throws IOException {
    try (Stream<java.nio.file.Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
