package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged table or bad input, as a new user meets it with {@code lockstep table}: one line on
 * standard error naming the file or option and the fix, a non-zero exit code, no half output, and
 * nothing written to the table.
 */
class TableBadInputTest {

  @TempDir Path dir;

  private Path tableDir;

  private CliRun run(String command, String... more) {
    String[] base = {
      "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", "db.t"
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return CliRun.of(all);
  }

  @BeforeEach
  void twoSnapshots() {
    assertThat(
            run("create", "--schema", "k INT NOT NULL, v BIGINT", "--primary-key", "k").exitCode())
        .isZero();
    assertThat(run("write", "--generate", "10").exitCode()).isZero();
    assertThat(run("write", "--generate", "10", "--offset", "5").exitCode()).isZero();
    tableDir = dir.resolve("wh/db.db/t");
  }

  private Set<String> files() throws Exception {
    try (Stream<Path> s = Files.walk(tableDir)) {
      return s.filter(Files::isRegularFile)
          .map(p -> tableDir.relativize(p).toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  private static void assertOneLine(CliRun run, int exitCode, String... mentions) {
    assertThat(run.exitCode()).as(run.err()).isEqualTo(exitCode);
    assertThat(run.err().strip())
        .startsWith("lockstep: ")
        .doesNotContain("\n")
        .doesNotContain("\tat ");
    assertThat(run.out()).as("no half output").isEmpty();
    for (String mention : mentions) {
      assertThat(run.err()).contains(mention);
    }
  }

  @Test
  void aCorruptSnapshotFileIsNamedWithTheFix() throws Exception {
    Files.writeString(tableDir.resolve("snapshot/snapshot-2"), "{\"version\": 1, \"id\": 2, oops");
    Set<String> before = files();
    assertOneLine(run("read"), 3, "snapshot-2", "unparsable", "Restore it", "lockstep table check");
    assertOneLine(run("snapshots"), 3, "snapshot-2", "unparsable");
    assertThat(run("read", "--snapshot", "1", "--count").out().trim()).isEqualTo("10");
    assertThat(files()).isEqualTo(before);
  }

  @Test
  void aTruncatedManifestIsNamedWithTheFix() throws Exception {
    Path manifest;
    try (Stream<Path> s = Files.list(tableDir.resolve("manifest"))) {
      manifest =
          s.filter(
                  p ->
                      p.getFileName().toString().startsWith("manifest-")
                          && !p.getFileName().toString().startsWith("manifest-list-"))
              .findFirst()
              .orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(manifest);
    Files.write(manifest, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    Set<String> before = files();
    CliRun read = run("read");
    assertOneLine(read, 3, manifest.getFileName().toString(), "truncated at byte", "Restore it");
    assertThat(files()).isEqualTo(before);
  }

  @Test
  void aMissingDataFileIsNamedWithTheFix() throws Exception {
    Path data;
    try (Stream<Path> s = Files.list(tableDir.resolve("bucket-0"))) {
      data =
          s.filter(p -> p.getFileName().toString().startsWith("data-")).findFirst().orElseThrow();
    }
    Files.delete(data);
    Set<String> before = files();
    assertOneLine(run("read"), 3, data.getFileName().toString(), "missing", "Restore it");
    assertOneLine(run("read", "--count"), 3, data.getFileName().toString());
    assertThat(files()).isEqualTo(before);
  }

  @Test
  void aBadCsvLineWritesNothing() throws Exception {
    Set<String> before = files();
    Path csv = dir.resolve("rows.csv");
    Files.write(csv, List.of("k,v", "1,10", "2,ten", "3,30"));
    assertOneLine(run("write", "--csv", csv.toString()), 2, "rows.csv line 3", "'v'", "BIGINT");
    Files.write(csv, List.of("k,value", "1,10"));
    assertOneLine(run("write", "--csv", csv.toString()), 2, "unknown column 'value'", "[k, v]");
    assertOneLine(
        run("write", "--csv", dir.resolve("nope.csv").toString()), 2, "nope.csv", "does not exist");
    assertThat(files()).isEqualTo(before);
  }

  @Test
  void badOptionsAndArgumentsAreNamed() throws Exception {
    Set<String> before = files();
    assertOneLine(
        run("expire-snapshots", "-o", "snapshot.num-retaind.min=3"),
        2,
        "'snapshot.num-retaind.min'",
        "'snapshot.num-retained.min'");
    assertOneLine(run("expire-snapshots", "--retain-min", "0"), 2, "--retain-min", "at least 1");
    assertOneLine(run("remove-orphan-files", "--older-than", "yesterday"), 2, "--older-than", "1d");
    assertOneLine(run("read", "--columns", "k,w"), 2, "'w'");
    assertOneLine(run("read", "--partition", "k=1"), 2, "not a partition column");
    assertOneLine(run("read", "--snapshot", "9"), 3, "snapshot 9", "lockstep table snapshots");
    assertOneLine(
        CliRun.of(
            "table", "read", "--warehouse", dir.resolve("wh").toString(), "--table", "db.nope"),
        2,
        "db.nope does not exist",
        "lockstep table create");
    // A missing table is bad input (exit code 2) for every command that opens one (README).
    for (String command : List.of("write", "snapshots", "check", "compact", "drop")) {
      CliRun missing =
          CliRun.of(
              "table",
              command,
              "--warehouse",
              dir.resolve("wh").toString(),
              "--table",
              "db.nope",
              "--generate",
              "1");
      if (!command.equals("write")) {
        missing =
            CliRun.of(
                "table",
                command,
                "--warehouse",
                dir.resolve("wh").toString(),
                "--table",
                "db.nope");
      }
      assertOneLine(missing, 2, "db.nope does not exist");
    }
    assertOneLine(run("create", "--schema", "k INT"), 2, "already exists");
    assertOneLine(
        run("write", "--generate", "5", "-o", "lock.enabled=true", "-o", "lock.type=zk"),
        2,
        "'zk'",
        "zookeeper");
    assertOneLine(
        run(
            "compact",
            "-o",
            "lock.enabled=true",
            "-o",
            "lock.type=zookeeper",
            "-o",
            "lock.zookeeper.connect-string=127.0.0.1:1",
            "-o",
            "lock-acquire-timeout=2 s",
            "-o",
            "lock.zookeeper.connection-timeout=1 s"),
        3,
        "127.0.0.1:1");
    assertThat(files()).isEqualTo(before);
  }
}
