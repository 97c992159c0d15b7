package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, item 1: the bucket count is a property of the stored table. A writer that asks for
 * another count (here {@code -o bucket=3} on a 2-bucket primary-key table) is refused before it
 * writes, so the table can never hold one key in two buckets.
 */
class BucketCountTest {

  @TempDir Path dir;

  private CliRun run(String command, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", "db.t"));
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(String[]::new));
  }

  private CliRun ok(String command, String... more) {
    CliRun run = run(command, more);
    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    return run;
  }

  private String csv(String name, int offset) throws Exception {
    List<String> lines = new ArrayList<>(List.of("k,v,s"));
    for (int k = 0; k < 20; k++) {
      lines.add(k + "," + (k + offset) + "," + name);
    }
    Path file = dir.resolve(name + ".csv");
    Files.write(file, lines);
    return file.toString();
  }

  @Test
  void aWriteWithAnotherBucketCountIsRefusedAndEveryKeyStaysOnce() throws Exception {
    ok(
        "create",
        "--schema",
        "k INT NOT NULL, v BIGINT, s STRING",
        "--primary-key",
        "k",
        "-o",
        "bucket=2");
    ok("write", "--csv", csv("old", 0));

    CliRun refused = run("write", "--csv", csv("new", 100), "-o", "bucket=3");
    assertThat(refused.exitCode()).as(refused.err() + refused.out()).isEqualTo(2);
    assertThat(refused.err().strip())
        .startsWith("lockstep: ")
        .doesNotContain("\n")
        .contains("bucket", "2", "3", "stored");
    for (String command : List.of("overwrite", "compact")) {
      List<String> more =
          new ArrayList<>(
              command.equals("overwrite") ? List.of("--csv", csv("new", 100)) : List.of("--full"));
      more.addAll(List.of("-o", "bucket=3"));
      CliRun again = run(command, more.toArray(String[]::new));
      assertThat(again.exitCode()).as(command + ": " + again.err()).isEqualTo(2);
      assertThat(again.err()).contains("bucket");
    }

    assertThat(ok("read", "--count").out().trim()).isEqualTo("20");
    ok("write", "--csv", csv("new", 100));
    assertThat(ok("read", "--count").out().trim()).isEqualTo("20");
    assertThat(ok("read").out().lines().filter(l -> l.startsWith("7,")).toList())
        .containsExactly("7,107,new");
  }

  @Test
  void theSameBucketCountAsStoredIsAccepted() throws Exception {
    ok(
        "create",
        "--schema",
        "k INT NOT NULL, v BIGINT, s STRING",
        "--primary-key",
        "k",
        "-o",
        "bucket=2");
    ok("write", "--csv", csv("old", 0), "-o", "bucket=2");
    assertThat(ok("read", "--count").out().trim()).isEqualTo("20");
  }
}
