package dev.lockstep.engine.maintenance;

import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.IndexFileMeta;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.FileStoreScan;
import dev.lockstep.engine.schema.SchemaManager;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.fs.Path;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks, without writing, that every file a table's snapshots and tags reference is present and
 * parses: each snapshot file from the earliest to the latest, every manifest list and manifest they
 * name, every schema they use, and every data file live in one of them (present, with the size its
 * manifest recorded). With {@code deep}, every row of every such data file is read too and counted
 * against the manifest. Each problem names the file, what is wrong with it (missing, empty,
 * truncated at byte N, unparsable, a size or row count that differs) and the snapshots that
 * reference it.
 */
public final class TableCheck {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final TableStore table;
  private final boolean deep;

  public TableCheck(TableStore table, boolean deep) {
    this.table = table;
    this.deep = deep;
  }

  /**
   * One damaged file.
   *
   * @param kind snapshot, tag, manifest list, manifest, data file or schema
   * @param snapshots the snapshots (or tags) that reference it; empty for a snapshot file itself
   */
  public record Problem(String kind, String file, String damage, List<String> snapshots) {
    public Problem {
      snapshots = List.copyOf(snapshots);
    }

    /** One line: the file, the damage, who references it. */
    public String describe() {
      String refs =
          snapshots.isEmpty()
              ? ""
              : "; referenced by "
                  + (snapshots.size() <= 5
                      ? String.join(", ", snapshots)
                      : String.join(", ", snapshots.subList(0, 5))
                          + " and "
                          + (snapshots.size() - 5)
                          + " more");
      return kind + " " + file + " is " + damage + refs;
    }
  }

  /** What was checked and what is damaged. */
  public record Report(
      int snapshots,
      int tags,
      int manifestLists,
      int manifests,
      int dataFiles,
      int schemas,
      long rowsRead,
      boolean deep,
      List<Problem> problems) {
    public Report {
      problems = List.copyOf(problems);
    }

    public boolean ok() {
      return problems.isEmpty();
    }
  }

  /**
   * Runs the check; see the class javadoc. Reads through a fresh table object: the given one's
   * caches may hold files that were intact when it read them.
   */
  public Report run() throws IOException {
    try (TableStore fresh =
        new TableStore(
            table.fileIO(),
            table.path(),
            table.fullName(),
            table.schema(),
            table.options().all().asMap())) {
      return check(fresh);
    }
  }

