package dev.lockstep.engine.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TestTables;
import dev.lockstep.engine.commit.TableCommit;
import dev.lockstep.engine.data.GenericRow;
import dev.lockstep.engine.manifest.DataFileMeta;
import dev.lockstep.engine.manifest.FileKind;
import dev.lockstep.engine.manifest.ManifestEntry;
import dev.lockstep.engine.manifest.ManifestFileMeta;
import dev.lockstep.engine.table.FileStoreTable;
import dev.lockstep.engine.write.TableWrite;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Manifests read in parallel ({@code scan.manifest.parallelism}) give what reading them one after
 * the other gives: entries in the manifests' order, the first failure thrown, and on a real table
 * the same live files and plan.
 */
class ParallelManifestReadsTest {

  @TempDir java.nio.file.Path dir;

  private static List<ManifestFileMeta> metas(int n) {
    List<ManifestFileMeta> metas = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      metas.add(new ManifestFileMeta("manifest-" + i, 1, 1, 0, -1));
    }
    return metas;
  }

  private static List<ManifestEntry> entryOf(ManifestFileMeta meta) {
    return List.of(
        new ManifestEntry(
            FileKind.ADD,
            "",
            0,
            1,
            new DataFileMeta(meta.fileName(), 1, 1, null, null, 0, 0, 0, 0, 0, 1)));
  }

  @Test
  void entriesComeInTheManifestsOrderWhateverOrderTheReadsFinishIn() throws IOException {
    List<ManifestFileMeta> metas = metas(200);
    List<List<ManifestEntry>> read =
        ParallelManifestReads.read(
            metas,
            meta -> {
              if (ThreadLocalRandom.current().nextInt(4) == 0) {
                Thread.onSpinWait();
                Thread.yield();
              }
              return entryOf(meta);
            },
            8);
    assertThat(read).hasSize(200);
    for (int i = 0; i < 200; i++) {
      assertThat(read.get(i).get(0).file().fileName()).isEqualTo("manifest-" + i);
    }
  }

  @Test
  void readsOverlapWhenParallelismAllows() throws IOException {
    CountDownLatch twoAtOnce = new CountDownLatch(2);
    List<Boolean> overlapped = java.util.Collections.synchronizedList(new ArrayList<>());
    ParallelManifestReads.read(
        metas(2),
        meta -> {
          twoAtOnce.countDown();
          try {
            overlapped.add(twoAtOnce.await(30, TimeUnit.SECONDS));
          } catch (InterruptedException e) {
            throw new IOException(e);
          }
          return entryOf(meta);
        },
        2);
    assertThat(overlapped).containsExactly(true, true);
  }

  @Test
  void theFirstFailureIsThrownAfterTheOtherReadsFinished() {
    assertThatThrownBy(
            () ->
                ParallelManifestReads.read(
                    metas(50),
                    meta -> {
                      if (meta.fileName().equals("manifest-17")) {
                        throw new IOException("manifest-17 is damaged");
                      }
                      return entryOf(meta);
                    },
                    4))
        .isInstanceOf(IOException.class)
        .hasMessage("manifest-17 is damaged");
  }

  @Test
  void aTablePlansTheSameFilesWithOneThreadAndWithMany() throws Exception {
    FileStoreTable table =
        TestTables.keyValueTable(
            dir,
            Map.of(
                "bucket", "3",
                "num-sorted-run.compaction-trigger", "2",
                "manifest.merge-min-count", "3",
                "file.format", "avro"));
    TableCommit commit = table.newCommit("u");
    try (TableWrite write = table.newWrite("u")) {
      for (int c = 1; c <= 25; c++) {
        for (int k = 0; k < 20; k++) {
          write.write(GenericRow.of((c * 7 + k) % 60, "v" + c));
        }
        commit.commit(c, write.prepareCommit());
      }
    }
    var latest = table.snapshotManager().latest().orElseThrow();
    FileStoreTable one = table.copyWithOptions(Map.of("scan.manifest.parallelism", "1"));
    FileStoreTable many = table.copyWithOptions(Map.of("scan.manifest.parallelism", "16"));
    assertThat(one.store().manifests(latest)).hasSizeGreaterThan(1);
    assertThat(new ArrayList<>(many.store().liveFiles(latest).entrySet()))
        .isEqualTo(new ArrayList<>(one.store().liveFiles(latest).entrySet()));
    assertThat(many.newScan().plan().splits().toString())
        .isEqualTo(one.newScan().plan().splits().toString());
    assertThat(TestTables.readKeyValues(many)).isEqualTo(TestTables.readKeyValues(one));
    table.close();
  }
}
