package dev.lockstep.commit;

import dev.lockstep.fs.FileIO;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot files of one table: {@code <dir>/snapshot-<id>}, with the best-effort hint files
 * {@code LATEST} and {@code EARLIEST}.
 *
 * <p>Hints are never trusted alone. {@link #latestId()} reads {@code LATEST} = h, then checks that
 * {@code snapshot-h} exists and walks forward while {@code snapshot-(h+1)} exists; a missing, torn
 * or stale hint falls back to listing. {@link #earliestId()} does the same backwards. Names that
 * are not {@code snapshot-<digits>} (temporary files, hints) are ignored by listings.
 */
public final class SnapshotLog {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotLog.class);
  static final String PREFIX = "snapshot-";
  static final String LATEST = "LATEST";
  static final String EARLIEST = "EARLIEST";
  private static final int MAX_HINT_WALK = 16;

  private final FileIO store;
  private final Path directory;

  public SnapshotLog(FileIO store, Path directory) {
    this.store = store;
    this.directory = directory;
  }

  public Path directory() {
    return directory;
  }

  public Path snapshotPath(long id) {
    return directory.child(PREFIX + id);
  }

  /** Whether {@code snapshot-<id>} exists. */
  public boolean exists(long id) throws IOException {
    return store.exists(snapshotPath(id));
  }

  /**
   * The content of {@code snapshot-<id>}.
   *
   * @throws FileNotFoundException when it does not exist (never committed, or expired)
   */
  public byte[] read(long id) throws IOException {
    return readFile(store, snapshotPath(id));
  }

  /** The ids of every snapshot file, ascending. */
  public List<Long> listIds() throws IOException {
    List<Long> ids = new ArrayList<>();
    for (FileStatus status : store.list(directory)) {
      long id = parseId(status.path().name());
      if (id > 0 && !status.directory()) {
        ids.add(id);
      }
    }
    ids.sort(null);
    return ids;
  }

  /**
   * The newest snapshot id, or empty when the table has none.
   *
   * <p>Where snapshots are deleted (expired) and an expired id can be published again (a late write
   * of unknown outcome, or a committer paused past the expiration of its id), such a file sits
   * below the newest one, with a gap above it, and the hint may name it (it is written on
   * COMMITTED, and may land late). This log knows no snapshot format and cannot tell it from the
   * newest: a caller whose format links each snapshot to its parent verifies the answer (the
   * engine's {@code SnapshotManager.latestId()} takes it only when the snapshot before it is its
   * parent, and lists otherwise). The newest listed id is always right.
   */
  public OptionalLong latestId() throws IOException {
    OptionalLong hint = readHint(LATEST);
    if (hint.isPresent() && exists(hint.getAsLong())) {
      long id = hint.getAsLong();
      for (int step = 0; step < MAX_HINT_WALK; step++) {
        if (!exists(id + 1)) {
          return OptionalLong.of(id);
        }
        id++;
      }
    }
    List<Long> ids = listIds();
    return ids.isEmpty() ? OptionalLong.empty() : OptionalLong.of(ids.get(ids.size() - 1));
  }

  /**
   * The oldest snapshot id still present, or empty when the table has none. Where expired ids can
   * be published again (see {@link #latestId()}), this is the oldest file, which may lie below the
   * history; a caller that knows the format walks up to the first snapshot its successor was built
   * on.
   */
  public OptionalLong earliestId() throws IOException {
    OptionalLong hint = readHint(EARLIEST);
    if (hint.isPresent()
        && exists(hint.getAsLong())
        && (hint.getAsLong() == 1 || !exists(hint.getAsLong() - 1))) {
      return hint;
    }
    List<Long> ids = listIds();
    return ids.isEmpty() ? OptionalLong.empty() : OptionalLong.of(ids.get(0));
  }

  /** Best effort: records {@code id} as the latest. Failures are logged, never thrown. */
  public void writeLatestHint(long id) {
    writeHint(LATEST, id);
  }

  /** Best effort: records {@code id} as the earliest. Failures are logged, never thrown. */
  public void writeEarliestHint(long id) {
    writeHint(EARLIEST, id);
  }

  private void writeHint(String name, long id) {
    try (OutputStream out = store.newOutputStream(directory.child(name), true)) {
      out.write(Long.toString(id).getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      LOG.debug("Could not write the {} hint {} in {}: {}", name, id, directory, e.toString());
    }
  }

  private OptionalLong readHint(String name) {
    try {
      String text = new String(readFile(store, directory.child(name)), StandardCharsets.US_ASCII);
      long id = Long.parseLong(text.trim());
      return id > 0 ? OptionalLong.of(id) : OptionalLong.empty();
    } catch (IOException | NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /** The id in a file name {@code snapshot-<digits>}, or -1 for any other name. */
  static long parseId(String name) {
    if (!name.startsWith(PREFIX) || name.length() == PREFIX.length()) {
      return -1;
    }
    for (int i = PREFIX.length(); i < name.length(); i++) {
      if (!Character.isDigit(name.charAt(i))) {
        return -1;
      }
    }
    try {
      return Long.parseLong(name.substring(PREFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static byte[] readFile(FileIO store, Path path) throws IOException {
    try (InputStream in = store.newInputStream(path)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }
}
