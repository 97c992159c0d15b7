package dev.lockstep.commit;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lockstep.fs.Path;
import dev.lockstep.fs.StoreEndpoint;
import dev.lockstep.fs.SupportsAtomicCreate;
import dev.lockstep.fs.UncertainWriteException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks that a store's atomic create really is atomic under a race, once per endpoint, before the
 * first lock-free {@code atomic-create} commit trusts it ({@code commit.atomic-create-probe}).
 *
 * <p>A store can accept "create if absent" and implement it as check-then-put (s3proxy before 4.0
 * does with {@code If-None-Match: *}): every single-writer test passes, and two racing commits both
 * win a snapshot. Only a race shows it.
 *
 * <ol>
 *   <li>Verdict known in this process for the store's {@link StoreEndpoint#endpointIdentity}: use
 *       it.
 *   <li>A record {@code <root>/.lockstep/atomic-create-probe/<hash>.passed} naming that endpoint (a
 *       previous process passed it): passed. {@code <root>} is the option {@code warehouse} when
 *       set, else the parent of the snapshot directory (the table's directory in the engine
 *       layout).
 *   <li>Otherwise race: {@value #ROUNDS} rounds; in each, {@value #CONTENDERS} threads start on a
 *       barrier and create one fresh scratch key {@code <root>/.lockstep/atomic-create-probe/
 *       <uuid>/round-<n>}, each with its own bytes. Exactly one create may succeed and the key must
 *       then hold its bytes (an uncertain create whose bytes are there counts as the success). The
 *       first failing round ends the probe; every probe key is deleted at the end.
 *   <li>Passed: cached, and the record written (atomically; best effort). Failed: cached in this
 *       process only (a fixed store is probed again by the next process) and refused with one line
 *       naming the finding and the fix.
 * </ol>
 *
 * <p>Why {@value #ROUNDS} rounds of {@value #CONTENDERS}: a round catches a check-then-put store
 * when two of its creates both pass the check before either puts. Measured against s3proxy 2.9.0 on
 * loopback with barrier-started rounds: 44 of 60 rounds of four contenders had two or more winners
 * (36 of 60 with two), so {@code p} ≈ 0.73 per round and the probe misses that store with
 * probability {@code 0.27^32} ≈ 6·10⁻¹⁹. For a store whose window is as narrow as in the issue's
 * unsynchronised two-writer commit stress ({@code p} ≈ 0.2), {@code 0.8^32} ≈ 8·10⁻⁴: still caught
 * almost always, and a store that narrow loses a commit only as rarely. The first failing round
 * ends the probe. Cost on a correct store: {@value #ROUNDS} round trips of {@value #CONTENDERS}
 * parallel creates (the store's own conflict answers included), then the deletes in parallel; once
 * per endpoint per process, and once per endpoint and root ever (the record).
 *
 * <p>Read paths never get here: the probe runs from the lock-free publisher, right before the first
 * snapshot it would publish.
 */
final class AtomicCreateProbe {

  private static final Logger LOG = LoggerFactory.getLogger(AtomicCreateProbe.class);

  static final int ROUNDS = 32;
  static final int CONTENDERS = 4;
  static final String DIRECTORY = ".lockstep/atomic-create-probe";

  /**
   * Endpoint identity → verdict (a failed probe is removed, so that the next commit tries again).
   */
  private static final Map<String, CompletableFuture<Verdict>> VERDICTS = new ConcurrentHashMap<>();

  /** What the probe found; {@code finding} is empty when the store passed. */
  record Verdict(boolean atomic, String finding, boolean probed) {}

  private final SupportsAtomicCreate store;
  private final String endpoint;
  private final Path root;
  private volatile boolean passed;

  private AtomicCreateProbe(SupportsAtomicCreate store, String endpoint, Path root) {
    this.store = store;
    this.endpoint = endpoint;
    this.root = root;
  }

  /**
   * The probe a lock-free atomic-create publisher on {@code store} must pass, or {@code null} when
   * none applies: the option is off, or the store names no endpoint (the local store's create is
   * the kernel's {@code link(2)}; a vendor store implements {@link StoreEndpoint} to be probed).
   */
  static AtomicCreateProbe forStore(
      SupportsAtomicCreate store, Path snapshotDirectory, CommitOptions options) {
    if (!options.atomicCreateProbe() || !(store instanceof StoreEndpoint)) {
      return null;
    }
    Path root =
        options.warehouse() != null
            ? Path.of(options.warehouse())
            : snapshotDirectory.parent() != null ? snapshotDirectory.parent() : snapshotDirectory;
    return new AtomicCreateProbe(store, ((StoreEndpoint) store).endpointIdentity(root), root);
  }

  /**
   * Returns when the store's atomic create is known to be atomic; probes first if need be.
   *
   * @throws CommitStrategyUnavailableException when the store let two creates of one key win
   * @throws IOException when the probe could not decide (the store failed); nothing was committed
   */
  void ensureAtomic() throws IOException, InterruptedException {
    if (passed) {
      return;
    }
    Verdict verdict = verdict();
    if (!verdict.atomic()) {
      throw new CommitStrategyUnavailableException(
          "Refusing lock-free commits on "
              + endpoint
              + ": its atomic create is not atomic ("
              + verdict.finding()
              + "), so two writers could"
              + " both win a snapshot. Set 'lock.enabled=true' and a 'lock.type' (zookeeper, jdbc or"
              + " hive), or run 'lockstep conformance' against this store and fix it.");
    }
    passed = true;
  }

  private Verdict verdict() throws IOException, InterruptedException {
    CompletableFuture<Verdict> mine = new CompletableFuture<>();
    CompletableFuture<Verdict> known = VERDICTS.putIfAbsent(endpoint, mine);
    if (known == null) {
      try {
        mine.complete(decide());
      } catch (IOException | InterruptedException | RuntimeException e) {
        VERDICTS.remove(endpoint, mine);
        mine.completeExceptionally(e);
        throw e;
      }
      return mine.join();
    }
    try {
      return known.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException) {
        throw new IOException(
            "The atomic-create probe of " + endpoint + " failed: " + cause.getMessage(), cause);
      }
      throw new IOException("The atomic-create probe of " + endpoint + " failed", cause);
    }
  }

  private Verdict decide() throws IOException, InterruptedException {
    Path record = root.child(DIRECTORY).child(recordName(endpoint));
    if (recorded(record)) {
      LOG.debug("Atomic create of {} passed the probe before (record {})", endpoint, record);
      return new Verdict(true, "", false);
    }
    long start = System.nanoTime();
    Verdict verdict = race(root.child(DIRECTORY).child(UUID.randomUUID().toString()));
    if (verdict.atomic()) {
      writeRecord(record);
      LOG.info(
          "Atomic create of {} passed the race probe ({} rounds x {} creates, {} ms)",
          endpoint,
          ROUNDS,
          CONTENDERS,
          (System.nanoTime() - start) / 1_000_000);
    } else {
      LOG.warn("Atomic create of {} failed the race probe: {}", endpoint, verdict.finding());
    }
    return verdict;
  }

  /** Step 3: the rounds, each on a fresh key; every key is deleted at the end, in parallel. */
  private Verdict race(Path scratch) throws IOException, InterruptedException {
    ExecutorService pool =
        Executors.newFixedThreadPool(
            CONTENDERS,
            runnable -> {
              Thread thread = new Thread(runnable, "lockstep-atomic-create-probe");
              thread.setDaemon(true);
              return thread;
            });
    CyclicBarrier start = new CyclicBarrier(CONTENDERS);
    List<Path> keys = new ArrayList<>();
    try {
      for (int round = 1; round <= ROUNDS; round++) {
        Path key = scratch.child("round-" + round);
        keys.add(key);
        String finding = round(pool, start, key);
        if (finding != null) {
          return new Verdict(false, finding + " in round " + round + " of " + ROUNDS, true);
        }
      }
      return new Verdict(true, "", true);
    } finally {
      deleteAll(pool, keys);
      pool.shutdownNow();
      try {
        store.delete(scratch, false);
      } catch (IOException e) {
        LOG.debug("Could not delete the probe folder {}: {}", scratch, e.toString());
      }
    }
  }

  /** Deletes every probe key, each once more after a failure; one left over is logged. */
  private void deleteAll(ExecutorService pool, List<Path> keys) throws InterruptedException {
    List<Future<?>> deletes = new ArrayList<>();
    for (Path key : keys) {
      deletes.add(pool.submit(() -> delete(key)));
    }
    for (Future<?> delete : deletes) {
      try {
        delete.get();
      } catch (ExecutionException e) {
        LOG.warn("Could not delete an atomic-create probe object: {}", e.getCause().toString());
      }
    }
  }

  /** One round; the finding when the store failed it, else {@code null}. */
  private String round(ExecutorService pool, CyclicBarrier start, Path key)
      throws IOException, InterruptedException {
    List<byte[]> contents = new ArrayList<>();
    List<Future<Boolean>> creates = new ArrayList<>();
    for (int c = 0; c < CONTENDERS; c++) {
      byte[] content = ("lockstep atomic-create probe " + UUID.randomUUID()).getBytes(UTF_8);
      contents.add(content);
      creates.add(
          pool.submit(
              () -> {
                start.await();
                try {
                  store.createAtomically(key, content);
                  return Boolean.TRUE;
                } catch (FileAlreadyExistsException e) {
                  return Boolean.FALSE;
                } catch (UncertainWriteException e) {
                  return null; // decided below by what the key holds
                }
              }));
    }
    int winners = 0;
    int uncertain = 0;
    int winner = -1;
    Throwable failure = null;
    for (int c = 0; c < CONTENDERS; c++) {
      Boolean won;
      try {
        won = creates.get(c).get(); // every create of the round has ended before anything is judged
      } catch (ExecutionException e) {
        failure = failure == null ? e.getCause() : failure;
        continue;
      }
      if (won == null) {
        uncertain++;
      } else if (won) {
        winners++;
        winner = c;
      }
    }
    if (failure != null) {
      throw new IOException(
          "The atomic-create probe of " + endpoint + " could not create " + key + ": " + failure,
          failure);
    }
    if (winners > 1) {
      return winners + " of " + CONTENDERS + " concurrent creates of one new key all succeeded";
    }
    byte[] held = read(key);
    int holder = -1;
    for (int c = 0; c < CONTENDERS; c++) {
      if (held != null && Arrays.equals(held, contents.get(c))) {
        holder = c;
      }
    }
    if (winners == 1 && holder != winner) {
      return "a create succeeded, and then the key held another create's bytes";
    }
    if (winners == 0 && (uncertain == 0 || holder < 0)) {
      throw new IOException(
          "The atomic-create probe of "
              + endpoint
              + " could not decide: no"
              + " create of the new key "
              + key
              + " succeeded ("
              + uncertain
              + " uncertain)");
    }
    return null;
  }

  private byte[] read(Path key) throws IOException {
    try {
      return SnapshotLog.readFile(store, key);
    } catch (FileNotFoundException e) {
      return null;
    }
  }

  private void delete(Path key) {
    for (int attempt = 1; attempt <= 2; attempt++) {
      try {
        store.delete(key, false);
        return;
      } catch (IOException e) {
        if (attempt == 2) {
          LOG.warn(
              "Could not delete the atomic-create probe object {}; delete it by hand: {}",
              key,
              e.toString());
        }
      }
    }
  }

  private boolean recorded(Path record) throws IOException {
    try {
      String text = new String(SnapshotLog.readFile(store, record), UTF_8);
      return text.lines().anyMatch(line -> line.equals("endpoint=" + endpoint));
    } catch (FileNotFoundException e) {
      return false;
    }
  }

  private void writeRecord(Path record) {
    String text =
        "endpoint="
            + endpoint
            + "\nverdict=atomic\nrounds="
            + ROUNDS
            + "\ncontenders="
            + CONTENDERS
            + "\nprobed-at="
            + Instant.now()
            + "\n";
    try {
      store.createAtomically(record, text.getBytes(UTF_8));
    } catch (FileAlreadyExistsException e) {
      // Another process recorded it first.
    } catch (IOException e) {
      LOG.warn(
          "Could not record the atomic-create probe verdict at {} (the next process probes"
              + " again): {}",
          record,
          e.toString());
    }
  }

  /** The record's file name: a hash of the endpoint identity, which may hold any character. */
  static String recordName(String endpoint) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(endpoint.getBytes(UTF_8));
      return HexFormat.of().formatHex(hash, 0, 12) + ".passed";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Forgets every verdict of this process; for tests that probe the same endpoint twice. */
  static void forgetVerdicts() {
    VERDICTS.clear();
  }

  @Override
  public String toString() {
    return "AtomicCreateProbe(" + endpoint + " at " + root + ")";
  }
}
