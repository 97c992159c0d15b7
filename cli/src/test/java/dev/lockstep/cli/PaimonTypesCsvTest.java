package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The column types VARCHAR(n), CHAR(n), FLOAT, SMALLINT, TINYINT and TIMESTAMP_LTZ(p) from {@code
 * table create} to CSV and back (issue 25), with Paimon's text cast: VARCHAR cut to n, CHAR cut and
 * blank-padded to n, TIMESTAMP_LTZ with its offset or in UTC; a bad value names its line and column
 * and writes nothing.
 */
class PaimonTypesCsvTest {

  private static final String SCHEMA =
      "t TINYINT NOT NULL, s SMALLINT NOT NULL, f FLOAT, c CHAR(3), v VARCHAR(4),"
          + " at TIMESTAMP_LTZ(3)";

  @TempDir Path dir;

  private CliRun run(String command, String... more) {
    String[] base = {
      "table", command, "--warehouse", dir.resolve("wh").toString(), "--table", "db.t"
    };
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return CliRun.of(all);
  }

  private CliRun ok(String command, String... more) {
    CliRun r = run(command, more);
    assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
    return r;
  }

  private String csv(String text) throws Exception {
    Path f = Files.createTempFile(dir, "in", ".csv");
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f.toString();
  }

  private Set<String> files() throws Exception {
    Path table = dir.resolve("wh/db.db/t");
    try (Stream<Path> s = Files.walk(table)) {
      return s.filter(Files::isRegularFile)
          .map(p -> table.relativize(p).toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  @BeforeEach
  void create() {
    ok("create", "--schema", SCHEMA, "--primary-key", "t,s");
  }

  @Test
  void describeShowsTheTypesAsCreated() {
    assertThat(ok("describe").out())
        .contains("  t TINYINT NOT NULL\n")
        .contains("  s SMALLINT NOT NULL\n")
        .contains("  f FLOAT\n")
        .contains("  c CHAR(3)\n")
        .contains("  v VARCHAR(4)\n")
        .contains("  at TIMESTAMP_LTZ(3)\n");
  }

  @Test
  void everyTypeLoadsAndReadsBackInKeyOrder() throws Exception {
    String in =
        "t,s,f,c,v,at\n"
            + "-128,-32768,-0.0,a,abcdef,2024-05-01 10:00:00.123456+02:00\n"
            + "127,32767,3.4028235E38,abcd,ab,2024-05-01T08:00:00Z\n"
            + "-1,5,NaN,,\"\",2024-05-01\n"
            + "0,0,1.5,\"x y\",日本語x,\n";
    CliRun write = ok("write", "--csv", csv(in));
    assertThat(write.out())
        .contains("wrote 4 rows")
        .contains(
            "cut 2 value(s) longer than their CHAR/VARCHAR column to its length (as CAST does),"
                + " the first: ");
    // Keys in order (negative TINYINT first); CHAR padded, VARCHAR cut, instants in UTC with the
    // fraction cut to milliseconds.
    assertThat(ok("read").out())
        .isEqualTo(
            "t,s,f,c,v,at\n"
                + "-128,-32768,-0.0,\"a  \",abcd,2024-05-01T08:00:00.123Z\n"
                + "-1,5,NaN,,\"\",2024-05-01T00:00:00Z\n"
                + "0,0,1.5,x y,日本語x,\n"
                + "127,32767,3.4028235E38,abc,ab,2024-05-01T08:00:00Z\n");
    // What read prints, write reads back to the same rows.
    String printed = ok("read").out();
    ok("write", "--csv", csv(printed), "--commit-user", "again");
    assertThat(ok("read").out()).isEqualTo(printed);
  }

  @Test
  void filtersOnEveryNewTypeSelectTheMatchingRows() throws Exception {
    ok(
        "write",
        "--csv",
        csv(
            "t,s,f,c,v,at\n"
                + "-5,-300,-2.5,ab,x,2024-01-01 00:00:00Z\n"
                + "3,7,0.5,,yy,2024-06-01 12:00:00+02:00\n"
                + "9,300,8.0,zzz,,\n"));
    assertThat(ok("read", "--columns", "t", "--where", "t < 0").out()).isEqualTo("t\n-5\n");
    assertThat(ok("read", "--columns", "t", "--where", "s IN (7, 300)").out())
        .isEqualTo("t\n3\n9\n");
    assertThat(ok("read", "--columns", "t", "--where", "f = -2.5").out()).isEqualTo("t\n-5\n");
    assertThat(ok("read", "--columns", "t", "--where", "c = 'ab'").out())
        .as("a CHAR literal is padded as the stored values are")
        .isEqualTo("t\n-5\n");
    assertThat(ok("read", "--columns", "t", "--where", "c IS NULL").out()).isEqualTo("t\n3\n");
    assertThat(ok("read", "--columns", "t", "--where", "v IS NULL").out()).isEqualTo("t\n9\n");
    assertThat(ok("read", "--columns", "t", "--where", "at = '2024-06-01 10:00:00Z'").out())
        .isEqualTo("t\n3\n");
    assertThat(
            ok("read", "--columns", "t", "--where", "at < TIMESTAMP '2024-06-01 10:00:00'").out())
        .isEqualTo("t\n-5\n");
  }

  @Test
  void aBadValueOfEachTypeNamesItsLineAndColumnAndWritesNothing() throws Exception {
    ok("write", "--csv", csv("t,s\n1,1\n"));
    Set<String> before = files();
    String[][] cases = {
      {"t,s\n1,1\n128,2\n", "line 3, column 't': '128' is not a valid TINYINT NOT NULL"},
      {"t,s\n1,1\n2,40000\n", "line 3, column 's': '40000' is not a valid SMALLINT NOT NULL"},
      {"t,s\n1.5,1\n", "line 2, column 't': '1.5' is not a valid TINYINT NOT NULL"},
      {"t,s,f\n1,1,fast\n", "line 2, column 'f': 'fast' is not a valid FLOAT"},
      {
        "t,s,at\n1,1,2024-13-01\n",
        "line 2, column 'at': '2024-13-01' is not a valid TIMESTAMP_LTZ(3)"
      },
      {"t,s,at\n1,1,yesterday\n", "line 2, column 'at': 'yesterday' is not a valid"},
    };
    for (String[] c : cases) {
      String file = csv(c[0]);
      CliRun bad = run("write", "--csv", file);
      assertThat(bad.exitCode()).as(c[0]).isEqualTo(2);
      assertThat(bad.err()).as(c[0]).contains(file + " " + c[1]);
      assertThat(bad.err().strip().lines()).as(c[0]).hasSize(1);
      assertThat(files()).as("nothing written for " + c[0]).isEqualTo(before);
    }
    CliRun skipped =
        ok("write", "--csv", csv("t,s,f\n2,2,1\n3,99999,2\n4,4,x\n5,5,3\n"), "--skip-bad-rows");
    assertThat(skipped.out()).contains("wrote 2 rows").contains("skipped 2 bad row(s)");
    assertThat(ok("read", "--columns", "t").out()).isEqualTo("t\n1\n2\n5\n");
  }

  @Test
  void typesOutOfRangeAreRefusedAtCreate() {
    CliRun bad =
        CliRun.of(
            "table",
            "create",
            "--warehouse",
            dir.resolve("wh").toString(),
            "--table",
            "db.u",
            "--schema",
            "a TIMESTAMP_LTZ(9)");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("TIMESTAMP_LTZ(9) is invalid").contains("TIMESTAMP_LTZ(6)");
    CliRun zero =
        CliRun.of(
            "table",
            "create",
            "--warehouse",
            dir.resolve("wh").toString(),
            "--table",
            "db.u",
            "--schema",
            "a VARCHAR(0)");
    assertThat(zero.exitCode()).isEqualTo(2);
    assertThat(zero.err()).contains("VARCHAR(0) is invalid");
  }
}
