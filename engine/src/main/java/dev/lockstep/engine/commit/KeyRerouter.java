package dev.lockstep.engine.commit;

import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.data.RowComparator;
import dev.lockstep.engine.format.FormatReader;
import dev.lockstep.engine.index.IntIntMap;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.store.RollingFileWriter;
import dev.lockstep.engine.store.TableStore;
import dev.lockstep.engine.write.CommitMessage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Dynamic buckets: moves the rows of keys whose hash another commit assigned to another bucket
 * (since this commit's base) into that bucket, so that every key stays in one bucket.
 *
 * <p>For each new file of a message holding such a key: its rows are read in order and split by the
 * committed bucket of their key hash; the rows that stay are written to a new level-0 file of the
 * message's bucket, the others to new level-0 files of the winners' buckets, each with its sequence
 * number. The moved rows are committed by this commit's snapshot, later than the winner's, so they
 * order after every row the winning bucket holds for the key (last committed write wins, as for any
 * two commits). Files without such a key are kept as they are. The moved hashes leave the message's
 * index assignments (the winner's bucket has them). The message's changelog files stay with it.
 *
 * <p>The caller's files are never deleted before the commit succeeds ({@link #committed}); after a
 * failure that published nothing, {@link #abandon} deletes the files written here.
 */
final class KeyRerouter {

  private final TableStore table;
  private final int[] keyIndexes;

  /** Files written here (by bucket path and name), deleted by {@link #abandon}. */
  private final List<String[]> written = new ArrayList<>();

  /** Files of the caller's messages rewritten here, deleted by {@link #committed}. */
  private final List<String[]> replaced = new ArrayList<>();

  KeyRerouter(TableStore table) {
    this.table = table;
    this.keyIndexes = table.schema().primaryKeyIndexes();
  }

  /** {@code messages} with the keys of {@code winners} (by partition) moved to their buckets. */
  List<CommitMessage> reroute(List<CommitMessage> messages, Map<String, IntIntMap> winners)
      throws IOException {
    List<CommitMessage> out = new ArrayList<>();
    for (CommitMessage m : messages) {
      IntIntMap moved = winners.get(m.partition());
      int[] hashes = m.indexHashes();
      int movedCount = 0;
      if (moved != null) {
        for (int h : hashes) {
          if (moved.get(h) >= 0 && moved.get(h) != m.bucket()) {
            movedCount++;
          }
        }
      }
      if (movedCount == 0) {
        out.add(m);
        continue;
      }
      int[] kept = new int[hashes.length - movedCount];
      int k = 0;
      for (int h : hashes) {
        if (!(moved.get(h) >= 0 && moved.get(h) != m.bucket())) {
          kept[k++] = h;
        }
      }
      List<DataFileMeta> stay = new ArrayList<>();
      Map<Integer, List<DataFileMeta>> elsewhere = new TreeMap<>();
      for (DataFileMeta file : m.newFiles()) {
        split(m, file, moved, stay, elsewhere);
      }
      // The message's changelog files (changelog-producer input) stay where they are, in its
      // bucket, and still go into the snapshot's changelog: they record the batch's changes,
      // wherever
      // its rows now live.
      out.add(
          new CommitMessage(
              m.partition(),
              m.bucket(),
              m.totalBuckets(),
              stay,
              m.compactBefore(),
              m.compactAfter(),
              m.baseSnapshotId(),
              m.changelogFiles(),
              kept));
      for (Map.Entry<Integer, List<DataFileMeta>> e : elsewhere.entrySet()) {
        out.add(
            new CommitMessage(
                m.partition(),
                e.getKey(),
                m.totalBuckets(),
                e.getValue(),
                List.of(),
                List.of(),
                m.baseSnapshotId()));
      }
    }
    return out;
  }

  private void split(
      CommitMessage m,
      DataFileMeta file,
      IntIntMap moved,
      List<DataFileMeta> stay,
      Map<Integer, List<DataFileMeta>> elsewhere)
      throws IOException {
    int sequenceIndex = table.schema().fields().size() + 1;
    Map<Integer, List<GenericRow>> rows = new LinkedHashMap<>();
    try (FormatReader reader =
        table
            .format()
            .createReader(
                table.fileIO(),
                table.bucketPath(m.partition(), m.bucket()).child(file.fileName()),
                table.dataFileRowType())) {
      for (GenericRow row = reader.next(); row != null; row = reader.next()) {
        int target = moved.get(RowComparator.stableHash(row, keyIndexes));
        if (target < 0) {
          target = m.bucket();
        }
        rows.computeIfAbsent(target, t -> new ArrayList<>()).add(row);
      }
    }
    if (rows.size() == 1 && rows.containsKey(m.bucket())) {
      stay.add(file);
      return;
    }
    replaced.add(new String[] {m.partition(), Integer.toString(m.bucket()), file.fileName()});
    for (Map.Entry<Integer, List<GenericRow>> e : rows.entrySet()) {
      int bucket = e.getKey();
      RollingFileWriter writer = new RollingFileWriter(table, m.partition(), bucket, 0);
      for (GenericRow row : e.getValue()) {
        writer.write(row, (Long) row.get(sequenceIndex));
      }
      List<DataFileMeta> files = writer.finish();
      for (DataFileMeta f : files) {
        written.add(new String[] {m.partition(), Integer.toString(bucket), f.fileName()});
      }
      if (bucket == m.bucket()) {
        stay.addAll(files);
      } else {
        elsewhere.computeIfAbsent(bucket, b -> new ArrayList<>()).addAll(files);
      }
    }
  }

  /** The commit succeeded: the rewritten originals are unreferenced, delete them. */
  void committed() {
    delete(replaced);
    replaced.clear();
    written.clear();
  }

  /** The commit failed without publishing: delete what was written here. */
  void abandon() {
    delete(written);
    written.clear();
    replaced.clear();
  }

  private void delete(List<String[]> files) {
    for (String[] f : files) {
      try {
        table.fileIO().delete(table.bucketPath(f[0], Integer.parseInt(f[1])).child(f[2]), false);
      } catch (IOException e) {
        // Unreferenced: orphan-file removal collects it.
      }
    }
  }
}
