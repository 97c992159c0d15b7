package dev.lockstep.engine.maintenance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.engine.manifest.BucketId;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.snapshot.SnapshotManager;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.fs.FileStatus;
import dev.lockstep.fs.Path;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Tags: named snapshots that expiration never deletes the files of.
 *
 * <p>A tag is the file {@code tag/tag-<name>} under the table directory holding a copy of the
 * tagged snapshot's JSON (the bytes of {@code snapshot/snapshot-<id>}), as Apache Paimon stores
 * them. The copy outlives the snapshot file: when expiration removes snapshot N, a tag of N still
 * names N's manifest lists, and {@link SnapshotExpiration} and {@link OrphanFilesCleaner} keep
 * every data file live in it and every manifest list and manifest it names. Deleting a tag deletes
 * only the tag file; files only it kept become orphans that {@link OrphanFilesCleaner} removes.
 *
 * <p>Creating a tag races with an expiration of the snapshot it names; {@link #create} re-reads the
 * snapshot after writing the tag and withdraws the tag when the snapshot is gone, and expiration
 * reads the tags after deleting the snapshot files and before deleting data files. So either the
 * expiration sees the tag, or the tag's creation sees the snapshot gone and fails.
 */
public final class TagManager {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}");
  private static final String PREFIX = "tag-";

  private final TableStore table;

  public TagManager(TableStore table) {
    this.table = table;
  }

  /** A tag and the snapshot it pins. */
  public record Tag(String name, Snapshot snapshot) {}

  /** The directory holding the tag files. */
  public Path directory() {
    return table.path().child("tag");
  }

  private Path path(String name) {
    return directory().child(PREFIX + name);
  }

  /**
   * Tags snapshot {@code snapshotId} as {@code name}.
   *
   * @throws IllegalArgumentException for a bad or taken name, or a snapshot that does not exist
   */
  public Tag create(String name, long snapshotId) throws IOException {
    checkName(name);
    if (table.fileIO().exists(path(name))) {
      Optional<Tag> existing = find(name);
      throw new IllegalArgumentException(
          "tag '"
              + name
              + "' of "
              + table.fullName()
              + " exists already"
              + existing.map(t -> " (snapshot " + t.snapshot().id() + ")").orElse("")
              + "; delete it first or pick another name");
    }
    SnapshotManager snapshots = table.snapshotManager();
    Optional<Snapshot> snapshot = snapshots.readUncached(snapshotId);
    if (snapshot.isEmpty()) {
      throw new IllegalArgumentException(
          "snapshot "
              + snapshotId
              + " of "
              + table.fullName()
              + " does not exist (the snapshots are "
              + snapshots.earliestId().orElse(0)
              + ".."
              + snapshots.latestId().orElse(0)
              + ")");
    }
    table.fileIO().mkdirs(directory());
    try (OutputStream out = table.fileIO().newOutputStream(path(name), false)) {
      out.write(SnapshotManager.serialize(snapshot.get()));
    }
    // An expiration that planned before the tag existed deletes the snapshot file before it reads
    // the tags: the snapshot still being there means that expiration will see this tag.
    Optional<Snapshot> after = snapshots.readUncached(snapshotId);
    if (after.isEmpty() || !after.get().commitId().equals(snapshot.get().commitId())) {
      table.fileIO().delete(path(name), false);
      throw new IllegalArgumentException(
          "snapshot "
              + snapshotId
              + " of "
              + table.fullName()
              + " expired while it was being tagged; tag a retained snapshot");
    }
    return new Tag(name, snapshot.get());
  }

  /** Deletes tag {@code name}; false when there was none. */
  public boolean delete(String name) throws IOException {
    checkName(name);
    return table.fileIO().delete(path(name), false);
  }

  /** The tag named {@code name}, if any. */
  public Optional<Tag> find(String name) throws IOException {
    checkName(name);
    Path path = path(name);
    if (!table.fileIO().exists(path)) {
      return Optional.empty();
    }
    return Optional.of(new Tag(name, read(path)));
  }

  /** Every tag, ordered by snapshot id, then name. */
  public List<Tag> tags() throws IOException {
    List<Tag> tags = new ArrayList<>();
    if (!table.fileIO().exists(directory())) {
      return tags;
    }
    for (FileStatus status : table.fileIO().list(directory())) {
      String file = status.path().name();
      if (status.directory() || !file.startsWith(PREFIX)) {
        continue;
      }
      try {
        tags.add(new Tag(file.substring(PREFIX.length()), read(status.path())));
      } catch (FileNotFoundException deleted) {
        // Deleted since the listing.
      }
    }
    tags.sort(
        (a, b) ->
            a.snapshot().id() != b.snapshot().id()
                ? Long.compare(a.snapshot().id(), b.snapshot().id())
                : a.name().compareTo(b.name()));
    return tags;
  }

  /**
   * Adds what the tags keep, as paths relative to the table directory: every data file live in a
   * tagged snapshot ({@code <bucket directory>/<file>}) and every manifest list and manifest it
   * names ({@code manifest/<name>}).
   */
  void addReferences(Collection<Tag> tags, Set<String> dataFiles, Set<String> manifests)
      throws IOException {
    FileStoreScan scan = new FileStoreScan(table);
    for (Tag tag : tags) {
      Snapshot s = tag.snapshot();
      for (ManifestEntry e : scan.liveFiles(s).values()) {
        dataFiles.add(
            new BucketId(e.partition(), e.bucket()).directory() + "/" + e.file().fileName());
      }
      addIndexReferences(table, s, manifests);
      for (String list : TableCheck.lists(s)) {
        manifests.add("manifest/" + list);
        for (ManifestFileMeta m : table.manifestList().read(list)) {
          manifests.add("manifest/" + m.fileName());
        }
      }
    }
  }

  /**
   * Adds the index manifest {@code s} names and its index files (dynamic buckets), as {@code
   * manifest/<name>}.
   */
  static void addIndexReferences(TableStore table, Snapshot s, Set<String> out) throws IOException {
    if (s.indexManifest() == null) {
      return;
    }
    out.add("manifest/" + s.indexManifest());
    for (dev.lockstep.engine.manifest.IndexFileMeta f :
        table.indexManifest().read(s.indexManifest())) {
      out.add("manifest/" + f.fileName());
    }
  }

  private Snapshot read(Path path) throws IOException {
    byte[] bytes;
    try (InputStream in = table.fileIO().newInputStream(path)) {
      bytes = in.readAllBytes();
    }
    try {
      return JSON.readValue(bytes, Snapshot.class);
    } catch (JsonProcessingException e) {
      throw new IOException(
          "tag file "
              + path
              + " of "
              + table.fullName()
              + " is not a snapshot"
              + " ("
              + (bytes.length == 0 ? "empty" : e.getOriginalMessage())
              + "); delete it with"
              + " 'lockstep table delete-tag' or restore it",
          e);
    }
  }

  private static void checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "tag name '"
              + name
              + "' is not valid: use letters,"
              + " digits, '_', '-' and '.', not starting with '.' or '-'");
    }
  }
}
