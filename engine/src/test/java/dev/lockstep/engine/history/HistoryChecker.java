package dev.lockstep.engine.history;

import dev.lockstep.commit.CommitStateUnknownException;
import dev.lockstep.conformance.BlindPutStore;
import dev.lockstep.conformance.FaultInjectingStore;
import dev.lockstep.conformance.FaultPlan.Fault;
import dev.lockstep.conformance.FaultPlan.Operation;
import dev.lockstep.engine.SharedInJvmLockFactory;
import dev.lockstep.engine.catalog.FileSystemCatalog;
import dev.lockstep.engine.catalog.Identifier;
import dev.lockstep.engine.commit.CommitFailedException;
import dev.lockstep.engine.commit.CommitResult;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.maintenance.SnapshotExpiration;
import dev.lockstep.engine.schema.Schema;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.types.DataType;
import dev.lockstep.engine.write.CommitMessage;
import dev.lockstep.engine.write.TableWrite;
import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.Path;
import dev.lockstep.fs.local.LocalFileIO;
import dev.lockstep.testing.CapabilityHidingFileIO;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A randomized history checker in the style of Jepsen, for the commit path (issue 18).
 *
 * <ol>
 *   <li>Committers (threads here; {@link HistoryCheckMain} runs them in other processes too) each
 *       commit batches with identifiers 1..n to one append table through their own store view, a
 *       {@link FaultInjectingStore} that loses answers after landing (snapshot publishes and every
 *       other write), pauses snapshot publishes (sometimes long enough for others to commit and
 *       expire meanwhile), while a chaos thread interrupts committers inside {@code commit} and an
 *       expirer expires with a small retention.
 *   <li>A committer retries a batch (the same messages and identifier) after every failure:
 *       CONFLICT-like failures, unknown outcomes, interrupts. Only a call that returns is an
 *       acknowledged commit, recorded with its snapshot id.
 *   <li>An observer polls the latest snapshot id and records any step back.
 *   <li>{@link Verdict#check}: the table holds every acknowledged batch's rows exactly once (and
 *       nothing else); no two acknowledged commits got the same snapshot id; each committer's ids
 *       grow; the latest never went back; the retained snapshots form one linked history in which
 *       no (user, identifier) appears twice and every referenced manifest and data file exists;
 *       without expiration, that history holds every acknowledged (user, identifier) exactly once.
 * </ol>
 */
public final class HistoryChecker {

  public static final Identifier TABLE = Identifier.parse("db.history");

  /** The three ways a snapshot is published. */
  public enum Strategy {
    ATOMIC_CREATE("atomic-create", Operation.CREATE),
    RENAME("rename", Operation.RENAME),
    /** A store without primitives (check-then-put writes), committed under the in-JVM lock. */
    LOCK_PLAIN_WRITES("lock", Operation.WRITE);

    final String option;
    final Operation publish;

    Strategy(String option, Operation publish) {
      this.option = option;
      this.publish = publish;
    }
  }

  /**
   * @param retainMax {@code snapshot.num-retained.max} (with min 1 and time 1 ms); 0 = never expire
   * @param lostAnswers probability that a snapshot publish lands and its answer is lost
   * @param pauses probability that a snapshot publish pauses first (one in five of them long)
   * @param interruptEveryMillis 0 = no interrupts
   */
  public record Config(
      Strategy strategy,
      int threads,
      int commits,
      int rows,
      long seed,
      int retainMax,
      double lostAnswers,
      double pauses,
      int interruptEveryMillis) {

    public Config withSeed(long other) {
      return new Config(
          strategy,
          threads,
          commits,
          rows,
          other,
          retainMax,
          lostAnswers,
          pauses,
          interruptEveryMillis);
    }
  }

  /** One acknowledged commit. */
  public record Ack(String user, long identifier, long snapshotId) {

    public String line() {
      return user + "," + identifier + "," + snapshotId;
    }

    public static Ack parse(String line) {
      String[] parts = line.split(",");
      return new Ack(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }
  }

