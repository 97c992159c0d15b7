package dev.lockstep.engine.snapshot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.lockstep.commit.FencingToken;
import dev.lockstep.commit.SnapshotLog;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads a table's snapshots through lock-api's {@link SnapshotLog} (which also resolves the latest
 * and earliest ids from hints and listings). Parsed snapshots are cached: snapshot-N never changes
 * once committed. The engine never writes snapshot files itself; see
 * {@link dev.lockstep.engine.commit.TableCommit}.
 */
public final class SnapshotManager {

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT);
  private static final int CACHE_SIZE = 2048;

  private final SnapshotLog log;
  private final Map<Long, Snapshot> cache =
      Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
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

  /**
   * The newest snapshot id. lock-api's {@link SnapshotLog#latestId()} follows the {@code LATEST}
   * hint; a commit that published an id which had existed and expired (and withdraws it again, see
   * {@code CommitLoop}) may have pointed the hint at that old id for a moment, below a gap. So when
   * the snapshot before the answer is missing (its predecessor expired, or the answer sits below a
   * gap), the newest listed id decides: readers never go back in time.
   */
  public OptionalLong latestId() throws IOException {
    OptionalLong hinted = log.latestId();
    if (hinted.isEmpty() || (hinted.getAsLong() > 1 && log.exists(hinted.getAsLong() - 1))) {
      return hinted;
    }
    java.util.List<Long> ids = log.listIds();
    return ids.isEmpty() ? hinted : OptionalLong.of(Math.max(hinted.getAsLong(),
        ids.get(ids.size() - 1)));
  }

  public OptionalLong earliestId() throws IOException {
    return log.earliestId();
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
    Snapshot snapshot = JSON.readValue(bytes, Snapshot.class);
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
      return Optional.of(JSON.readValue(log.read(id), Snapshot.class));
    } catch (FileNotFoundException e) {
      return Optional.empty();
    }
  }

  /** Forgets a cached snapshot {@code id} (a commit withdrew the file it published). */
  public void forget(long id) {
    cache.remove(id);
  }

  /** Snapshot {@code id}; @throws FileNotFoundException naming the id when it does not exist */
  public Snapshot get(long id) throws IOException {
    return find(id).orElseThrow(() -> new FileNotFoundException("Snapshot " + id
        + " does not exist in " + log.directory() + " (never committed, or expired)."));
  }

  /**
   * The fencing token recorded in a snapshot file's bytes (lock-api's {@code FencingTokenReader} for
   * this format), or empty when it has none: a lock-free commit, or a file from before the field.
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
