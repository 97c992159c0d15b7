package dev.lockstep.conformance;

import dev.lockstep.fs.UncertainWriteException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs contenders that start together on a barrier and classifies what each saw. One race object
 * serves every round of a check; {@link #close()} stops its threads.
 */
final class Race implements AutoCloseable {

  /** What one contender saw. */
  enum Outcome {
    WON,
    CONFLICT,
    UNCERTAIN,
    ERROR
  }

  /** One contender's action in a round. */
  @FunctionalInterface
  interface Contender {
    void run(int contender) throws Exception;
  }

  /** One contender's result: the outcome and, for ERROR and UNCERTAIN, the exception. */
  record Result(int contender, Outcome outcome, Throwable error) {
    @Override
    public String toString() {
      return "#" + contender + " " + outcome + (error == null ? "" : " (" + error + ")");
    }
  }

  private static final long START_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  private final int contenders;
  private final Duration roundTimeout;
  private final ExecutorService threads;

  Race(int contenders, Duration roundTimeout) {
    this.contenders = contenders;
    this.roundTimeout = roundTimeout;
    this.threads =
        Executors.newFixedThreadPool(
            contenders,
            runnable -> {
              Thread thread = new Thread(runnable, "conformance-contender");
              thread.setDaemon(true);
              return thread;
            });
  }

  /**
   * Runs one round: every contender waits on the barrier, then spins until one common start instant
   * and runs {@code action}. The spin matters: threads released by a barrier wake one after another
   * (each re-takes the barrier's lock), which on a small machine spreads the start over more time
   * than a check-then-act window lasts; spinning to a shared instant starts one contender per core
   * at the same moment.
   */
  List<Result> round(Contender action) throws InterruptedException {
    long[] startAt = new long[1];
    CyclicBarrier barrier =
        new CyclicBarrier(contenders, () -> startAt[0] = System.nanoTime() + START_DELAY_NANOS);
    List<Future<Result>> futures = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      int contender = i;
      futures.add(
          threads.submit(
              () -> {
                barrier.await(roundTimeout.toMillis(), TimeUnit.MILLISECONDS);
                long start =
                    startAt[0]; // written by the barrier action, which happens-before await returns
                while (System.nanoTime() < start) {
                  Thread.onSpinWait();
                }
                try {
                  action.run(contender);
                  return new Result(contender, Outcome.WON, null);
                } catch (FileAlreadyExistsException e) {
                  return new Result(contender, Outcome.CONFLICT, e);
                } catch (UncertainWriteException e) {
                  return new Result(contender, Outcome.UNCERTAIN, e);
                } catch (IOException | RuntimeException | AssertionError e) {
                  return new Result(contender, Outcome.ERROR, e);
                }
              }));
    }
    List<Result> results = new ArrayList<>();
    long deadline = System.nanoTime() + roundTimeout.toNanos();
    for (int i = 0; i < futures.size(); i++) {
      try {
        results.add(
            futures.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (ExecutionException e) {
        results.add(new Result(i, Outcome.ERROR, e.getCause()));
      } catch (TimeoutException e) {
        futures.forEach(f -> f.cancel(true));
        throw new AssertionError(
            "Contender #"
                + i
                + " did not finish within "
                + roundTimeout.toSeconds()
                + " s ("
                + ConformanceSettings.TIME_FACTOR
                + " scales it)");
      }
    }
    return results;
  }

  @Override
  public void close() {
    threads.shutdownNow();
  }
}
