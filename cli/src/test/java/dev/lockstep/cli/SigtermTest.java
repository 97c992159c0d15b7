package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, interruption by SIGTERM ({@code kill -TERM}, exit 143) of every command that changes a
 * table: write, compact, overwrite, expire-snapshots and remove-orphan-files, a few runs each at
 * random points. Each run says what it committed (or expired, or removed) and what not, and leaves
 * the table passing {@code table check --deep} with no file left behind ({@link SignalledRuns}).
 */
class SigtermTest {

  private static final int RUNS = 3;

  @TempDir Path dir;

  private SignalledRuns runs;

  @BeforeEach
  void createTable() {
    runs = new SignalledRuns(dir);
    runs.ok(
        "create",
        "--schema",
        "k INT NOT NULL, v BIGINT, s STRING",
        "--primary-key",
        "k",
        "-o",
        "bucket=2",
        "-o",
        "write-only=true");
  }

  private String count() {
    return runs.ok("count").out().strip();
  }

  @Test
  void writeAndCompactStopOnSigtermWith143AndASummary() throws Exception {
    for (int run = 0; run < RUNS; run++) {
      runs.interruptAt(
          "TERM",
          400,
          "write",
          "--generate",
          "3000",
          "--offset",
          Integer.toString(run * 1000),
          "--batch-rows",
          "300");
      runs.ok("write", "--generate", "2000", "--offset", "50000", "--batch-rows", "1000");
      String before = count();
      runs.interruptAt("TERM", 300, "compact", "--full", "--no-expire");
      assertThat(count()).isEqualTo(before);
    }
  }

  @Test
  void overwriteStopsOnSigtermWithTheTableAsBeforeOrOverwritten() throws Exception {
    runs.ok("write", "--generate", "1000");
    for (int run = 0; run < RUNS; run++) {
      String output =
          runs.interruptAt(
              "TERM", 300, "overwrite", "--all", "--generate", Integer.toString(20000 + run));
      String rows = count();
      if (output.contains("not committed")) {
        assertThat(rows).as(output).isNotEqualTo(Integer.toString(20000 + run));
      } else if (output.contains("overwrote")) {
        assertThat(rows).as(output).isEqualTo(Integer.toString(20000 + run));
      }
    }
  }

  @Test
  void expirationStopsOnSigtermAndSaysWhatExpired() throws Exception {
    for (int run = 0; run < RUNS; run++) {
      // Many small snapshots, so that the expiration has something to do for a while.
      runs.ok(
          "write",
          "--generate",
          "400",
          "--offset",
          Integer.toString(run * 400),
          "--batch-rows",
          "10");
      String before = count();
      String output =
          runs.interruptAt(
              "TERM",
              100,
              false,
              "expire-snapshots",
              "--retain-min",
              "1",
              "--retain-max",
              "1",
              "--older-than",
              "0s");
      assertThat(count()).isEqualTo(before);
      // Expiration writes nothing; stopped between deleting the snapshot files and the files only
      // they referenced (SnapshotExpiration's steps 3 and 4), it says that the rest are orphans.
      CliRun orphans = runs.ok("remove-orphan-files", "--older-than", "0s");
      if (!output.contains("are orphans for 'lockstep table remove-orphan-files'")) {
        assertThat(orphans.out()).as(output).contains("removed 0 orphan");
      }
    }
  }

  @Test
  void orphanRemovalStopsOnSigtermAndSaysHowManyItRemoved() throws Exception {
    runs.ok("write", "--generate", "1000");
    Path bucket = dir.resolve("wh/db.db/t/bucket-0");
    for (int run = 0; run < RUNS; run++) {
      // Orphans from long ago: files in a bucket no snapshot names.
      FileTime old = FileTime.from(Instant.now().minusSeconds(7200));
      List<Path> created = new ArrayList<>();
      for (int i = 0; i < 3000; i++) {
        Path orphan = bucket.resolve("data-" + UUID.randomUUID() + "-0.parquet");
        Files.write(orphan, new byte[] {1});
        Files.setLastModifiedTime(orphan, old);
        created.add(orphan);
      }
      String before = count();
      String output =
          runs.interruptAt("TERM", 100, false, "remove-orphan-files", "--older-than", "1h");
      assertThat(count()).isEqualTo(before);
      long left = created.stream().filter(Files::exists).count();
      if (output.contains("interrupted by SIGTERM")) {
        assertThat(output).as(output).contains("removed " + (3000 - left) + " orphan file(s)");
      }
      CliRun rest = runs.ok("remove-orphan-files", "--older-than", "1h");
      assertThat(rest.out()).contains("removed " + left + " orphan file(s)");
    }
  }
}