  private Report check(TableStore table) throws IOException {
    List<Problem> problems = new ArrayList<>();
    // Who references what: "snapshot N" or "tag T".
    Map<String, Snapshot> readable = new LinkedHashMap<>();
    List<Long> ids = table.snapshotManager().log().listIds();
    int snapshotFiles = 0;
    if (!ids.isEmpty()) {
      long first = ids.get(0);
      long last = ids.get(ids.size() - 1);
      // Below the EARLIEST hint (written by expiration once it deleted the snapshots below) a gap
      // is expiration's, not damage: a file there is an expired id published again. From the
      // hint on (or from the oldest file without one), every id must be there.
      long history = first;
      Path hint = table.snapshotManager().log().directory().child("EARLIEST");
      try (InputStream in = table.fileIO().newInputStream(hint)) {
        history =
            Math.max(
                first,
                Long.parseLong(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim()));
      } catch (IOException | RuntimeException noHint) {
        // No (readable) hint: nothing has expired, or the hint is lost; check from the oldest.
      }
      for (long id = first; id <= last; id++) {
        if (id < history && !ids.contains(id)) {
          continue;
        }
        snapshotFiles++;
        Path path = table.snapshotManager().log().snapshotPath(id);
        try {
          Snapshot s = JSON.readValue(table.snapshotManager().log().read(id), Snapshot.class);
          readable.put("snapshot " + id, s);
        } catch (IOException | RuntimeException e) {
          problems.add(new Problem("snapshot", path.toString(), damage(path, e), List.of()));
        }
      }
    }
    TagManager tags = new TagManager(table);
    int tagFiles = 0;
    if (table.fileIO().exists(tags.directory())) {
      for (var status : table.fileIO().list(tags.directory())) {
        String name = status.path().name();
        if (status.directory() || !name.startsWith("tag-")) {
          continue;
        }
        tagFiles++;
        try {
          tags.find(name.substring("tag-".length()))
              .ifPresent(t -> readable.put("tag " + t.name(), t.snapshot()));
        } catch (IOException | RuntimeException e) {
          problems.add(
              new Problem("tag", status.path().toString(), damage(status.path(), e), List.of()));
        }
      }
    }

    // Manifest lists, then the manifests in the readable ones.
    Map<String, Set<String>> listRefs = new LinkedHashMap<>();
    Map<Long, Set<String>> schemaRefs = new LinkedHashMap<>();
    readable.forEach(
        (who, s) -> {
          lists(s).forEach(l -> listRefs.computeIfAbsent(l, k -> new LinkedHashSet<>()).add(who));
          schemaRefs.computeIfAbsent(s.schemaId(), k -> new LinkedHashSet<>()).add(who);
        });
    Set<String> badLists = new LinkedHashSet<>();
    Map<String, Set<String>> manifestRefs = new LinkedHashMap<>();
    Map<String, ManifestFileMeta> manifestMetas = new LinkedHashMap<>();
    Map<String, List<String>> manifestsOfList = new LinkedHashMap<>();
    for (Map.Entry<String, Set<String>> list : listRefs.entrySet()) {
      Path path = table.path().child("manifest").child(list.getKey());
      try {
        List<String> names = new ArrayList<>();
        for (ManifestFileMeta m : table.manifestList().read(list.getKey())) {
          manifestMetas.putIfAbsent(m.fileName(), m);
          manifestRefs
              .computeIfAbsent(m.fileName(), k -> new LinkedHashSet<>())
              .addAll(list.getValue());
          names.add(m.fileName());
        }
        manifestsOfList.put(list.getKey(), names);
      } catch (IOException | RuntimeException e) {
        badLists.add(list.getKey());
        problems.add(
            new Problem(
                "manifest list",
                path.toString(),
                damage(path, e),
                new ArrayList<>(list.getValue())));
      }
    }
    Set<String> badManifests = new LinkedHashSet<>();
    for (Map.Entry<String, ManifestFileMeta> m : manifestMetas.entrySet()) {
      Path path = table.manifestFile().path(m.getKey());
      try {
        long length = table.fileIO().getStatus(path).length();
        long expected = m.getValue().fileSize();
        if (length < expected) {
          badManifests.add(m.getKey());
          problems.add(
              new Problem(
                  "manifest",
                  path.toString(),
                  (length == 0 ? "empty" : "truncated at byte " + length)
                      + " (its manifest list says "
                      + expected
                      + " bytes)",
                  new ArrayList<>(manifestRefs.get(m.getKey()))));
          continue;
        }
        table.manifestFile().read(m.getValue());
      } catch (IOException | RuntimeException e) {
        badManifests.add(m.getKey());
        problems.add(
            new Problem(
                "manifest",
                path.toString(),
                damage(path, e),
                new ArrayList<>(manifestRefs.get(m.getKey()))));
      }
    }

    // Data files live in a snapshot or tag whose metadata reads.
    FileStoreScan scan = new FileStoreScan(table);
    Map<ManifestEntry.FileId, ManifestEntry> files = new LinkedHashMap<>();
    Map<ManifestEntry.FileId, Set<String>> fileRefs = new LinkedHashMap<>();
    for (Map.Entry<String, Snapshot> r : readable.entrySet()) {
      boolean intact = true;
      for (String list : lists(r.getValue())) {
        intact &=
            !badLists.contains(list)
                && manifestsOfList.get(list).stream().noneMatch(badManifests::contains);
      }
      if (!intact) {
        continue;
      }
      for (ManifestEntry e : scan.liveFiles(r.getValue()).values()) {
        files.putIfAbsent(e.id(), e);
        fileRefs.computeIfAbsent(e.id(), k -> new LinkedHashSet<>()).add(r.getKey());
      }
    }
    long rows = 0;
    for (ManifestEntry e : files.values()) {
      Path path = table.bucketPath(e.partition(), e.bucket()).child(e.file().fileName());
      List<String> refs = new ArrayList<>(fileRefs.get(e.id()));
      long length;
      try {
        length = table.fileIO().getStatus(path).length();
      } catch (FileNotFoundException | NoSuchFileException missing) {
        problems.add(new Problem("data file", path.toString(), "missing", refs));
        continue;
      }
      if (length != e.file().fileSize()) {
        String what =
            length == 0
                ? "empty"
                : length < e.file().fileSize()
                    ? "truncated at byte " + length
                    : length + " bytes long";
        problems.add(
            new Problem(
                "data file",
                path.toString(),
                what + " (its manifest says " + e.file().fileSize() + " bytes)",
                refs));
        continue;
      }
      if (deep) {
        long count = 0;
        try (FormatReader reader =
            table.format().createReader(table.fileIO(), path, table.dataFileRowType())) {
          while (reader.next() != null) {
            count++;
          }
        } catch (IOException | RuntimeException ex) {
          problems.add(new Problem("data file", path.toString(), damage(path, ex), refs));
          continue;
        }
        rows += count;
        if (count != e.file().rowCount()) {
          problems.add(
              new Problem(
                  "data file",
                  path.toString(),
                  "holding " + count + " rows (its manifest says " + e.file().rowCount() + ")",
                  refs));
        }
      }
    }

    // Index manifests and their index files (dynamic buckets): present and of the recorded size.
    Map<String, Set<String>> indexRefs = new LinkedHashMap<>();
    readable.forEach(
        (who, s) -> {
          if (s.indexManifest() != null) {
            indexRefs.computeIfAbsent(s.indexManifest(), k -> new LinkedHashSet<>()).add(who);
          }
        });
    Map<String, IndexFileMeta> indexFiles = new LinkedHashMap<>();
    Map<String, Set<String>> indexFileRefs = new LinkedHashMap<>();
    for (Map.Entry<String, Set<String>> m : indexRefs.entrySet()) {
      Path path = table.indexManifest().path(m.getKey());
      try {
        for (IndexFileMeta f : table.indexManifest().read(m.getKey())) {
          indexFiles.putIfAbsent(f.fileName(), f);
          indexFileRefs
              .computeIfAbsent(f.fileName(), k -> new LinkedHashSet<>())
              .addAll(m.getValue());
        }
      } catch (IOException | RuntimeException e) {
        problems.add(
            new Problem(
                "index manifest", path.toString(), damage(path, e), List.copyOf(m.getValue())));
      }
    }
    for (IndexFileMeta f : indexFiles.values()) {
      Path path = table.indexManifest().path(f.fileName());
      List<String> refs = new ArrayList<>(indexFileRefs.get(f.fileName()));
      try {
        long length = table.fileIO().getStatus(path).length();
        if (length != f.fileSize()) {
          problems.add(
              new Problem(
                  "index file",
                  path.toString(),
                  (length == 0 ? "empty" : length + " bytes long")
                      + " (its index manifest says "
                      + f.fileSize()
                      + " bytes)",
                  refs));
        }
      } catch (FileNotFoundException | NoSuchFileException missing) {
        problems.add(new Problem("index file", path.toString(), "missing", refs));
      }
    }

    // Schemas: every version on disk and every one a snapshot uses.
    SchemaManager schemas = new SchemaManager(table.fileIO(), table.path());
    Set<Long> schemaIds = new TreeSet<>(schemas.listIds());
    schemaIds.addAll(schemaRefs.keySet());
    for (long id : schemaIds) {
      Path path = schemas.schemaPath(id);
      try {
        schemas.read(id);
      } catch (IOException | RuntimeException e) {
        problems.add(
            new Problem(
                "schema",
                path.toString(),
                damage(path, e),
                new ArrayList<>(schemaRefs.getOrDefault(id, Set.of()))));
      }
    }
    return new Report(
        snapshotFiles,
        tagFiles,
        listRefs.size(),
        manifestMetas.size(),
        files.size(),
        schemaIds.size(),
        rows,
        deep,
        problems);
  }