  /** What happened during a run, besides the acknowledged commits. */
  public static final class Stats {
    public final AtomicLong unknown = new AtomicLong();
    public final AtomicLong failed = new AtomicLong();
    public final AtomicLong otherErrors = new AtomicLong();
    public final AtomicLong interrupts = new AtomicLong();
    public final AtomicLong injected = new AtomicLong();
    public final AtomicLong expired = new AtomicLong();
    public final AtomicLong emptyListings = new AtomicLong();
    public final List<String> wentBack = new CopyOnWriteArrayList<>();

    @Override
    public String toString() {
      return "unknown outcomes "
          + unknown
          + ", failed commits "
          + failed
          + ", other errors "
          + otherErrors
          + ", interrupts "
          + interrupts
          + ", injected faults "
          + injected
          + ", snapshots expired by the expirer "
          + expired
          + ", empty latest answers (store"
          + " glitch) "
          + emptyListings;
    }
  }

  private HistoryChecker() {}

  public static Map<String, String> catalogOptions(Strategy strategy) {
    Map<String, String> options = new HashMap<>();
    options.put("commit.strategy", strategy.option);
    if (strategy == Strategy.LOCK_PLAIN_WRITES) {
      options.put("lock.enabled", "true");
      options.put("lock.type", SharedInJvmLockFactory.IDENTIFIER);
    }
    return options;
  }

  /**
   * The store of one committer: faults over the strategy's capabilities. For plain writes the
   * check-then-put sits above the faults, so that a paused write is a PUT on the wire: its check is
   * done, and it lands whenever the pause ends, replacing what is there by then.
   */
  static FileIO faultyStore(Strategy strategy, FaultInjectingStore[] faults) {
    LocalFileIO local = new LocalFileIO();
    switch (strategy) {
      case RENAME:
        faults[0] = FaultInjectingStore.wrap(CapabilityHidingFileIO.atomicRenameOnly(local));
        return faults[0];
      case LOCK_PLAIN_WRITES:
        faults[0] = FaultInjectingStore.wrap(local);
        return new BlindPutStore(faults[0]);
      case ATOMIC_CREATE:
      default:
        faults[0] = FaultInjectingStore.wrap(local);
        return faults[0];
    }
  }

  /** The store of one committer without faults. */
  static FileIO baseStore(Strategy strategy) {
    LocalFileIO local = new LocalFileIO();
    switch (strategy) {
      case RENAME:
        return CapabilityHidingFileIO.atomicRenameOnly(local);
      case LOCK_PLAIN_WRITES:
        return new BlindPutStore(local);
      case ATOMIC_CREATE:
      default:
        return local;
    }
  }

  /** Creates the table (append: user, identifier, row). */
  public static void createTable(Path warehouse, Config config) throws IOException {
    Schema.Builder schema =
        Schema.newBuilder()
            .column("user", DataType.string())
            .column("identifier", DataType.bigint())
            .column("row", DataType.intType())
            .option("commit.max-retries", "100000")
            .option("commit.timeout", "5 min")
            // The committers stand for separate processes and must race each other: in one JVM
            // they would otherwise take in-process turns (engine README, "In-process turns").
            .option("commit.in-process-turns", "false")
            // The history of appends alone: writers that are not write-only also compact the
            // table's small files in COMPACT snapshots, which the verdict would count as commits.
            .option("write-only", "true");
    if (config.retainMax() > 0) {
      schema
          .option("snapshot.num-retained.min", "1")
          .option("snapshot.num-retained.max", Integer.toString(config.retainMax()))
          .option("snapshot.time-retained", "1 ms");
    } else {
      schema.option("snapshot.num-retained.min", Integer.toString(Integer.MAX_VALUE));
    }
    try (FileStoreTable ignored =
        new FileSystemCatalog(
                baseStore(config.strategy()), warehouse, catalogOptions(config.strategy()))
            .createTable(TABLE, schema.build())) {
      // created
    }
  }

