package dev.lockstep.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.scan.Split;
import dev.lockstep.engine.snapshot.DamagedFileException;
import dev.lockstep.engine.snapshot.Snapshot;
import dev.lockstep.engine.table.FileStoreTable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns a failure to read a table into one line that names the broken file and the fix: a snapshot
 * file that is not valid JSON, a manifest list or manifest that is truncated or missing, a data
 * file that is missing or unreadable. It finds the file by reading the snapshot's files one by one.
 */
final class TableDiagnosis {

  private TableDiagnosis() {}

  /** Snapshot {@code id}, or a {@link UserError} naming its file when it is corrupt or missing. */
  static Snapshot snapshot(FileStoreTable table, long id) throws IOException {
    String file = table.snapshotManager().log().snapshotPath(id).toString();
    try {
      return table.snapshotManager().get(id);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new UserError(
          "snapshot file "
              + file
              + " is corrupt ("
              + firstLine(e)
              + "). Restore it"
              + " from a backup; older snapshots stay readable with --snapshot (see 'lockstep table"
              + " snapshots').",
          OneLineErrors.ENVIRONMENT);
    } catch (FileNotFoundException e) {
      throw new UserError(
          "snapshot "
              + id
              + " of "
              + table.fullName()
              + " does not exist ("
              + file
              + "; never committed, or expired). List the snapshots with 'lockstep table snapshots'.",
          OneLineErrors.ENVIRONMENT);
    }
  }

  /** Explains why reading {@code snapshot}'s manifests or {@code splits}' data files failed. */
  static UserError explain(
      FileStoreTable table, Snapshot snapshot, List<Split> splits, Exception failure) {
    try {
      Set<String> lists = new LinkedHashSet<>();
      lists.add(snapshot.baseManifestList());
      snapshot.priorDeltas().forEach(p -> lists.add(p.deltaManifestList()));
      lists.add(snapshot.deltaManifestList());
      List<ManifestFileMeta> manifests = new ArrayList<>();
      for (String list : lists) {
        try {
          manifests.addAll(table.manifestList().read(list));
        } catch (IOException | RuntimeException e) {
          return broken(
              table,
              "manifest list",
              table.path().child("manifest").child(list).toString(),
              snapshot,
              e);
        }
      }
      for (ManifestFileMeta m : manifests) {
        try {
          table.manifestFile().read(m);
        } catch (IOException | RuntimeException e) {
          return broken(
              table, "manifest", table.manifestFile().path(m.fileName()).toString(), snapshot, e);
        }
      }
      for (Split split : splits == null ? List.<Split>of() : splits) {
        for (DataFileMeta f : split.files()) {
          var path = table.bucketPath(split.partition(), split.bucket()).child(f.fileName());
          try (FormatReader reader =
              table.format().createReader(table.fileIO(), path, table.dataFileRowType())) {
            while (reader.next() != null) {
              // Read to the end: a truncated file fails somewhere inside.
            }
          } catch (IOException | RuntimeException e) {
            return broken(table, "data file", path.toString(), snapshot, e);
          }
        }
      }
    } catch (RuntimeException ignored) {
      // Fall through to the original failure.
    }
    return new UserError(
        "reading "
            + table.fullName()
            + " at snapshot "
            + snapshot.id()
            + " failed: "
            + OneLineErrors.describe(failure),
        OneLineErrors.ENVIRONMENT);
  }

  private static UserError broken(
      FileStoreTable table, String what, String file, Snapshot snapshot, Throwable e) {
    boolean missing = e instanceof FileNotFoundException || e instanceof NoSuchFileException;
    String damage;
    if (missing) {
      damage = "missing";
    } else if (e instanceof DamagedFileException d) {
      damage = d.damage();
    } else {
      long length;
      try {
        length = table.fileIO().getStatus(dev.lockstep.fs.Path.of(file)).length();
      } catch (IOException | RuntimeException gone) {
        length = -1;
      }
      damage = length < 0 ? "missing" : DamagedFileException.damage(length, e);
    }
    return new UserError(
        what
            + " "
            + file
            + " is "
            + damage
            + "; snapshot "
            + snapshot.id()
            + " references it. "
            + TableDamage.fix(what)
            + "; or read an older snapshot that does not use it with --snapshot (see"
            + " 'lockstep table snapshots').",
        OneLineErrors.ENVIRONMENT);
  }

  private static String firstLine(Throwable e) {
    String m =
        e.getMessage() == null
            ? e.getClass().getSimpleName()
            : e.getClass().getSimpleName() + ": " + e.getMessage();
    int nl = m.indexOf('\n');
    m = nl < 0 ? m : m.substring(0, nl);
    return m.length() > 160 ? m.substring(0, 160) + "..." : m;
  }
}
