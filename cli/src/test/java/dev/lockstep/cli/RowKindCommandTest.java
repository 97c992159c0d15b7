package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Row kinds on the command line (issue 19): a {@code _ROW_KIND} CSV column for {@code table write},
 * {@code table read --row-kind}, {@code -o sequence.field=...} at create; bad input is one line and
 * writes nothing.
 */
class RowKindCommandTest {

  @TempDir Path dir;

  private CliRun run(String command, String table, String... more) {
    String[] base = {
      "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", table
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return CliRun.of(all);
  }

  private CliRun ok(String command, String table, String... more) {
    CliRun result = run(command, table, more);
    assertThat(result.exitCode()).as(result.err() + result.out()).isZero();
    return result;
  }

  private Path csv(String name, String content) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, content, StandardCharsets.UTF_8);
    return file;
  }

  private void refused(CliRun result, String line) {
    assertThat(result.exitCode()).as(result.out()).isEqualTo(2);
    assertThat(result.err().trim()).contains(line).doesNotContain("\n");
  }

  @Test
  void writeCarriesRowKindsAndReadShowsTheWinningKind() throws Exception {
    ok(
        "create",
        "db.kv",
        "--schema",
        "k INT NOT NULL, v STRING, ts BIGINT",
        "--primary-key",
        "k",
        "-o",
        "sequence.field=ts");
    ok(
        "write",
        "db.kv",
        "--csv",
        csv("plain.csv", "k,v,ts\n1,a,1\n2,b,1\n3,c,1\n4,d,5\n").toString());
    // Any column order; an empty kind is +I; batches of one row commit each row on its own.
    ok(
        "write",
        "db.kv",
        "--batch-rows",
        "1",
        "--csv",
        csv(
                "kinds.csv",
                "v,_ROW_KIND,k,ts\n"
                    + "a,-U,1,2\n"
                    + "a2,+U,1,2\n"
                    + ",-D,2,2\n"
                    + "c2, ,3,2\n"
                    + "late,+U,4,3\n")
            .toString());
    assertThat(ok("read", "db.kv").out()).isEqualTo("k,v,ts\n1,a2,2\n3,c2,2\n4,d,5\n");
    assertThat(ok("read", "db.kv", "--row-kind").out())
        .isEqualTo("_ROW_KIND,k,v,ts\n+U,1,a2,2\n+I,3,c2,2\n+I,4,d,5\n");
    assertThat(ok("read", "db.kv", "--row-kind", "--columns", "v").out())
        .isEqualTo("_ROW_KIND,v\n+U,a2\n+I,c2\n+I,d\n");
    // What read --row-kind prints, write reads back.
    ok(
        "create",
        "db.copy",
        "--schema",
        "k INT NOT NULL, v STRING, ts BIGINT",
        "--primary-key",
        "k");
    ok(
        "write",
        "db.copy",
        "--csv",
        csv("again.csv", ok("read", "db.kv", "--row-kind").out()).toString());
    assertThat(ok("read", "db.copy", "--row-kind").out())
        .isEqualTo("_ROW_KIND,k,v,ts\n+U,1,a2,2\n+I,3,c2,2\n+I,4,d,5\n");
  }

  @Test
  void badKindsAndRetractionsIntoAppendTablesAreOneLineAndWriteNothing() throws Exception {
    ok("create", "db.log", "--schema", "n BIGINT, s STRING");
    Path retract = csv("retract.csv", "_ROW_KIND,n,s\n+I,1,a\n+U,2,b\n-D,3,c\n");
    refused(
        run("write", "db.log", "--batch-rows", "1", "--csv", retract.toString()),
        "--csv "
            + retract
            + " line 4, column '_ROW_KIND': -D removes a key, and an append table"
            + " has none; write only +I or +U rows to it");
    assertThat(ok("read", "db.log", "--count").out().trim()).isEqualTo("0");

    ok("create", "db.kv", "--schema", "k INT NOT NULL, v STRING", "--primary-key", "k");
    Path bad = csv("bad.csv", "k,v,_ROW_KIND\n1,a,+I\n2,b,U\n");
    refused(
        run("write", "db.kv", "--csv", bad.toString()),
        "--csv "
            + bad
            + " line 3, column"
            + " '_ROW_KIND': 'U' is not a row kind; write +I, -U, +U or -D (empty means +I)");
    refused(
        run("overwrite", "db.kv", "--csv", bad.toString()),
        "--csv "
            + bad
            + " line 1: column"
            + " '_ROW_KIND' (row kinds) is read only by 'table write'; drop it from this file");
    assertThat(ok("read", "db.kv", "--count").out().trim()).isEqualTo("0");

    ok("write", "db.log", "--csv", csv("ok.csv", "n,_ROW_KIND\n1,+I\n2,+U\n").toString());
    assertThat(ok("read", "db.log", "--row-kind").out()).isEqualTo("_ROW_KIND,n,s\n+I,1,\n+I,2,\n");
  }

  @Test
  void aBadSequenceFieldIsRefusedAtCreate() {
    refused(
        run(
            "create",
            "db.seq",
            "--schema",
            "k INT NOT NULL, v STRING",
            "--primary-key",
            "k",
            "-o",
            "sequence.field=ts"),
        "Option 'sequence.field' = 'ts' names column 'ts', which the"
            + " table does not have; name one of [k, v].");
    assertThat(dir.resolve("wh").resolve("db.db").resolve("seq")).doesNotExist();
  }
}