  /**
   * Runs {@code config.threads()} committers named {@code prefix + i} and, when the table expires,
   * an expirer; returns the acknowledged commits (each also given to {@code sink} at once).
   */
  public static List<Ack> run(
      Path warehouse, Config config, String prefix, Stats stats, Consumer<Ack> sink)
      throws Exception {
    List<Ack> acks = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean running = new AtomicBoolean(true);
    Map<Thread, AtomicBoolean> interruptible = new ConcurrentHashMap<>();
    List<Throwable> crashes = new CopyOnWriteArrayList<>();
    CyclicBarrier start = new CyclicBarrier(config.threads());
    List<Thread> committers = new ArrayList<>();
    for (int i = 0; i < config.threads(); i++) {
      String user = prefix + i;
      long seed = config.seed() * 31 + i;
      AtomicBoolean inCommit = new AtomicBoolean();
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await();
                  commitAll(
                      warehouse,
                      config,
                      user,
                      seed,
                      inCommit,
                      stats,
                      ack -> {
                        acks.add(ack);
                        sink.accept(ack);
                      });
                } catch (Throwable e) {
                  crashes.add(e);
                }
              },
              "committer-" + user);
      interruptible.put(t, inCommit);
      committers.add(t);
    }
    List<Thread> helpers = new ArrayList<>();
    helpers.add(new Thread(() -> observe(warehouse, config, running, stats), "observer"));
    if (config.retainMax() > 0) {
      helpers.add(new Thread(() -> expire(warehouse, config, running, stats), "expirer"));
    }
    if (config.interruptEveryMillis() > 0) {
      helpers.add(new Thread(() -> interrupt(config, running, interruptible, stats), "chaos"));
    }
    helpers.forEach(Thread::start);
    committers.forEach(Thread::start);
    for (Thread t : committers) {
      t.join(TimeUnit.MINUTES.toMillis(10));
    }
    running.set(false);
    for (Thread t : helpers) {
      t.join();
    }
    if (!crashes.isEmpty()) {
      AssertionError error =
          new AssertionError(
              "a committer failed (seed " + config.seed() + "): " + crashes.get(0), crashes.get(0));
      crashes.subList(1, crashes.size()).forEach(error::addSuppressed);
      throw error;
    }
    return new ArrayList<>(acks);
  }

  private static void commitAll(
      Path warehouse,
      Config config,
      String user,
      long seed,
      AtomicBoolean inCommit,
      Stats stats,
      Consumer<Ack> sink)
      throws Exception {
    Random random = new Random(seed);
    FaultInjectingStore[] holder = new FaultInjectingStore[1];
    FileIO committerStore = faultyStore(config.strategy(), holder);
    FaultInjectingStore store = holder[0];
    if (config.lostAnswers() > 0) {
      store.failRandomly(
          config.strategy().publish, Fault.LOSE_ANSWER_AFTER_LANDING, config.lostAnswers(), seed);
      if (config.strategy().publish != Operation.WRITE) {
        // Manifests, data files and hints lose answers too, less often.
        store.failRandomly(
            Operation.WRITE, Fault.LOSE_ANSWER_AFTER_LANDING, config.lostAnswers() / 4, seed + 1);
      }
    }
    if (config.pauses() > 0) {
      Random pauses = new Random(seed + 2);
      store.beforeLanding(
          config.strategy().publish,
          (operation, path) -> {
            if (path.toString().contains("/snapshot/")) {
              double draw;
              int longOne;
              synchronized (pauses) {
                draw = pauses.nextDouble();
                longOne = pauses.nextInt(5);
              }
              if (draw < config.pauses()) {
                // A write on the wire: an interrupt (or a cancelled future) does not stop it
                // landing.
                sleepUninterruptibly(longOne == 0 ? 40 + (long) (draw * 400) : (long) (draw * 100));
              }
            }
          });
    }
    try (FileStoreTable table =
        new FileSystemCatalog(committerStore, warehouse, catalogOptions(config.strategy()))
            .getTable(TABLE)) {
      TableCommit commit = table.newCommit(user);
      long lastId = 0;
      for (long c = 1; c <= config.commits(); c++) {
        List<CommitMessage> messages = write(table, user, c, config.rows());
        Exception last = null;
        for (int attempt = 1; ; attempt++) {
          if (attempt > 500) {
            throw new AssertionError(
                user
                    + " could not commit "
                    + c
                    + " in 500 attempts; the"
                    + " last failure: "
                    + last,
                last);
          }
          try {
            inCommit.set(true);
            CommitResult result;
            try {
              result = commit.commit(c, messages);
            } finally {
              inCommit.set(false);
              Thread.interrupted();
            }
            long id = result.dataSnapshotId();
            if (id > 0 && id <= lastId) {
              throw new AssertionError(
                  user
                      + ": commit "
                      + c
                      + " acknowledged as snapshot "
                      + id
                      + " after an earlier commit of its own had "
                      + lastId);
            }
            lastId = Math.max(lastId, id);
            sink.accept(new Ack(user, c, id));
            break;
          } catch (CommitStateUnknownException e) {
            last = e;
            stats.unknown.incrementAndGet();
            commit = table.newCommit(user);
          } catch (CommitFailedException e) {
            last = e;
            stats.failed.incrementAndGet();
          } catch (IOException e) {
            last = e;
            stats.otherErrors.incrementAndGet();
            commit = table.newCommit(user);
          }
          if (random.nextInt(4) == 0) {
            sleepQuietly(random.nextInt(5));
          }
        }
      }
    } finally {
      stats.injected.addAndGet(store.injected());
    }
  }

  /** Writes one batch; a data file that failed to write (a lost answer) means writing it again. */
  private static List<CommitMessage> write(
      FileStoreTable table, String user, long identifier, int rows) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try (TableWrite write = table.newWrite(user)) {
        for (int r = 0; r < rows; r++) {
          write.write(GenericRow.of(user, identifier, r));
        }
        return write.prepareCommit();
      } catch (IOException e) {
        Thread.interrupted();
        if (attempt >= 100) {
          throw e;
        }
      }
    }
  }

  private static void observe(Path warehouse, Config config, AtomicBoolean running, Stats stats) {
    try (FileStoreTable table =
        new FileSystemCatalog(new LocalFileIO(), warehouse, catalogOptions(config.strategy()))
            .getTable(TABLE)) {
      long seen = 0;
      while (running.get()) {
        OptionalLong answer = table.snapshotManager().latestId();
        if (answer.isEmpty() && seen > 0) {
          // No snapshot at all: under heavy load LocalFileIO.list now and then reports the
          // snapshot directory as a file for an instant (engine README, "Tests"); a step back
          // to an older snapshot is what this observer is for.
          stats.emptyListings.incrementAndGet();
          sleepQuietly(1);
          continue;
        }
        long latest = answer.orElse(0);
        if (latest < seen) {
          stats.wentBack.add("latest " + latest + " after " + seen);
        }
        seen = Math.max(seen, latest);
        sleepQuietly(1);
      }
    } catch (IOException e) {
      stats.wentBack.add("observer failed: " + e);
    }
  }

  private static void expire(Path warehouse, Config config, AtomicBoolean running, Stats stats) {
    try (FileStoreTable table =
        new FileSystemCatalog(new LocalFileIO(), warehouse, catalogOptions(config.strategy()))
            .getTable(TABLE)) {
      while (running.get()) {
        try {
          stats.expired.addAndGet(new SnapshotExpiration(table).expire().expiredSnapshots());
        } catch (IOException e) {
          stats.otherErrors.incrementAndGet();
        }
        sleepQuietly(3);
      }
    } catch (IOException e) {
      stats.otherErrors.incrementAndGet();
    }
  }

  private static void interrupt(
      Config config, AtomicBoolean running, Map<Thread, AtomicBoolean> committers, Stats stats) {
    Random random = new Random(config.seed() + 99);
    List<Thread> threads = new ArrayList<>(committers.keySet());
    while (running.get()) {
      sleepQuietly(random.nextInt(config.interruptEveryMillis() * 2 + 1));
      Thread t = threads.get(random.nextInt(threads.size()));
      if (committers.get(t).get()) {
        t.interrupt();
        stats.interrupts.incrementAndGet();
      }
    }
  }

  static void sleepUninterruptibly(long millis) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    boolean interrupted = false;
    for (long left = millis;
        left > 0;
        left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
      try {
        Thread.sleep(left);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
