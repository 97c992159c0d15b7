package dev.lockstep.engine.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.lockstep.commit.FencingToken;
import dev.lockstep.commit.SnapshotLog;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a table's snapshots through lock-api's {@link SnapshotLog} (which also resolves the latest
 * and earliest ids from hints and listings). Parsed snapshots are cached: snapshot-N never changes
 * once committed. The engine never writes snapshot files itself; see {@link
 * dev.lockstep.engine.commit.TableCommit}.
 */
public final class SnapshotManager {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotManager.class);
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final int CACHE_SIZE = 2048;

  /** Listings tried before a {@link #latestId()} answer below an earlier one is given. */
  private static final int MAX_LISTINGS = 3;

  /** Missing snapshot ids noted per listing, at most (a warning names a few, the check all). */
  private static final int MAX_GAPS_NOTED = 8;

  private final SnapshotLog log;
  private final SkippedDamage skipped = new SkippedDamage();

  /** The highest id {@link #latestId()} answered; a hinted answer below it is never taken. */
  private final AtomicLong highestAnswer = new AtomicLong();

  private final Map<Long, Snapshot> cache =
      Collections.synchronizedMap(
          new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Snapshot> eldest) {
              return size() > CACHE_SIZE;
            }
          });

  public SnapshotManager(SnapshotLog log) {
    this.log = log;
  }

  public SnapshotLog log() {
    return log;
  }

  /** The damage this manager's readers met and went past (see {@link SkippedDamage}). */
  public SkippedDamage skippedDamage() {
    return skipped;
  }

  /**
   * The newest snapshot id: the head of the table's history. Every snapshot below the history (an
   * expired id published again, engine README "Reading the latest snapshot") is older than the
   * head, so the newest snapshot file is the head (a listing that races commits and expirations may
   * miss it, see below); the {@code LATEST} hint only saves the listing when the hinted answer
   * provably is the head.
   *
   * <p>lock-api's {@link SnapshotLog#latestId()} follows the hint to h (h exists, h + 1 does not).
   * The hint is written by whoever committed last, or published an expired id again and withdraws
   * it, or late (a paused write), so h may be a snapshot below the history with a gap above it, and
   * so may h - 1 (committers waiting for the lock on neighbouring bases publish neighbouring
   * expired ids at once). h is accepted only when snapshot h - 1 exists and h names it as its
   * parent ({@code parentCommitId}): a snapshot published under an expired id names a parent that
   * expired before it was published, so a parent that still exists makes h the first holder of its
   * id, in the history, and with h + 1 missing the head (h + 1 cannot have expired while h exists).
   * Otherwise (h - 1 gone, not h's parent, a file without the link, snapshot 1) the listing
   * decides. Per manager the answer does not go back either: a hinted answer below one given before
   * is never taken, and a listing below it (one that ran while the retained snapshots were being
   * replaced, seeing only older files) is tried again, up to {@value #MAX_LISTINGS} listings.
   */
  public OptionalLong latestId() throws IOException {
    OptionalLong hinted = log.latestId();
    if (hinted.isEmpty()) {
      return hinted;
    }
    long floor = highestAnswer.get();
    long id = hinted.getAsLong();
    if (id >= floor && headOfHistory(id)) {
      return answered(id);
    }
    // A listing is not a snapshot of the directory: one that runs while commits and expirations
    // replace the few retained snapshots (num-retained.max = 2, say) may miss all of them and show
    // only older files below the history, which stay. Below an answer given before, list again.
    long newest = -1;
    for (int listing = 0; listing < MAX_LISTINGS; listing++) {
      List<Long> ids = log.listIds();
      if (listing == 0) {
        noteGaps(ids);
      }
      if (!ids.isEmpty()) {
        newest = Math.max(newest, ids.get(ids.size() - 1));
      }
      if (newest >= floor && newest > 0) {
        return answered(newest);
      }
    }
    // Still below: the snapshots above were removed (by hand, a restore), or the files vanished
    // since the hint was checked. Answer what is there, and keep the floor.
    return newest > 0 ? OptionalLong.of(newest) : hinted;
  }

  private OptionalLong answered(long id) {
    highestAnswer.accumulateAndGet(id, Math::max);
    return OptionalLong.of(id);
  }

  /**
   * Whether snapshot {@code id}, which the hint led to (it existed, {@code id + 1} did not), is in
   * the history: snapshot {@code id - 1} still exists and {@code id} names it as its parent. Reads
   * the files (a cached entry could be an earlier holder of the id); caches what it read.
   */
  private boolean headOfHistory(long id) throws IOException {
    if (id <= 1) {
      return false;
    }
    Optional<Snapshot> head;
    Optional<Snapshot> parent;
    try {
      head = readUncached(id);
      if (head.isEmpty() || head.get().parentCommitId() == null) {
        return false;
      }
      try {
        parent = readUncached(id - 1);
      } catch (DamagedFileException corrupt) {
        // Not needed but to save the listing: the listing answers. (A damaged head is not noted:
        // every reader of the latest snapshot needs it, and names it when it fails.)
        skipped.note(corrupt);
        return false;
      }
    } catch (DamagedFileException corrupt) {
      // Not provable; the listing answers, and whoever reads the file names it.
      return false;
    } catch (InterruptedIOException | ClosedByInterruptException interrupted) {
      throw interrupted;
    } catch (IOException readFailed) {
      // The hint only saves a listing: a failed read to prove it makes this call list instead,
      // never fail where checking existence alone (before the proof) would not have.
      LOG.debug(
          "Could not read snapshot {} or {} to check the LATEST hint in {}; listing: {}",
          id,
          id - 1,
          log.directory(),
          readFailed.toString());
      return false;
    }
    if (parent.isEmpty() || !parent.get().commitId().equals(head.get().parentCommitId())) {
      return false;
    }
    cache.put(id, head.get());
    cache.put(id - 1, parent.get());
    return true;
  }

  /**
   * The oldest snapshot of the table's history, or empty for a table without snapshots. lock-api's
   * {@link SnapshotLog#earliestId()} answers the oldest snapshot file (hint or listing), which may
   * be one below the history (an expired id published again); this walks up from it to the first
   * snapshot whose successor was built on it ({@link Snapshot#isParentOf}), or to the latest.
   * Usually two reads; a listing per snapshot below the history.
   */
  public OptionalLong earliestId() throws IOException {
    OptionalLong earliest = log.earliestId();
    if (earliest.isEmpty()) {
      return earliest;
    }
    OptionalLong latest = latestId();
    if (latest.isEmpty()) {
      return latest;
    }
    return OptionalLong.of(firstOfHistory(earliest.getAsLong(), latest.getAsLong()));
  }

  /**
   * The first snapshot of the history from {@code earliest} on, below or at {@code latest} (the
   * head): skips every snapshot whose successor is missing or was not built on it. Those are ids
   * published again after they had expired (left by a late write of unknown outcome, or by a
   * committer that withdraws them, see {@code CommitLoop}); nothing reads or expires them.
   */
  public long firstOfHistory(long earliest, long latest) throws IOException {
    long id = earliest;
    while (id < latest) {
      Optional<Snapshot> s;
      Optional<Snapshot> next;
      try {
        s = readUncached(id);
        next = readUncached(id + 1);
      } catch (DamagedFileException corrupt) {
        // Cannot tell: stop here; whoever needs the file names it.
        skipped.note(corrupt);
        return id;
      }
      if (s.isPresent() && next.isPresent() && s.get().isParentOf(next.get())) {
        return id;
      }
      long following = id;
      List<Long> listed = log.listIds();
      noteGaps(listed);
      for (long other : listed) {
        if (other > id) {
          following = other;
          break;
        }
      }
      if (following == id) {
        return id;
      }
      id = following;
    }
    return Math.min(id, latest);
  }

  /**
   * The snapshot ids below the history ({@code firstOfHistory}): files under expired ids published
   * again (engine README, "the real window" (d)). Nothing reads them; expiration and orphan removal
   * leave them and the files they name alone.
   */
  public List<Long> belowHistory(long first) throws IOException {
    List<Long> below = new ArrayList<>();
    for (long id : log.listIds()) {
      if (id < first) {
        below.add(id);
      }
    }
    return below;
  }

  /**
   * Notes the snapshot ids missing from the middle of {@code ids}, a listing taken anyway, as
   * damage ({@link SkippedDamage}): an id between two listed ones, from the earliest snapshot that
   * {@link SnapshotLog#earliestId()} answers on (its {@code EARLIEST} hint: below it a gap is
   * expiration's, and a file there an expired id published again), whose lower neighbour still
   * exists (expiration deletes in ascending order, so a listing that raced one shows a gap above a
   * file that is gone by now) and which is still missing. Reads only when the listing has a gap;
   * never fails the caller (only an interrupt passes).
   */
  private void noteGaps(List<Long> ids) throws InterruptedIOException {
    int noted = 0;
    try {
      Long history = null;
      for (int i = 0; i + 1 < ids.size() && noted < MAX_GAPS_NOTED; i++) {
        long below = ids.get(i);
        long above = ids.get(i + 1);
        if (above == below + 1) {
          continue;
        }
        if (history == null) {
          history = log.earliestId().orElse(Long.MAX_VALUE);
        }
        long from = Math.max(below + 1, history);
        if (from >= above || !log.exists(below)) {
          continue;
        }
        for (long id = from; id < above && noted < MAX_GAPS_NOTED; id++) {
          String file = log.snapshotPath(id).toString();
          if (!skipped.contains(file) && !log.exists(id)) {
            skipped.noteMissing("snapshot", file);
            noted++;
          }
        }
      }
    } catch (InterruptedIOException | ClosedByInterruptException interrupted) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "interrupted checking the snapshot listing of " + log.directory());
    } catch (IOException | RuntimeException e) {
      LOG.debug(
          "Could not check the gaps in the snapshots of {}: {}", log.directory(), e.toString());
    }
  }

  /** The latest snapshot, or empty for a table without commits. */
  public Optional<Snapshot> latest() throws IOException {
    OptionalLong id = latestId();
    return id.isPresent() ? find(id.getAsLong()) : Optional.empty();
  }

  /** Snapshot {@code id}, or empty when it does not exist (never committed, or expired). */
  public Optional<Snapshot> find(long id) throws IOException {
    Snapshot cached = cache.get(id);
    if (cached != null) {
      return Optional.of(cached);
    }
    byte[] bytes;
    try {
      bytes = log.read(id);
    } catch (FileNotFoundException e) {
      return Optional.empty();
    }
    Snapshot snapshot = parse(id, bytes);
    cache.put(id, snapshot);
    return Optional.of(snapshot);
  }

  /**
   * Snapshot {@code id} as the store holds it now, bypassing the cache (which would still answer
   * for a file that expired, or that was withdrawn and published again by another commit); empty
   * when it does not exist.
   */
  public Optional<Snapshot> readUncached(long id) throws IOException {
    try {
      return Optional.of(parse(id, log.read(id)));
    } catch (FileNotFoundException e) {
      return Optional.empty();
    }
  }

  /**
   * Snapshot {@code id} from its file's bytes; @throws DamagedFileException when they do not parse
   */
  private Snapshot parse(long id, byte[] bytes) throws DamagedFileException {
    try {
      return JSON.readValue(bytes, Snapshot.class);
    } catch (IOException | RuntimeException e) {
      throw DamagedFileException.of("snapshot", log.snapshotPath(id), bytes.length, e);
    }
  }

  /** Forgets a cached snapshot {@code id} (a commit withdrew the file it published). */
  public void forget(long id) {
    cache.remove(id);
  }

  /** Snapshot {@code id}; @throws FileNotFoundException naming the id when it does not exist */
  public Snapshot get(long id) throws IOException {
    return find(id)
        .orElseThrow(
            () ->
                new FileNotFoundException(
                    "Snapshot "
                        + id
                        + " does not exist in "
                        + log.directory()
                        + " (never committed, or expired)."));
  }

  /**
   * The fencing token recorded in a snapshot file's bytes (lock-api's {@code FencingTokenReader}
   * for this format), or empty when it has none: a lock-free commit, or a file from before the
   * field.
   *
   * @throws IOException when the bytes are not a JSON snapshot
   */
  public static Optional<FencingToken> fencingToken(byte[] snapshot) throws IOException {
    JsonNode fencing = JSON.readTree(snapshot).get("fencing");
    if (fencing == null || fencing.isNull()) {
      return Optional.empty();
    }
    Snapshot.Fencing parsed = JSON.treeToValue(fencing, Snapshot.Fencing.class);
    return Optional.of(new FencingToken(parsed.lock(), parsed.token()));
  }

  /** The bytes the commit protocol publishes for {@code snapshot}. */
  public static byte[] serialize(Snapshot snapshot) {
    try {
      return JSON.writeValueAsBytes(snapshot);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