  /** The manifest lists a snapshot names: its base, prior deltas and delta list. */
  static List<String> lists(Snapshot s) {
    List<String> lists = new ArrayList<>();
    lists.add(s.baseManifestList());
    s.priorDeltas().forEach(p -> lists.add(p.deltaManifestList()));
    lists.add(s.deltaManifestList());
    return lists;
  }

  /** What is wrong with {@code path}, which failed to read with {@code e}. */
  private String damage(Path path, Throwable e) {
    if (e instanceof FileNotFoundException || e instanceof NoSuchFileException) {
      return "missing";
    }
    long length = -1;
    try {
      length = table.fileIO().getStatus(path).length();
    } catch (IOException | RuntimeException gone) {
      return "missing";
    }
    if (length == 0) {
      return "empty";
    }
    if (e instanceof JsonEOFException
        || e instanceof EOFException
        || e.getCause() instanceof EOFException) {
      return "truncated at byte " + length;
    }
    String message =
        e.getMessage() == null
            ? e.getClass().getSimpleName()
            : e.getClass().getSimpleName() + ": " + e.getMessage();
    int nl = message.indexOf('\n');
    message = nl < 0 ? message : message.substring(0, nl);
    return "unparsable ("
        + (message.length() > 160 ? message.substring(0, 160) + "..." : message)
        + ")";
  }
}
