package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lockstep table create ... --bucket -1} makes a dynamic-bucket table, {@code describe}
 * shows its dynamic-bucket options, and two loads of overlapping keys read each key once (issue
 * 19).
 */
class DynamicBucketCommandTest {

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

  @Test
  void createWithBucketMinusOneAndDescribeShowTheDynamicBucketOptions() throws Exception {
    ok(
        "create",
        "--schema",
        "k INT NOT NULL, v BIGINT",
        "--primary-key",
        "k",
        "--bucket",
        "-1",
        "-o",
        "dynamic-bucket.target-row-num=10");
    String described = ok("describe").out();
    assertThat(described)
        .contains("bucket: -1 (dynamic)")
        .contains("dynamic-bucket.target-row-num: 10")
        .contains("dynamic-bucket.initial-buckets: 1")
        .contains("dynamic-bucket.max-buckets: -1 (no limit but 32767)")
        .contains("primary key: k");
    List<String> lines = new ArrayList<>(List.of("k,v"));
    for (int k = 0; k < 25; k++) {
      lines.add(k + "," + k);
    }
    Path first = dir.resolve("first.csv");
    Files.write(first, lines);
    ok("write", "--csv", first.toString());
    lines = new ArrayList<>(List.of("k,v"));
    for (int k = 20; k < 40; k++) {
      lines.add(k + "," + (k + 100));
    }
    Path second = dir.resolve("second.csv");
    Files.write(second, lines);
    ok("write", "--csv", second.toString());
    assertThat(ok("read", "--count").out().trim()).isEqualTo("40");
    List<String> read = ok("read").out().lines().toList();
    assertThat(read).contains("39,139", "20,120", "5,5");
    String files = ok("files").out();
    assertThat(files).contains(" 3 ").contains(" 0 ");
  }

  @Test
  void aFixedTableDescribesItsBucketsAndBadBucketsAreOneLine() {
    ok("create", "--schema", "k INT NOT NULL, v BIGINT", "--primary-key", "k", "--bucket", "3");
    assertThat(ok("describe").out()).contains("bucket: 3 (fixed)");
    CliRun bad =
        CliRun.of(
            "table",
            "create",
            "--warehouse",
            dir.resolve("wh").toString(),
            "--table",
            "db.log",
            "--schema",
            "n BIGINT",
            "--bucket",
            "-1");
    assertThat(bad.exitCode()).isNotZero();
    assertThat(bad.err().strip().lines().count()).as(bad.err()).isEqualTo(1);
    assertThat(bad.err()).contains("primary-key tables only");
  }
}
