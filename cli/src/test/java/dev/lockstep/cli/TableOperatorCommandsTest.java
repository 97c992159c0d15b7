package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator commands of issue 25 end to end: check, snapshots --limit/--json, files, tags
 * (honoured by expiration and orphan removal), rollback, drop.
 */
class TableOperatorCommandsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private String[] args(String command, String... more) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "table",
                command,
                "--warehouse",
                dir.resolve("wh").toString(),
                "--table",
                "shop.orders"));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  private CliRun run(String command, String... more) {
    return CliRun.of(args(command, more));
  }

  private CliRun ok(String command, String... more) {
    CliRun run = run(command, more);
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    return run;
  }

  private JsonNode json(String command, String... more) throws Exception {
    String[] withJson = Stream.concat(Stream.of(more), Stream.of("--json")).toArray(String[]::new);
    String out = ok(command, withJson).out();
    assertThat(out.lines().count()).as(out).isEqualTo(1);
    return JSON.readTree(out);
  }

  private Path csv(String... lines) throws Exception {
    Path file = Files.createTempFile(dir, "rows", ".csv");
    Files.write(file, List.of(lines));
    return file;
  }

  /** Three snapshots: 4 rows, then key (d1, 2) again and a new one, then (d2, 1) again. */
  private void threeSnapshots() throws Exception {
    ok(
        "create",
        "--schema",
        "dt STRING, id INT NOT NULL, note STRING",
        "--primary-key",
        "dt,id",
        "--partition-keys",
        "dt",
        "-o",
        "bucket=2",
        "-o",
        "write-only=true");
    ok("write", "--csv", csv("dt,id,note", "d1,1,a", "d1,2,b", "d2,1,c", "d2,2,d").toString());
    ok("write", "--csv", csv("dt,id,note", "d1,2,b2", "d1,3,e").toString());
    ok("write", "--csv", csv("dt,id,note", "d2,1,c2").toString());
  }

  @Test
  void snapshotsCountLiveRowsAndTakeALimitAndJson() throws Exception {
    threeSnapshots();
    JsonNode all = json("snapshots", "--limit", "0");
    assertThat(all.get("total").asLong()).isEqualTo(3);
    JsonNode list = all.get("snapshots");
    assertThat(list).hasSize(3);
    assertThat(list.get(0).get("rows").asLong()).isEqualTo(4);
    assertThat(list.get(1).get("rows").asLong()).isEqualTo(5);
    assertThat(list.get(1).get("delta").asLong()).isEqualTo(1);
    assertThat(list.get(1).get("fileRecords").asLong()).isEqualTo(6);
    assertThat(list.get(2).get("rows").asLong()).isEqualTo(5);
    assertThat(list.get(2).get("delta").asLong()).isZero();

    JsonNode newest = json("snapshots", "--limit", "1");
    assertThat(newest.get("snapshots")).hasSize(1);
    assertThat(newest.get("snapshots").get(0).get("id").asLong()).isEqualTo(3);
    assertThat(newest.get("snapshots").get(0).get("delta").asLong()).isZero();
    String text = ok("snapshots", "--limit", "2").out();
    assertThat(text).contains("the newest 2 of 3 snapshots; --limit 0 shows all");
    assertThat(run("snapshots", "--limit", "-1").err()).contains("--limit must be 0");
  }

  @Test
  void filesListTheLiveFilesPerPartitionAndBucket() throws Exception {
    threeSnapshots();
    JsonNode files = json("files", "--snapshot", "1");
    assertThat(files.get("snapshot").asLong()).isEqualTo(1);
    assertThat(files.get("rows").asLong()).isEqualTo(4);
    long bytes = 0;
    for (JsonNode f : files.get("files")) {
      assertThat(f.get("partition").asText()).isIn("dt=d1", "dt=d2");
      assertThat(f.get("bucket").asInt()).isBetween(0, 1);
      assertThat(f.get("level").asInt()).isZero();
      Path file =
          dir.resolve("wh/shop.db/orders")
              .resolve(f.get("partition").asText())
              .resolve("bucket-" + f.get("bucket").asInt())
              .resolve(f.get("file").asText());
      assertThat(Files.size(file)).isEqualTo(f.get("bytes").asLong());
      bytes += f.get("bytes").asLong();
    }
    assertThat(files.get("bytes").asLong()).isEqualTo(bytes);
    String text = ok("files").out();
    assertThat(text)
        .contains("snapshot 3 of shop.orders")
        .contains("partition", "bucket", "level", "dt=d1", "dt=d2");
  }

  @Test
  void checkFindsAMissingDataFileWithoutWriting() throws Exception {
    threeSnapshots();
    assertThat(ok("check").out()).contains("3 snapshot(s)").contains("verdict  OK");
    assertThat(ok("check", "--deep").out()).contains("row(s) read").contains("verdict  OK");
    assertThat(json("check").get("verdict").asText()).isEqualTo("ok");

    JsonNode first = json("files", "--snapshot", "1").get("files").get(0);
    Path victim =
        dir.resolve("wh/shop.db/orders")
            .resolve(first.get("partition").asText())
            .resolve("bucket-" + first.get("bucket").asInt())
            .resolve(first.get("file").asText());
    Files.delete(victim);
    long snapshotsBefore = snapshotFiles();
    CliRun damaged = run("check");
    assertThat(damaged.exitCode()).isEqualTo(1);
    assertThat(damaged.out())
        .contains("damaged: data file " + victim + " is missing")
        .contains("snapshot 1")
        .contains("verdict  DAMAGED: 1 problem(s)")
        .contains("lockstep table rollback");
    JsonNode report = JSON.readTree(run("check", "--json").out());
    assertThat(report.get("verdict").asText()).isEqualTo("damaged");
    assertThat(report.get("problems").get(0).get("file").asText()).isEqualTo(victim.toString());
    assertThat(report.get("problems").get(0).get("damage").asText()).isEqualTo("missing");
    assertThat(snapshotFiles()).isEqualTo(snapshotsBefore);
  }

  private long snapshotFiles() throws Exception {
    try (Stream<Path> files = Files.list(dir.resolve("wh/shop.db/orders/snapshot"))) {
      return files.count();
    }
  }

  @Test
  void aTagSurvivesExpirationAndOrphanRemovalAndRollbackRestoresIt() throws Exception {
    threeSnapshots();
    String atOne = ok("read", "--snapshot", "1").out();
    assertThat(ok("create-tag", "--name", "first", "--snapshot", "1", "--dry-run").out())
        .contains("would create tag first")
        .contains("nothing written");
    assertThat(ok("tags").out()).contains("no tags");
    assertThat(ok("create-tag", "--name", "first", "--snapshot", "1").out())
        .contains("created tag first of shop.orders on snapshot 1");
    assertThat(run("create-tag", "--name", "first").err())
        .contains("tag 'first'")
        .contains("exists already");
    assertThat(run("create-tag", "--name", "bad/name").exitCode()).isEqualTo(2);
    JsonNode tags = json("tags");
    assertThat(tags.get("tags")).hasSize(1);
    assertThat(tags.get("tags").get(0).get("snapshot").asLong()).isEqualTo(1);

    // Compaction supersedes snapshot 1's files; expiring everything but the latest would delete
    // them, and orphan removal would remove what is left, without the tag.
    ok("compact", "--full", "--no-expire");
    ok("expire-snapshots", "--retain-min", "1", "--older-than", "0s");
    ok("remove-orphan-files", "--older-than", "0s");
    assertThat(ok("tags").out()).contains("no (expired; the tag keeps its files)");
    assertThat(ok("check").out()).contains("1 tag(s)").contains("verdict  OK");
    assertThat(ok("read", "--tag", "first").out()).isEqualTo(atOne);
    assertThat(run("read", "--tag", "nope").err()).contains("tag 'nope'");

    assertThat(ok("rollback", "--to-tag", "first", "--dry-run").out())
        .contains("would roll shop.orders back from snapshot 4 to snapshot 1: 4 row(s)");
    JsonNode rolled = json("rollback", "--to-tag", "first");
    assertThat(rolled.get("restoredSnapshot").asLong()).isEqualTo(1);
    assertThat(rolled.get("currentSnapshot").asLong()).isEqualTo(5);
    assertThat(ok("read").out()).isEqualTo(atOne);

    assertThat(ok("delete-tag", "--name", "first", "--dry-run").out())
        .contains("would delete tag first");
    assertThat(ok("delete-tag", "--name", "first").out()).contains("deleted tag first");
    assertThat(run("delete-tag", "--name", "first").err())
        .contains("does not exist")
        .contains("the tags are []");
    assertThat(ok("remove-orphan-files", "--older-than", "0s").out()).doesNotContain("removed 0");
    assertThat(ok("read").out()).isEqualTo(atOne);
  }

  @Test
  void rollbackBySnapshotAndTimeKeepsTheHistory() throws Exception {
    threeSnapshots();
    String atTwo = ok("read", "--snapshot", "2").out();
    String atThree = ok("read").out();
    assertThat(ok("rollback", "--to-snapshot", "2").out())
        .contains("rolled shop.orders back to snapshot 2: snapshot 4 (OVERWRITE) holds its 5");
    assertThat(ok("read").out()).isEqualTo(atTwo);
    assertThat(ok("read", "--snapshot", "3").out()).as("history kept").isEqualTo(atThree);

    assertThat(ok("rollback", "--to-time", Instant.now().plusSeconds(60).toString()).out())
        .contains("back to snapshot 4");
    assertThat(run("rollback", "--to-time", "yesterday").err()).contains("is not a time");
    assertThat(run("rollback", "--to-time", "2000-01-01 10:00").err())
        .contains("no retained snapshot");
    assertThat(run("rollback").err()).contains("give exactly one of");
    assertThat(run("rollback", "--to-snapshot", "99").err())
        .contains("snapshot 99 of shop.orders does not exist");
  }

  @Test
  void dropWithAndWithoutPurge() throws Exception {
    threeSnapshots();
    Path table = dir.resolve("wh/shop.db/orders");
    assertThat(ok("drop", "--purge", "--dry-run").out()).contains("would drop and purge");
    assertThat(table).exists();
    JsonNode dropped = json("drop");
    assertThat(dropped.get("purge").asBoolean()).isFalse();
    assertThat(dropped.get("files").asLong()).isPositive();
    assertThat(table.resolve("schema")).doesNotExist();
    assertThat(table.resolve("snapshot")).exists();
    CliRun read = run("read");
    assertThat(read.exitCode()).isNotZero();
    assertThat(read.err()).contains("does not exist");
    assertThat(run("drop").err()).contains("its files are still under").contains("--purge");
    assertThat(ok("drop", "--purge").out())
        .contains("dropped and purged shop.orders (dropped" + " before)");
    assertThat(table).doesNotExist();

    threeSnapshots();
    assertThat(ok("drop", "--purge").out()).contains("dropped and purged shop.orders:");
    assertThat(table).doesNotExist();
    assertThat(run("drop", "--purge").err()).contains("does not exist");
  }
}
