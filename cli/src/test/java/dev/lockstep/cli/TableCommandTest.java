package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lockstep table ...} end to end on a local warehouse, as a user runs it. */
class TableCommandTest {

  @TempDir Path dir;

  private String[] args(String command, String... more) {
    String[] base = {
      "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", "shop.orders"
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  private CliRun ok(String command, String... more) {
    CliRun run = CliRun.of(args(command, more));
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    return run;
  }

  private Path csv(String... lines) throws Exception {
    Path file = Files.createTempFile(dir, "rows", ".csv");
    Files.write(file, List.of(lines));
    return file;
  }

  @Test
  void createWriteReadOverwriteAndList() throws Exception {
    ok(
        "create",
        "--schema",
        "dt STRING, id INT NOT NULL, amount DECIMAL(8, 2), note STRING",
        "--primary-key",
        "dt,id",
        "--partition-keys",
        "dt",
        "-o",
        "bucket=2",
        "-o",
        "snapshot.num-retained.min=5");
    ok(
        "write",
        "--csv",
        csv("dt,id,amount,note", "d1,1,1.50,first", "d1,2,2.00,\"a, b\"", "d2,1,3.25,").toString());
    ok("write", "--csv", csv("id,dt,amount", "2,d1,9.99").toString());

    assertThat(ok("read").out())
        .isEqualTo(
            String.join(
                "\n", "dt,id,amount,note", "d1,1,1.50,first", "d1,2,9.99,", "d2,1,3.25,", ""));
    assertThat(ok("read", "--count").out().trim()).isEqualTo("3");
    assertThat(ok("read", "--partition", "dt=d2", "--columns", "id,note").out())
        .isEqualTo("id,note\n1,\n");
    assertThat(ok("read", "--snapshot", "1", "--columns", "note").out()).contains("\"a, b\"");

    // Static overwrite of d1 (rows must lie in it), then a dynamic one that only touches d3.
    ok("overwrite", "--partition", "dt=d1", "--csv", csv("dt,id,amount", "d1,7,7.00").toString());
    assertThat(ok("read", "--columns", "dt,id").out()).isEqualTo("dt,id\nd1,7\nd2,1\n");
    ok("overwrite", "--csv", csv("dt,id", "d3,1").toString());
    assertThat(ok("read", "--columns", "dt,id").out()).isEqualTo("dt,id\nd1,7\nd2,1\nd3,1\n");

    String snapshots = ok("snapshots").out();
    assertThat(snapshots).contains("APPEND", "OVERWRITE", "lockstep-cli-").contains("rows");
    // Snapshot 2 wrote key (d1, 2) again: 4 rows in its files, 3 live (issue 25: 'records'
    // counted the superseded one).
    String[] second =
        snapshots
            .lines()
            .map(String::trim)
            .filter(l -> l.startsWith("2 "))
            .findFirst()
            .orElseThrow()
            .split("\\s+");
    assertThat(second[5]).as("rows").isEqualTo("3");
    assertThat(second[6]).as("delta").isEqualTo("0");
    assertThat(snapshots.lines().count()).isEqualTo(5);
  }

  /**
   * Commits under a real ZooKeeper lock record the lease's fencing token, and {@code snapshots}
   * shows it; a commit without a lock shows '-'.
   */
  @Test
  void snapshotsShowTheFencingTokenOfLockedCommits() throws Exception {
    ok("create", "--schema", "k INT NOT NULL, v STRING", "--primary-key", "k");
    ok("write", "--csv", csv("k,v", "1,free").toString());
    try (TestingServer zookeeper = new TestingServer(true)) {
      String[] lock = {
        "-o",
        "lock.enabled=true",
        "-o",
        "lock.type=zookeeper",
        "-o",
        "lock.zookeeper.connect-string=" + zookeeper.getConnectString()
      };
      ok("write", concat(new String[] {"--csv", csv("k,v", "2,locked").toString()}, lock));
      ok("write", concat(new String[] {"--csv", csv("k,v", "3,locked").toString()}, lock));
    }

    List<String> lines = ok("snapshots").out().lines().toList();
    assertThat(lines).hasSize(4);
    assertThat(lines.get(0)).endsWith("fencing token");
    assertThat(lines.get(1)).endsWith(" -");
    long second = Long.parseLong(lines.get(2).substring(lines.get(2).lastIndexOf(' ') + 1));
    long third = Long.parseLong(lines.get(3).substring(lines.get(3).lastIndexOf(' ') + 1));
    assertThat(third).as("a later holder's token").isGreaterThan(second);
  }

  private static String[] concat(String[] first, String[] second) {
    String[] all = new String[first.length + second.length];
    System.arraycopy(first, 0, all, 0, first.length);
    System.arraycopy(second, 0, all, first.length, second.length);
    return all;
  }

  @Test
  void generateCompactExpireAndRemoveOrphans() throws Exception {
    ok(
        "create",
        "--schema",
        "k INT NOT NULL, v BIGINT, s STRING",
        "--primary-key",
        "k",
        "-o",
        "bucket=2",
        "-o",
        "write-only=true");
    for (int i = 0; i < 4; i++) {
      ok("write", "--generate", "500", "--offset", Integer.toString(i * 100));
    }
    assertThat(ok("read", "--count").out().trim()).isEqualTo("800");
    assertThat(ok("compact", "--full", "--no-expire").out()).contains("compacted shop.orders");
    assertThat(ok("compact", "--continuous", "--interval", "50ms", "--for", "300ms").out())
        .contains("stopped after");

    assertThat(ok("expire-snapshots", "--retain-min", "1", "--older-than", "0s", "--dry-run").out())
        .contains("would expire snapshots 1..4")
        .contains("nothing deleted");
    assertThat(ok("snapshots").out().lines().count()).isEqualTo(6);
    assertThat(ok("expire-snapshots", "--retain-min", "1", "--older-than", "0s").out())
        .contains("expired snapshots 1..4")
        .contains("earliest snapshot now 5");
    assertThat(ok("snapshots").out().lines().count()).isEqualTo(2);
    assertThat(ok("read", "--count").out().trim()).isEqualTo("800");

    Path orphan = dir.resolve("wh/shop.db/orders/bucket-0/data-orphan.avro");
    Files.write(orphan, new byte[42]);
    assertThat(ok("remove-orphan-files", "--older-than", "0s", "--dry-run").out())
        .contains("orphan bucket-0/data-orphan.avro (42 bytes)")
        .contains("found 1 orphan");
    assertThat(orphan).exists();
    assertThat(ok("remove-orphan-files").out())
        .contains("removed 0 orphan")
        .contains("1 unreferenced but younger than 1 d");
    assertThat(ok("remove-orphan-files", "--older-than", "0s").out())
        .contains("removed bucket-0/data-orphan.avro (42 bytes)");
    assertThat(orphan).doesNotExist();
    assertThat(ok("read", "--count").out().trim()).isEqualTo("800");
  }
}
